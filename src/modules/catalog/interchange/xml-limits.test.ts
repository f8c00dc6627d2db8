import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { FIXTURES } from '../../../../test/helpers/qti.js';
import { unstorableCharacter, XML_LIMITS, xmlOverLimit } from './xml-limits.js';

const small = { ...XML_LIMITS, elements: 5, attributesPerElement: 3, attributes: 6, textChars: 10, depth: 3 };

describe('XML limits (the pre-scan before parsing)', () => {
  it('passes every QTI fixture', () => {
    for (const name of fs.readdirSync(FIXTURES).filter((f) => f.endsWith('.xml'))) {
      expect(xmlOverLimit(fs.readFileSync(`${FIXTURES}/${name}`, 'utf8')), name).toBeNull();
    }
  });

  it('counts elements, attributes on one element and in all, nesting, and the longest text, each at its limit and one past it', () => {
    expect(xmlOverLimit('<a><b/><b/><b/><b/></a>', small)).toBeNull();
    expect(xmlOverLimit('<a><b/><b/><b/><b/><b/></a>', small)).toBe('holds more than 5 elements');
    expect(xmlOverLimit('<a x="1" y="2" z="3"/>', small)).toBeNull();
    expect(xmlOverLimit('<a x="1" y="2" z="3" w="4"/>', small)).toBe('has more than 3 attributes on one element');
    expect(xmlOverLimit('<r a="1" b="2"><a x="1" y="2"/><a x="1" y="2" z="3"/></r>', small)).toBe('holds more than 6 attributes');
    expect(xmlOverLimit('<a><b><c/></b></a>', small)).toBeNull();
    expect(xmlOverLimit('<a><b><c><d/></c></b></a>', small)).toBe('nests elements more than 3 deep');
    expect(xmlOverLimit('<a>0123456789</a>', small)).toBeNull();
    expect(xmlOverLimit('<a>0123456789x</a>', small)).toBe('holds a text of more than 10 characters');
  });

  it('reads quoted values, comments, CDATA and processing instructions as what they are', () => {
    // `=`, `>` and `/` inside quotes are not markup.
    expect(xmlOverLimit(`<a x="a=b=c>/" y='=='/>`, small)).toBeNull();
    expect(xmlOverLimit('<a x="01234567890"/>', small)).toBe('holds a text of more than 10 characters');
    expect(xmlOverLimit('<?xml version="1.0"?><!-- <b/><b/><b/><b/><b/><b/> --><a/>', { ...small, textChars: 100 })).toBeNull();
    // A comment is bounded like a text.
    expect(xmlOverLimit('<a><!-- 0123456789x --></a>', small)).toBe('holds a text of more than 10 characters');
    expect(xmlOverLimit('<a><![CDATA[<b/><b/><b/>]]></a>', small)).toBe('holds a text of more than 10 characters');
    expect(xmlOverLimit('<a><![CDATA[short]]></a>', small)).toBeNull();
  });

  it('is linear: a 4 MB file of 50,000 elements is scanned in well under a second', () => {
    const text = `<a>${'<p class="x">some text</p>'.repeat(49_000)}</a>`;
    const t0 = performance.now();
    expect(xmlOverLimit(text)).toBeNull();
    expect(performance.now() - t0).toBeLessThan(500);
  });

  it('names characters a test cannot store: NUL and unpaired surrogates (a pair is fine)', () => {
    expect(unstorableCharacter('ok \u{1F600}')).toBeNull();
    expect(unstorableCharacter('a\u0000b')).toMatch(/U\+0000/);
    expect(unstorableCharacter('a\uD800b')).toMatch(/unpaired surrogate \(U\+D800\)/);
    expect(unstorableCharacter('a\uDC00')).toMatch(/U\+DC00/);
  });
});
