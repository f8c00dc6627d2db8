/**
 * Bounds on one XML file of a package, checked before the parser sees it
 * (docs/import-export.md "Limits"). fast-xml-parser reads a whole document
 * in one synchronous call and offers no incremental bound, and its cost
 * grows faster than the input on long text nodes and many attributes (a 60
 * MB text node took 79 s, 200,000 attributes 84 s), so a linear pre-scan
 * of the text counts what the parser would build and refuses first. The
 * values are far above any real item bank: the largest file of a
 * 500-question package (its manifest) is 88 KB and 1,508 elements, with
 * at most 7 attributes on an element.
 */
export interface XmlLimits {
  maxFileBytes: number;
  elements: number;
  attributesPerElement: number;
  attributes: number;
  textChars: number;
  depth: number;
}

export const XML_LIMITS: Readonly<XmlLimits> = {
  /** Bytes of one file, before decoding. */
  maxFileBytes: 4 * 1024 * 1024,
  elements: 50_000,
  attributesPerElement: 256,
  attributes: 100_000,
  /** Characters of one text node, CDATA section or attribute value. */
  textChars: 1_000_000,
  depth: 100,
};

const n = (x: number) => x.toLocaleString('en-US');

/** Why the file is over a limit (completing "<file> …"), or null. Malformed markup is left to the parser to name. */
export function xmlOverLimit(text: string, limits: Readonly<XmlLimits> = XML_LIMITS): string | null {
  const longText = `holds a text of more than ${n(limits.textChars)} characters`;
  const len = text.length;
  let i = 0;
  let depth = 0;
  let elements = 0;
  let attributes = 0;
  while (i < len) {
    const lt = text.indexOf('<', i);
    if ((lt < 0 ? len : lt) - i > limits.textChars) return longText;
    if (lt < 0) return null;
    const next = text.charCodeAt(lt + 1);
    if (next === 0x21 /* ! */ || next === 0x3f /* ? */) {
      // A comment, CDATA section, declaration or processing instruction: skipped whole (a CDATA section is text).
      const [open, close] = text.startsWith('<!--', lt) ? ['<!--', '-->'] : text.startsWith('<![CDATA[', lt) ? ['<![CDATA[', ']]>'] : next === 0x3f ? ['<?', '?>'] : ['<!', '>'];
      const end = text.indexOf(close, lt + open.length);
      if (end < 0) return null;
      if (end - lt - open.length > limits.textChars) return longText;
      i = end + close.length;
      continue;
    }
    if (next === 0x2f /* / */) {
      depth--;
      const end = text.indexOf('>', lt);
      if (end < 0) return null;
      i = end + 1;
      continue;
    }
    if (++elements > limits.elements) return `holds more than ${n(limits.elements)} elements`;
    if (++depth > limits.depth) return `nests elements more than ${limits.depth} deep`;
    // The start tag: each `=` outside quotes is an attribute; a quoted value is skipped in one step.
    let here = 0;
    let j = lt + 1;
    for (; j < len; j++) {
      const c = text.charCodeAt(j);
      if (c === 0x22 || c === 0x27) {
        const end = text.indexOf(c === 0x22 ? '"' : "'", j + 1);
        if (end < 0) return null;
        if (end - j - 1 > limits.textChars) return longText;
        j = end;
      } else if (c === 0x3d /* = */) {
        if (++here > limits.attributesPerElement) return `has more than ${n(limits.attributesPerElement)} attributes on one element`;
      } else if (c === 0x3e /* > */) break;
    }
    attributes += here;
    if (attributes > limits.attributes) return `holds more than ${n(limits.attributes)} attributes`;
    if (text.charCodeAt(j - 1) === 0x2f /* / */) depth--;
    i = j + 1;
  }
  return null;
}

/** Characters no test can store (PostgreSQL's text and jsonb refuse them): NUL, and a surrogate without its pair. */
const UNSTORABLE = /\u0000|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** Why `text` cannot be stored ("holds …"), or null. */
export function unstorableCharacter(text: string): string | null {
  const m = UNSTORABLE.exec(text);
  if (!m) return null;
  return m[0] === '\u0000'
    ? 'holds a NUL character (U+0000), which a test cannot store'
    : `holds an unpaired surrogate (U+${m[0].charCodeAt(0).toString(16).toUpperCase()}), which a test cannot store`;
}
