import { XMLParser } from 'fast-xml-parser';
import { describe, expect, it } from 'vitest';
import { parseXml, XML_PARSER_OPTIONS, type XElement } from './xml.js';

/**
 * parseXml shares one entity decoder across documents (xml.ts). Held here to
 * what fast-xml-parser does with a decoder of its own for every document, the
 * same options otherwise: text and attribute values, one document after
 * another, including one whose declaration says XML 1.1.
 */
const reference = (xml: string) => {
  const raw = new XMLParser(XML_PARSER_OPTIONS).parse(xml) as Array<Record<string, unknown>>;
  const p = raw.find((n) => 'p' in n)!;
  const children = p['p'] as Array<{ '#text'?: unknown }>;
  return { text: children.map((c) => String(c['#text'] ?? '')).join(''), attr: String((p[':@'] as Record<string, unknown> | undefined)?.['a'] ?? '') };
};
const ours = (xml: string) => {
  const p = parseXml(xml, 'p.xml');
  return { text: p.children.filter((c): c is string => typeof c === 'string').join(''), attr: (p as XElement).attrs['a'] ?? '' };
};

const SAMPLES = [
  'plain words',
  'a &amp; b &lt;c&gt; &quot;d&quot; &apos;e&apos;',
  'no&nbsp;break, &copy; 2026, &eacute;t&eacute;, &hellip; &mdash;',
  '&euro;5 &pound;4 &yen;3 &cent;',
  '&#65;&#x42;&#x1F600; &#xE9;',
  '&amp;lt; stays one level: &amp;amp;',
  '&unknownentity; and &#x1; and &#0;',
];

describe('the shared entity decoder', () => {
  it('decodes text and attribute values as a decoder of its own per document does', () => {
    for (const sample of SAMPLES) {
      const xml = `<p a="${sample}">${sample}</p>`;
      expect(ours(xml), sample).toEqual(reference(xml));
    }
  });

  it('a document that declares XML 1.1 leaves nothing to the next one', () => {
    const ref11 = reference(`<?xml version="1.1"?><p a="&#x1;x">&#x1;x</p>`);
    expect(ours(`<?xml version="1.1"?><p a="&#x1;x">&#x1;x</p>`)).toEqual(ref11);
    for (const sample of SAMPLES) {
      const xml = `<p a="${sample}">${sample}</p>`;
      expect(ours(xml), sample).toEqual(reference(xml));
    }
  });

  it('a document with many references leaves its counts behind: the next is decoded in full', () => {
    const many = `<p>${'&copy;&#233;'.repeat(20_000)}</p>`;
    expect(ours(many)).toEqual(reference(many));
    const next = `<p a="&copy;">${'&amp;'.repeat(5)}</p>`;
    expect(ours(next)).toEqual(reference(next));
  });
});
