import bidiModule from 'bidi-js';
import type { Font } from 'fontkit';
import { faceOfChar, type Face, type FaceKey } from './report-fonts.js';

/**
 * Text for the report's PDF in any language: pdfkit draws a string left to
 * right in one font, shaping it with fontkit (Arabic joining, Devanagari
 * conjuncts) but neither reordering bidirectional text nor falling back to
 * another font. So a paragraph here is
 *
 * 1. given its embedding levels by the Unicode Bidirectional Algorithm
 *    (bidi-js, MIT), the report's direction as the paragraph's, with the
 *    isolates report-content.ts put around values;
 * 2. cut into runs by script, each drawn with the first face that has its
 *    glyphs (fontkit's hasGlyphForCodePoint; spaces, digits and punctuation
 *    stay with their neighbours' face);
 * 3. wrapped into lines in logical order (at spaces, and between CJK
 *    characters), measured with the shaped widths;
 * 4. reordered line by line into visual order, and each piece handed to
 *    pdfkit in the order fontkit expects: fontkit reverses any run whose first
 *    letter is of a right-to-left script, so such a run is passed in logical
 *    order (mirrored brackets swapped in) and every other right-to-left piece
 *    already reversed;
 * 5. drawn on a shared baseline, aligned to the start or the end of its box
 *    as the report's direction has it.
 *
 * The standard writer keeps pdfkit's own Helvetica text for a report the
 * standard fonts can write (report-pdf.ts), as the PDF always was.
 */
export interface TextStyle {
  size: number;
  bold?: boolean;
}

export interface TextBox {
  x: number;
  /** doc.y when absent. */
  y?: number;
  width: number;
  /** Start (left in a left-to-right report) unless `end`. */
  align?: 'start' | 'end';
}

export interface PdfWriter {
  readonly dir: 'ltr' | 'rtl';
  /** Draws `text` wrapped in the box; doc.y is below it after, and the style's main font is selected (pdfkit's moveDown measures with it). */
  text(text: string, box: TextBox, style: TextStyle): void;
}

/** Bidi controls: the isolates and marks that steer the algorithm and are never drawn. */
const CONTROL = /[\u061C\u200E\u200F\u202A-\u202E\u2066-\u2069]/u;
export const stripControls = (s: string) => s.replace(new RegExp(CONTROL.source, 'gu'), '');

/** pdfkit's Helvetica (WinAnsi): what the report's PDF was before it spoke other languages. */
export function standardWriter(doc: PDFKit.PDFDocument): PdfWriter {
  const font = (style: TextStyle) => doc.font(style.bold ? 'Helvetica-Bold' : 'Helvetica').fontSize(style.size);
  return {
    dir: 'ltr',
    text: (text, box, style) => void font(style).text(stripControls(text), box.x, box.y, { width: box.width, align: box.align === 'end' ? 'right' : 'left' }),
  };
}

/**
 * bidi-js is CommonJS whose types declare an ES default export: Node's default import is the factory itself, a
 * bundler's may be the module with the factory as `default`.
 */
const bidiFactory = (typeof bidiModule === 'function' ? bidiModule : bidiModule.default) as typeof bidiModule.default;
/**
 * pdfkit lays a string out word by word unless it is given OpenType features (then fontkit shapes it whole): a
 * right-to-left run must be whole, or fontkit turns each word round but leaves the words in logical order. No feature
 * is added: fontkit applies a script's default features either way.
 */
const WHOLE_RUN = { features: [] as PDFKit.Mixins.OpenTypeFeatures[] };

let bidi: ReturnType<typeof bidiFactory> | null = null;

/** Letters of scripts fontkit lays out right to left (its own list, for the scripts our faces carry and their neighbours). */
const FONTKIT_RTL = /[\p{Script=Arabic}\p{Script=Hebrew}\p{Script=Syriac}\p{Script=Thaana}\p{Script=Nko}\p{Script=Samaritan}\p{Script=Mandaic}]/u;
const SCRIPTED = /[^\p{Script=Common}\p{Script=Inherited}]/u;
/** Whether fontkit will reverse this run: its first character of a real script is of a right-to-left one. */
function fontkitReverses(run: string): boolean {
  for (const ch of run) if (SCRIPTED.test(ch)) return FONTKIT_RTL.test(ch);
  return false;
}

