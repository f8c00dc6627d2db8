import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { findUnstorable, isBinary } from './storable-input.js';

describe('the storable-input walk', () => {
  it('passes over every kind of bytes whole: Buffer, Uint8Array, other typed arrays, DataView, ArrayBuffer, Blob, a stream', () => {
    const values = [Buffer.alloc(4), new Uint8Array(4), new Float64Array(2), new DataView(new ArrayBuffer(4)), new ArrayBuffer(4), new Blob(['x']), Readable.from([])];
    for (const v of values) expect(isBinary(v)).toBe(true);
    expect(isBinary({})).toBe(false);
    expect(isBinary([])).toBe(false);
  });

  it("a parsed form's 50 MB file costs nothing per byte: the walk returns at once", () => {
    // Bytes that would be refused as text (NUL) if they were walked as keys and values.
    const form = { csrf: 'token', title: 'Bank', file: { name: 'bank.zip', bytes: new Uint8Array(50 * 1024 * 1024) } };
    const t0 = performance.now();
    expect(findUnstorable(form, 'body')).toBeNull();
    expect(performance.now() - t0).toBeLessThan(50);
  });

  it('still refuses the text beside the bytes: a NUL in a form field is named', () => {
    const form = { title: 'a\u0000b', file: { name: 'x', bytes: Buffer.from([0]) } };
    expect(findUnstorable(form, 'body')).toEqual({ field: 'title', message: 'must not contain the NUL character (U+0000)' });
  });

  it('costs nothing per number: an autosave of a million zeros is walked in well under a quarter of a second', () => {
    const body = { answers: [{ questionId: 'q', value: new Array(1_000_000).fill(0), version: 1 }] };
    findUnstorable(body, 'body');
    const t0 = performance.now();
    expect(findUnstorable(body, 'body')).toBeNull();
    // Before: a path object and a string key per element, about 1 s for this on the same machine.
    expect(performance.now() - t0).toBeLessThan(250);
  });

  it('names the place of a refused value deep inside arrays and objects', () => {
    expect(findUnstorable({ a: [1, { b: ['ok', 'x\u0000'] }] }, 'body')).toEqual({ field: 'a.1.b.1', message: 'must not contain the NUL character (U+0000)' });
    expect(findUnstorable({ a: 'x\ud800' }, 'body')?.field).toBe('a');
    expect(findUnstorable('\u0000', 'query')?.field).toBe('query');
  });
});

describe('a flat object of strings (path parameters, a query): the quick check', () => {
  it('passes a flat object of clean strings, as path parameters and queries are', () => {
    expect(findUnstorable({ assignmentId: 'asg_0123456789abcdefABCDEF', cursor: 'é 😀' }, 'params')).toBeNull();
    expect(findUnstorable({}, 'query')).toBeNull();
  });

  it('names the key of a flat value that holds NUL or a lone surrogate', () => {
    expect(findUnstorable({ a: 'ok', limit: '1\u00002' }, 'query')).toEqual({ field: 'limit', message: 'must not contain the NUL character (U+0000)' });
    expect(findUnstorable({ id: 'x\udc00' }, 'params')).toEqual({ field: 'id', message: 'must be valid Unicode (it holds an unpaired surrogate)' });
  });

  it('refuses a flat key that holds NUL, naming the object', () => {
    expect(findUnstorable({ 'k\u0000': 'v' }, 'query')).toEqual({ field: 'query', message: 'has a key that must not contain the NUL character (U+0000)' });
  });

  it('still walks what is not flat: nested objects, arrays, numbers beside strings', () => {
    expect(findUnstorable({ n: 1, meta: { note: 'x\u0000' } }, 'body')).toEqual({ field: 'meta.note', message: 'must not contain the NUL character (U+0000)' });
    expect(findUnstorable({ tags: ['a', 'b\ud800'] }, 'query')).toEqual({ field: 'tags.1', message: 'must be valid Unicode (it holds an unpaired surrogate)' });
    expect(findUnstorable({ n: 1, s: 'fine' }, 'body')).toBeNull();
  });
});
