import { randomBytes } from 'node:crypto';
import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { AppError } from '../errors.js';
import { boundaryOf, readMultipart } from './multipart-form.js';

const LIMITS = { maxBytes: 60 * 1024 * 1024, maxParts: 8, maxFieldBytes: 1024 };

/** A form as the platform's own FormData encodes it (what a browser sends). */
async function encoded(fields: Record<string, string>, file?: { name: string; bytes: Uint8Array }) {
  const form = new FormData();
  for (const [k, v] of Object.entries(fields)) form.append(k, v);
  if (file) form.append('file', new Blob([Buffer.from(file.bytes)]), file.name);
  const request = new Request('http://x.test/', { method: 'POST', body: form });
  return { contentType: request.headers.get('content-type')!, body: Buffer.from(await request.arrayBuffer()) };
}

/** The body cut into pieces of `size` bytes: a boundary may fall across any two. */
const pieces = (body: Buffer, size: number) => Readable.from((function* () { for (let i = 0; i < body.length; i += size) yield body.subarray(i, i + size); })(), { objectMode: false });

async function refusal(p: Promise<unknown>): Promise<AppError> {
  try {
    await p;
  } catch (err) {
    return err as AppError;
  }
  throw new Error('expected a refusal');
}

describe('the streaming multipart reader', () => {
  it('reads fields and a file whatever the chunking, one byte at a time included', async () => {
    const bytes = randomBytes(3000);
    // Bytes that look like a delimiter's start inside the file: only the whole delimiter ends it.
    bytes.set(Buffer.from('\r\n--'), 100);
    const { contentType, body } = await encoded({ csrf: 'tok', title: 'Bänk' }, { name: 'bank.zip', bytes });
    for (const size of [1, 7, 70, 1024, body.length]) {
      const form = await readMultipart(pieces(body, size), contentType, LIMITS);
      expect(form.fields).toEqual({ csrf: 'tok', title: 'Bänk' });
      expect(form.files).toHaveLength(1);
      expect(form.files[0]!.field).toBe('file');
      expect(form.files[0]!.name).toBe('bank.zip');
      expect(form.files[0]!.bytes.equals(bytes)).toBe(true);
    }
  });

  it('finds the boundary in a quoted or plain Content-Type, and none in another type', () => {
    expect(boundaryOf('multipart/form-data; boundary=abc')).toBe('abc');
    expect(boundaryOf('multipart/form-data; charset=utf-8; boundary="a b"')).toBe('a b');
    expect(boundaryOf('application/x-www-form-urlencoded')).toBeNull();
  });

  it('reads a 49 MB file in 64 KB chunks with no long pause of the event loop', async () => {
    const { contentType, body } = await encoded({ csrf: 'tok' }, { name: 'big.zip', bytes: randomBytes(49 * 1024 * 1024) });
    let longest = 0;
    let last = performance.now();
    const stream = Readable.from((async function* () {
      for (let i = 0; i < body.length; i += 64 * 1024) {
        await new Promise((r) => setImmediate(r));
        longest = Math.max(longest, performance.now() - last);
        yield body.subarray(i, i + 64 * 1024);
        last = performance.now();
      }
    })());
    const form = await readMultipart(stream, contentType, LIMITS);
    expect(form.files[0]!.bytes.length).toBe(49 * 1024 * 1024);
    expect(longest).toBeLessThan(100);
  });

  it('refuses a body over the limit (413), too many parts, a long field, and a form cut short (400)', async () => {
    const { contentType, body } = await encoded({ csrf: 'tok' }, { name: 'a', bytes: randomBytes(5000) });
    expect((await refusal(readMultipart(pieces(body, 1000), contentType, { ...LIMITS, maxBytes: 4000 }))).code).toBe('payload_too_large');
    const many = await encoded(Object.fromEntries(Array.from({ length: 200 }, (_, i) => [`f${i}`, 'x'])));
    expect((await refusal(readMultipart(pieces(many.body, 4096), many.contentType, LIMITS))).details?.[0]?.message).toBe('the form has more than 8 parts');
    const long = await encoded({ title: 'x'.repeat(2000) });
    expect((await refusal(readMultipart(pieces(long.body, 4096), long.contentType, LIMITS))).code).toBe('invalid_request');
    const cut = await refusal(readMultipart(pieces(body.subarray(0, body.length - 10), 1000), contentType, LIMITS));
    expect(cut.details?.[0]?.message).toBe('the form ends before its closing boundary');
    expect((await refusal(readMultipart(pieces(body, 1000), 'multipart/form-data', LIMITS))).code).toBe('invalid_request');
  });
});