const CJK = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}\u3000-\u303F\uFF00-\uFFEF]/u;
/** Not at the start of a line (closing punctuation, small kana), nor at its end (opening brackets): kinsoku, briefly. */
const NO_LINE_START = /[、。，．・：；？！）」』】〕〉》ー々ぁぃぅぇぉっゃゅょァィゥェォッャュョ,.:;?!)\]}%]/u;
const NO_LINE_END = /[（「『【〔〈《([{]/u;
const SPACE = /\s/u;
/** Scripts whose shaping moves glyphs away from their characters' order (Indic vowel signs, reph). */
const REORDERED_SCRIPT = /[\p{Script=Devanagari}\p{Script=Bengali}\p{Script=Gurmukhi}\p{Script=Gujarati}\p{Script=Oriya}\p{Script=Tamil}\p{Script=Telugu}\p{Script=Kannada}\p{Script=Malayalam}\p{Script=Sinhala}]/u;
const MARK = /\p{M}/u;

interface Glyphs {
  /** The paragraph by code point. */
  chars: string[];
  /** The code point's first UTF-16 index (bidi-js counts code units). */
  unit: number[];
  face: Array<Face | null>;
  levels: Uint8Array;
  /** bidi-js's whole answer (its paragraphs carry the base level the reordering of a line needs). */
  embedding: ReturnType<ReturnType<typeof bidiFactory>['getEmbeddingLevels']>;
  source: string;
}

export function unicodeWriter(doc: PDFKit.PDFDocument, faces: ReadonlyMap<FaceKey, Face>, opts: { dir: 'ltr' | 'rtl'; primary: FaceKey; cjk: FaceKey }): PdfWriter {
  const primary = faces.get(opts.primary) ?? faces.get('latin')!;
  const order = [primary, ...[...faces.values()].filter((f) => f !== primary)];
  const registered = new Set<string>();
  const fontName = (face: Face, bold: boolean) => {
    const name = `${face.key}${bold ? '-bold' : ''}`;
    if (!registered.has(name)) {
      // pdfkit takes a fontkit font in place of a file (PDFFontFactory.open), so a file is parsed once per process.
      doc.registerFont(name, (bold ? face.bold : face.regular) as unknown as Buffer);
      registered.add(name);
    }
    return name;
  };
  const select = (face: Face, style: TextStyle) => doc.font(fontName(face, !!style.bold)).fontSize(style.size);
  const fontOf = (face: Face, style: TextStyle): Font => (style.bold ? face.bold : face.regular);

  /** Which face draws each character: its script's face if that has the glyph, else the neighbour's, else the first that has it. */
  function assignFaces(chars: string[], style: TextStyle): Array<Face | null> {
    const has = (face: Face, ch: string) => fontOf(face, style).hasGlyphForCodePoint(ch.codePointAt(0)!);
    const out: Array<Face | null> = [];
    let previous: Face | null = null;
    for (const ch of chars) {
      if (CONTROL.test(ch)) {
        // An isolate's edge: what follows does not take the isolated value's face.
        out.push(null);
        previous = null;
        continue;
      }
      const key = faceOfChar(ch, opts.cjk);
      const wanted = key === null ? null : faces.get(key);
      let face: Face | undefined;
      if (wanted && has(wanted, ch)) face = wanted;
      else if (previous && (key === null || MARK.test(ch)) && has(previous, ch)) face = previous;
      else face = order.find((f) => has(f, ch)) ?? primary; // none has it: the missing-glyph box, in the report's own face
      out.push(face);
      previous = face;
    }
    return out;
  }

  /** The width of chars[a, b) as drawn: each run of one face measured (and shaped) whole. */
  function width(g: Glyphs, a: number, b: number, style: TextStyle): number {
    let w = 0;
    let i = a;
    while (i < b) {
      const face = g.face[i];
      let j = i + 1;
      while (j < b && g.face[j] === face) j++;
      if (face) w += select(face, style).widthOfString(g.chars.slice(i, j).join(''), WHOLE_RUN);
      i = j;
    }
    return w;
  }

  function canBreakBefore(chars: string[], i: number): boolean {
    const prev = chars[i - 1]!;
    const ch = chars[i]!;
    if (SPACE.test(prev)) return !SPACE.test(ch);
    if ((CJK.test(prev) || CJK.test(ch)) && !SPACE.test(ch)) return !NO_LINE_START.test(ch) && !NO_LINE_END.test(prev) && !MARK.test(ch);
    return false;
  }

  /**
   * Lines as [start, end) in code points, trailing spaces left out. Each stretch between two break
   * opportunities is measured once and a line's width is their sum (shaping is slow; nothing joins across a
   * break).
   */
  function wrap(g: Glyphs, maxWidth: number, style: TextStyle): Array<[number, number]> {
    const n = g.chars.length;
    const breaks = [0];
    for (let i = 1; i < n; i++) if (canBreakBefore(g.chars, i)) breaks.push(i);
    breaks.push(n);
    const trimEnd = (a: number, b: number) => {
      while (b > a && SPACE.test(g.chars[b - 1]!)) b--;
      return b;
    };
    const lines: Array<[number, number]> = [];
    let start = 0;
    let end = 0;
    let used = 0; // the width of [start, end), its trailing spaces included
    for (let k = 1; k < breaks.length; k++) {
      const a = breaks[k - 1]!;
      const b = breaks[k]!;
      const body = trimEnd(a, b);
      const bodyWidth = width(g, a, body, style);
      if (end > start && used + bodyWidth > maxWidth) {
        lines.push([start, trimEnd(start, end)]);
        start = a;
        used = 0;
      }
      end = b;
      used += bodyWidth + width(g, body, b, style);
      // A word wider than the box alone is cut where it fills the box (never before a combining mark).
      while (start >= a && width(g, start, trimEnd(start, end), style) > maxWidth) {
        let cut = start + 1;
        while (cut < body && (MARK.test(g.chars[cut]!) || width(g, start, cut + 1, style) <= maxWidth)) cut++;
        if (cut >= body) break;
        lines.push([start, cut]);
        start = cut;
        used = width(g, start, end, style);
      }
    }
    if (end > start || lines.length === 0) lines.push([start, trimEnd(start, end)]);
    return lines;
  }

  /** One line's pieces in visual order, each as the string pdfkit is to be given. */
  function pieces(g: Glyphs, a: number, b: number): Array<{ face: Face; text: string }> {
    if (b <= a) return [];
    bidi ??= bidiFactory();
    const codePointAt = new Map<number, number>();
    for (let i = a; i < b; i++) codePointAt.set(g.unit[i]!, i);
    const endUnit = (b < g.unit.length ? g.unit[b]! : g.source.length) - 1;
    const visual = bidi
      .getReorderedIndices(g.source, g.embedding, g.unit[a]!, endUnit)
      .map((u) => codePointAt.get(u))
      .filter((i): i is number => i !== undefined && g.face[i] !== null);
    const out: Array<{ face: Face; text: string }> = [];
    let k = 0;
    while (k < visual.length) {
      const first = visual[k]!;
      const level = g.levels[g.unit[first]!]!;
      const rtl = (level & 1) === 1;
      let m = k + 1;
      while (m < visual.length) {
        const i = visual[m]!;
        if (g.face[i] !== g.face[first] || g.levels[g.unit[i]!] !== level || i !== visual[m - 1]! + (rtl ? -1 : 1)) break;
        m++;
      }
      const logical = visual.slice(k, m).sort((x, y) => x - y).map((i) => g.chars[i]!);
      const chars = rtl ? logical.map((ch) => bidi!.getMirroredCharacter(ch) ?? ch) : logical;
      const run = chars.join('');
      // Visual order wanted; fontkit reverses a run whose script is right to left, so give it what it will turn round.
      const reversed = rtl !== fontkitReverses(run);
      out.push({ face: g.face[first]!, text: reversed ? [...chars].reverse().join('') : run });
      k = m;
    }
    return out;
  }

  return {
    dir: opts.dir,
    text(text, box, style) {
      const chars = [...text];
      const unit: number[] = [];
      let u = 0;
      for (const ch of chars) {
        unit.push(u);
        u += ch.length;
      }
      bidi ??= bidiFactory();
      const embedding = bidi.getEmbeddingLevels(text, opts.dir);
      const g: Glyphs = { chars, unit, face: assignFaces(chars, style), levels: embedding.levels, embedding, source: text };
      let y = box.y ?? doc.y;
      for (const [a, b] of wrap(g, box.width, style)) {
        const line = pieces(g, a, b);
        const used = line.length ? line.map((p) => fontOf(p.face, style)) : [fontOf(primary, style)];
        const ascent = Math.max(...used.map((f) => (f.ascent / f.unitsPerEm) * style.size));
        const descent = Math.max(...used.map((f) => (-f.descent / f.unitsPerEm) * style.size));
        const gap = (fontOf(primary, style).lineGap / fontOf(primary, style).unitsPerEm) * style.size;
        const widths = line.map((p) => select(p.face, style).widthOfString(p.text, WHOLE_RUN));
        const total = widths.reduce((s, w) => s + w, 0);
        const atLeft = (box.align === 'end') === (opts.dir === 'rtl');
        let x = atLeft ? box.x : box.x + box.width - total;
        // Glyphs in visual order (or a vowel sign drawn before its consonant) read back wrongly when copied or
        // extracted: such a line carries its text in logical order as the span's ActualText.
        const logical = stripControls(chars.slice(a, b).join(''));
        const actual = line.length > 0 && (REORDERED_SCRIPT.test(logical) || g.levels.slice(g.unit[a]!, b < unit.length ? unit[b]! : text.length).some((l) => (l & 1) === 1));
        if (actual) doc.markContent('Span', { actual: logical });
        line.forEach((p, i) => {
          select(p.face, style).text(p.text, x, y + ascent, { ...WHOLE_RUN, lineBreak: false, baseline: 'alphabetic' });
          x += widths[i]!;
        });
        if (actual) doc.endMarkedContent();
        y += ascent + descent + gap;
      }
      select(primary, style);
      doc.x = box.x;
      doc.y = y;
    },
  };
}
