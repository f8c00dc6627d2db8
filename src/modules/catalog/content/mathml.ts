import { XMLValidator } from 'fast-xml-parser';
import sanitizeHtml from 'sanitize-html';
import { clampSizes, MATH_LIMITS } from './math-limits.js';

/**
 * MathML written as such in a Markdown text (`<math>…</math>`, the one HTML
 * element Markdown content may hold): what an imported item brings when its
 * formula has no TeX source to read back. It is held to an allow-list of
 * presentation MathML (MathML Core and the elements Temml writes) with
 * sanitize-html, when it is imported and again each time it is rendered:
 * no script, no style, no link (`href` is a MathML 3 attribute on every
 * element), no event handler, no `annotation-xml` (which may carry HTML),
 * no `mglyph` (an image source), no `maction` (interactive). Bounded by
 * MATH_LIMITS: its length and its nesting depth.
 */
export const MATHML_TAGS = [
  'math', 'semantics', 'annotation', 'mrow', 'mi', 'mn', 'mo', 'ms', 'mtext', 'mspace', 'msup', 'msub', 'msubsup', 'mfrac', 'msqrt',
  'mroot', 'mstyle', 'merror', 'mpadded', 'mphantom', 'munder', 'mover', 'munderover', 'mmultiscripts', 'mprescripts', 'none', 'mtable',
  'mtr', 'mtd', 'menclose',
];
export const MATHML_ATTRIBUTES = [
  'display', 'displaystyle', 'scriptlevel', 'mathvariant', 'mathsize', 'mathcolor', 'mathbackground', 'dir', 'fence', 'separator', 'stretchy',
  'symmetric', 'largeop', 'movablelimits', 'accent', 'accentunder', 'lspace', 'rspace', 'minsize', 'maxsize', 'form', 'linethickness',
  'columnalign', 'rowalign', 'columnspan', 'rowspan', 'columnlines', 'rowlines', 'columnspacing', 'rowspacing', 'frame', 'framespacing',
  'width', 'height', 'depth', 'voffset', 'notation', 'align', 'bevelled', 'numalign', 'denomalign', 'lquote', 'rquote', 'encoding', 'class',
];
/** Elements removed with everything inside them (the rest of a refused element's content, its text, is kept). */
const REMOVED_WHOLE = new Set(['script', 'style', 'annotation-xml', 'foreignObject', 'foreignobject', 'iframe', 'object', 'embed', 'svg', 'textarea', 'noscript', 'template']);
/** Values that could load or run something, in any attribute (none on the allow-list needs them). */
const UNSAFE_VALUE = /url\s*\(|expression\s*\(|image-set|javascript|vbscript|data\s*:|[<>\\]/i;
const TEX = 'application/x-tex';

export type MathmlResult = { ok: true; mathml: string; removed: string[] } | { ok: false; reason: string; bound: boolean };

/** Whether a text starts a MathML element here (`<math>` or `<math …>`). */
export const MATHML_OPEN = /^<math[\s>]/;

/**
 * The MathML held to the allow-list, with what was removed (`<script>`,
 * `href`, …: an author is told, an import notes it), or why it cannot be
 * shown at all: too long, nested too deep, not well-formed, not one `math`.
 */
export function sanitizeMathml(source: string): MathmlResult {
  if (source.length > MATH_LIMITS.mathmlChars) {
    return { ok: false, bound: true, reason: `it is ${source.length} characters long; MathML holds at most ${MATH_LIMITS.mathmlChars}` };
  }
  const trimmed = source.trim();
  if (!MATHML_OPEN.test(trimmed) || !trimmed.endsWith('</math>')) return { ok: false, bound: false, reason: 'it is not one <math> element' };
  const depth = nestingDepth(trimmed);
  if (depth > MATH_LIMITS.mathmlDepth) return { ok: false, bound: true, reason: `its elements are nested ${depth} deep; MathML may nest at most ${MATH_LIMITS.mathmlDepth} deep` };
  const valid = XMLValidator.validate(trimmed);
  if (valid !== true) return { ok: false, bound: false, reason: `it is not well-formed (${valid.err.msg})` };
  const removed: string[] = [];
  const remove = (what: string) => {
    if (!removed.includes(what)) removed.push(what);
  };
  let roots = 0;
  let open = 0;
  const mathml = sanitizeHtml(trimmed, {
    allowedTags: MATHML_TAGS,
    allowedAttributes: false as unknown as Record<string, string[]>,
    allowedSchemes: [],
    allowedSchemesAppliedToAttributes: [],
    disallowedTagsMode: 'discard',
    nonTextTags: [...REMOVED_WHOLE],
    parser: { xmlMode: true, lowerCaseTags: false, lowerCaseAttributeNames: false, recognizeSelfClosing: true },
    onOpenTag: (name) => {
      if (name === 'math' && open === 0) roots++;
      open++;
      if (!MATHML_TAGS.includes(name)) remove(`<${name}>`);
    },
    onCloseTag: () => {
      open--;
    },
    exclusiveFilter: (frame) => REMOVED_WHOLE.has(frame.tag) || (frame.tag === 'annotation' && frame.attribs['encoding'] !== TEX),
    transformTags: {
      '*': (tagName, attribs) => {
        const kept: Record<string, string> = {};
        for (const [name, value] of Object.entries(attribs)) {
          if (name === 'xmlns' || name.startsWith('xmlns:')) continue;
          const allowed = MATHML_ATTRIBUTES.includes(name) && (name !== 'encoding' || tagName === 'annotation') && !UNSAFE_VALUE.test(value);
          if (allowed && name === 'class' && !/^[A-Za-z0-9 _-]*$/.test(value)) remove('class');
          else if (allowed) kept[name] = value;
          else remove(name === 'style' || name === 'href' || name.startsWith('on') || MATHML_ATTRIBUTES.includes(name) ? `${name}="…"` : name);
        }
        return { tagName, attribs: kept };
      },
    },
  });
  if (roots !== 1) return { ok: false, bound: false, reason: 'it is not one <math> element' };
  return { ok: true, mathml: clampSizes(mathml.trim()), removed };
}

/** The deepest nesting of elements, counted on the tags (linear, before any parser sees the text). */
function nestingDepth(xml: string): number {
  let depth = 0;
  let max = 0;
  for (const m of xml.matchAll(/<(\/?)[A-Za-z][^<>]*?(\/?)>/g)) {
    if (m[1]) depth--;
    else if (!m[2]) max = Math.max(max, ++depth);
  }
  return max;
}

/** The plain text of MathML: its TeX annotation when it has one, else the text of its elements. */
export function mathmlText(mathml: string): string {
  const tex = /<annotation\b[^>]*encoding="application\/x-tex"[^>]*>([^<]*)<\/annotation>/.exec(mathml);
  const text = tex ? tex[1]! : mathml.replace(/<annotation\b[\s\S]*?<\/annotation>/g, '').replace(/<[^>]*>/g, ' ');
  return decodeXml(text).replace(/\s+/g, ' ').trim();
}

const NAMED: Record<string, string> = { lt: '<', gt: '>', quot: '"', apos: "'", amp: '&' };
const decodeXml = (s: string) =>
  s.replace(/&(lt|gt|quot|apos|amp|#x[0-9a-fA-F]{1,6}|#\d{1,7});/g, (_m, e: string) => {
    if (NAMED[e]) return NAMED[e]!;
    const code = e[1] === 'x' ? parseInt(e.slice(2), 16) : Number(e.slice(1));
    return code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : '\ufffd';
  });
