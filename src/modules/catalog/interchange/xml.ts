import { COMMON_HTML, CURRENCY, ENTITY_ACTION, EntityDecoder } from '@nodable/entities';
import { XMLParser, XMLValidator, type X2jOptions } from 'fast-xml-parser';
import { AppError } from '../../../platform/errors.js';
import { unstorableCharacter, XML_LIMITS, xmlOverLimit } from './xml-limits.js';

/**
 * XML reading for packages: fast-xml-parser, which never resolves external
 * entities or fetches anything. A document type declaration is refused
 * outright (no DTD processing at all, so no XXE and no entity expansion);
 * only the predefined entities, character references and HTML's named
 * characters (&nbsp; in item bodies) are decoded.
 *
 * QTI 2.x names (`choiceInteraction`, `maxChoices`) are read as their QTI 3
 * forms (`qti-choice-interaction`, `max-choices`), so the mapping is written once.
 */
export interface XElement {
  name: string;
  attrs: Record<string, string>;
  children: XNode[];
}
export type XNode = XElement | string;

const refused = (file: string, why: string) => new AppError('invalid_request', `${file} ${why}.`, [{ field: file, message: why }]);
const malformed = (file: string, why: string) =>
  new AppError('invalid_request', `${file} is not well-formed XML (${why}).`, [{ field: file, message: `is not well-formed XML: ${why}` }]);

/** The parser's options (exported for the test that holds the shared entity decoder to fast-xml-parser's own). */
export const XML_PARSER_OPTIONS = {
  preserveOrder: true,
  ignoreAttributes: false,
  attributeNamePrefix: '',
  parseTagValue: false,
  parseAttributeValue: false,
  trimValues: false,
  processEntities: true,
  htmlEntities: true,
  ignoreDeclaration: true,
  ignorePiTags: true,
  commentPropName: false,
  removeNSPrefix: true,
} satisfies X2jOptions;

/**
 * One entity decoder for every parse on this thread. Given none, fast-xml-parser
 * builds one per document, copying its table of HTML entities twice: about
 * 10 KB a file, which an import of 500 items made 500 times and the pool's
 * collector then carried. This one is built as the parser builds its own for
 * these options (`htmlEntities`: the common HTML and currency names and
 * numeric references; the limits of `processEntities: true`). The parser
 * resets it at the start of every document; the reset here also puts the XML
 * version back to 1.0, which a document's declaration may change and which
 * the parser's reset leaves. Entities a document declares are blocked, where
 * the parser checks them: a DTD is refused before parsing anyway.
 */
const entities = new EntityDecoder({
  namedEntities: { ...COMMON_HTML, ...CURRENCY },
  numericAllowed: true,
  limit: { maxTotalExpansions: Infinity, maxExpandedLength: 100_000, applyLimitsTo: 'all' },
  onInputEntity: () => ENTITY_ACTION.BLOCK,
});
const entityDecoder: NonNullable<X2jOptions['entityDecoder']> = {
  setExternalEntities: (map) => entities.setExternalEntities(map),
  addInputEntities: (map) => entities.addInputEntities(map),
  reset: () => {
    entities.reset();
    entities.setXmlVersion(1.0);
  },
  decode: (text) => entities.decode(text),
  setXmlVersion: (version) => entities.setXmlVersion(version),
};

const parser = new XMLParser({ ...XML_PARSER_OPTIONS, entityDecoder });

/**
 * Parses one file of a package; 400 naming the file when it is over a limit
 * (xml-limits.ts, checked before parsing), not text in its encoding, holds a
 * character no test can store, is not well-formed or declares a DTD.
 */
export function parseXml(bytes: Uint8Array | string, file: string): XElement {
  const text = typeof bytes === 'string' ? bytes : xmlFileText(bytes, file);
  const unstorable = unstorableCharacter(text);
  if (unstorable) throw refused(file, unstorable);
  const over = xmlOverLimit(text);
  if (over) throw refused(file, over);
  if (/<!DOCTYPE/i.test(text) || /<!ENTITY/i.test(text)) {
    throw new AppError('invalid_request', `${file} declares a DTD (<!DOCTYPE or <!ENTITY); document type declarations are refused.`, [
      { field: file, message: 'declares a DTD, which is refused' },
    ]);
  }
  const valid = XMLValidator.validate(text);
  if (valid !== true) throw malformed(file, `line ${valid.err.line}: ${valid.err.msg}`);
  let raw: unknown[];
  try {
    raw = parser.parse(text) as unknown[];
  } catch (err) {
    throw malformed(file, (err as Error).message);
  }
  const roots = convert(raw).filter((n): n is XElement => typeof n !== 'string');
  if (roots.length !== 1) throw malformed(file, 'no single root element');
  return roots[0]!;
}

/** A file's text as parseXml reads it; 400 naming the file when it is over the size limit or not text in its encoding. */
export function xmlFileText(bytes: Uint8Array, file: string): string {
  if (bytes.length > XML_LIMITS.maxFileBytes) {
    throw refused(file, `is larger than the ${XML_LIMITS.maxFileBytes / 1024 / 1024} MB an XML file may be`);
  }
  return decode(bytes, file);
}

/**
 * The text of an XML file: UTF-8 unless a byte-order mark or the XML
 * declaration says otherwise (ISO-8859-1, Windows-1252, UTF-16). Bytes that
 * are not text in that encoding refuse the file (as a CSV is refused): read
 * leniently they would become U+FFFD in a question, unnoticed.
 */
function decode(bytes: Uint8Array, file: string): string {
  let label = 'utf-8';
  if (bytes[0] === 0xff && bytes[1] === 0xfe) label = 'utf-16le';
  else if (bytes[0] === 0xfe && bytes[1] === 0xff) label = 'utf-16be';
  else label = /^\s*<\?xml[^>]*\bencoding\s*=\s*["']([A-Za-z0-9._-]+)["']/.exec(new TextDecoder('latin1').decode(bytes.subarray(0, 200)))?.[1] ?? label;
  let decoder: TextDecoder;
  try {
    decoder = new TextDecoder(label, { fatal: true });
  } catch {
    throw new AppError('invalid_request', `${file} declares the encoding "${label}", which is not supported (use UTF-8).`, [{ field: file, message: `declares an unsupported encoding "${label}"` }]);
  }
  try {
    return decoder.decode(bytes);
  } catch {
    const name = decoder.encoding === 'utf-8' ? 'UTF-8' : decoder.encoding;
    throw refused(file, `is not valid ${name} text (save it as UTF-8, or declare its encoding in <?xml … encoding="…"?>)`);
  }
}

/** QTI 2 camelCase element names, and the lower-case ones that are QTI rather than XHTML. */
const QTI2_PLAIN = new Set([
  'prompt', 'value', 'mapping', 'gap', 'selection', 'ordering', 'match', 'equal', 'sum', 'variable', 'correct', 'index', 'member',
  'and', 'or', 'not', 'gt', 'lt', 'gte', 'lte', 'product', 'subtract', 'divide', 'null', 'manifest', 'stylesheet', 'multiple', 'ordered',
  'contains', 'inside', 'delete', 'power', 'round', 'truncate', 'min', 'max', 'random', 'default', 'hottext',
]);
const XHTML_OR_MATH = /^(math|m[a-z]+|semantics|annotation)$/;

function qtiName(name: string): string {
  if (name.startsWith('qti-')) return name;
  if (/[A-Z]/.test(name) && !XHTML_OR_MATH.test(name)) return `qti-${kebab(name)}`;
  if (QTI2_PLAIN.has(name)) return name === 'manifest' ? name : `qti-${name}`;
  return name;
}
const kebab = (s: string) => s.replace(/([a-z0-9])([A-Z])/g, '$1-$2').toLowerCase();

function convert(list: unknown[]): XNode[] {
  const out: XNode[] = [];
  for (const item of list) {
    const obj = item as Record<string, unknown>;
    if ('#text' in obj) {
      out.push(String(obj['#text']));
      continue;
    }
    const name = Object.keys(obj).find((k) => k !== ':@');
    if (!name) continue;
    const rawAttrs = (obj[':@'] ?? {}) as Record<string, unknown>;
    const attrs: Record<string, string> = {};
    for (const [k, v] of Object.entries(rawAttrs)) attrs[/[A-Z]/.test(k) && !k.startsWith('data-') ? kebab(k) : k] = String(v);
    out.push({ name: qtiName(name), attrs, children: convert(obj[name] as unknown[]) });
  }
  return out;
}

export const elements = (el: XElement, name?: string): XElement[] =>
  el.children.filter((c): c is XElement => typeof c !== 'string' && (name === undefined || c.name === name));
export const first = (el: XElement, name: string): XElement | undefined => elements(el, name)[0];

/** Every descendant element (depth first, document order). */
export function descendants(el: XElement): XElement[] {
  const out: XElement[] = [];
  const walk = (e: XElement) => {
    for (const c of e.children) {
      if (typeof c === 'string') continue;
      out.push(c);
      walk(c);
    }
  };
  walk(el);
  return out;
}

const BLOCKS = new Set(['p', 'div', 'li', 'ul', 'ol', 'h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'blockquote', 'pre', 'table', 'tr', 'qti-prompt']);

/** Feedback shown only after answering: never part of a question's text (an option's inline feedback is not the option). */
const FEEDBACK_ELEMENTS = new Set(['qti-feedback-inline', 'qti-feedback-block', 'qti-modal-feedback']);

/**
 * The plain text of mixed content: whitespace collapsed, block elements on
 * their own lines, feedback left out. `skip` leaves out elements
 * (interactions); `inline` replaces one with text (a blank's placeholder).
 */
export function textOf(el: XElement, opts: { skip?: (e: XElement) => boolean; inline?: (e: XElement) => string | undefined } = {}): string {
  let out = '';
  const walk = (e: XElement) => {
    for (const c of e.children) {
      if (typeof c === 'string') {
        out += c.replace(/\s+/g, ' ');
        continue;
      }
      const inl = opts.inline?.(c);
      if (inl !== undefined) {
        out += inl;
        continue;
      }
      if (opts.skip?.(c) || FEEDBACK_ELEMENTS.has(c.name)) continue;
      if (c.name === 'br') {
        out += '\n';
        continue;
      }
      const block = BLOCKS.has(c.name);
      if (block) out += '\n\n';
      walk(c);
      if (block) out += '\n\n';
    }
  };
  walk(el);
  return out
    .split('\n')
    .map((l) => l.trim().replace(/ {2,}/g, ' '))
    .join('\n')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
}

/** Escapes text for XML content and attribute values. */
export function esc(s: string | number): string {
  return String(s).replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&apos;');
}
