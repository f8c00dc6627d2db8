import fs from 'node:fs';
import path from 'node:path';
import PDFDocument from 'pdfkit';
import { describe, expect, it } from 'vitest';
import { DEFAULT_REPORT_FONT_DIRS } from '../../platform/config.js';
import { loadFace, type Face, type FaceKey } from './report-fonts.js';
import { unicodeWriter } from './report-pdf-text.js';

/**
 * The order and faces in which the report's PDF hands text to pdfkit:
 * pieces left to right as the bidirectional algorithm orders the line, each
 * in the string fontkit will turn into that order (fontkit reverses a run of
 * a right-to-left script itself), brackets mirrored, each with a face that
 * has its glyphs. Needs Debian's fonts-noto-core (skipped, loudly, without).
 */
const log = { warn: () => {} };
const fontsInstalled = DEFAULT_REPORT_FONT_DIRS.some((d) => fs.existsSync(path.join(d, 'NotoSansArabic-Regular.ttf')));
if (!fontsInstalled) console.warn('\n!! TESTS SKIPPED: fonts-noto-core is not installed, so the PDF text layout cannot be checked (apt-get install -y fonts-noto-core).\n');

/** The calls pdfkit gets for one paragraph: each piece's text, font and left edge, left to right. */
function drawn(text: string, dir: 'ltr' | 'rtl', primary: FaceKey) {
  const faces = new Map<FaceKey, Face>();
  for (const key of ['latin', 'arabic', 'hebrew'] as const) faces.set(key, loadFace(key, DEFAULT_REPORT_FONT_DIRS, log)!);
  const doc = new PDFDocument({ size: 'A4' });
  const calls: Array<{ text: string; font: string; x: number }> = [];
  let font = '';
  const originalFont = doc.font.bind(doc);
  doc.font = ((name: string) => ((font = name), originalFont(name))) as typeof doc.font;
  const originalText = doc.text.bind(doc);
  doc.text = ((s: string, x: number, y: number, o: PDFKit.Mixins.TextOptions) => (calls.push({ text: s, font, x }), originalText(s, x, y, o))) as typeof doc.text;
  unicodeWriter(doc, faces, { dir, primary, cjk: 'cjk-jp' }).text(text, { x: 50, y: 50, width: 400 }, { size: 10 });
  doc.end();
  return calls.sort((a, b) => a.x - b.x).map(({ text, font }) => ({ text, font }));
}

describe.skipIf(!fontsInstalled)('the PDF’s text, piece by piece', () => {
  it('puts a Latin title isolated in an Arabic sentence at its end (the left), the Arabic in logical order for fontkit', () => {
    expect(drawn('تقرير النتيجة: \u2068Proctored finals\u2069', 'rtl', 'arabic')).toEqual([
      { text: 'Proctored finals', font: 'latin' },
      { text: 'تقرير النتيجة: ', font: 'arabic' },
    ]);
  });

  it('keeps digits left to right in a right-to-left line and mirrors its brackets (Noto Sans Arabic has neither: Noto Sans draws them)', () => {
    expect(drawn('النتيجة (12)', 'rtl', 'arabic')).toEqual([
      { text: '(', font: 'latin' },
      { text: '12', font: 'latin' },
      { text: ')', font: 'latin' },
      { text: 'النتيجة ', font: 'arabic' },
    ]);
  });

  it('draws each script with a face that has it: Hebrew in an English line, after the English', () => {
    expect(drawn('Test: \u2068מבחן\u2069 (version 2)', 'ltr', 'latin')).toEqual([
      { text: 'Test: ', font: 'latin' },
      { text: 'מבחן', font: 'hebrew' },
      { text: ' (version 2)', font: 'latin' },
    ]);
  });

  it('wraps a long right-to-left paragraph into lines that each fit the box', () => {
    const words = Array.from({ length: 40 }, () => 'المراقبة').join(' ');
    const lines = new Set<number>();
    const faces = new Map<FaceKey, Face>([['arabic', loadFace('arabic', DEFAULT_REPORT_FONT_DIRS, log)!]]);
    const doc = new PDFDocument({ size: 'A4' });
    const originalText = doc.text.bind(doc);
    doc.text = ((s: string, x: number, y: number, o: PDFKit.Mixins.TextOptions) => {
      lines.add(y);
      expect(x).toBeGreaterThanOrEqual(50 - 0.01);
      expect(x + doc.widthOfString(s, { features: [] })).toBeLessThanOrEqual(250 + 0.01);
      return originalText(s, x, y, o);
    }) as typeof doc.text;
    unicodeWriter(doc, faces, { dir: 'rtl', primary: 'arabic', cjk: 'cjk-jp' }).text(words, { x: 50, y: 50, width: 200 }, { size: 10 });
    doc.end();
    expect(lines.size).toBeGreaterThan(3);
  });

  it('cuts a word longer than the box into as many lines as it needs', () => {
    const calls = drawn('x'.repeat(400), 'ltr', 'latin');
    expect(calls.length).toBeGreaterThan(2);
    expect(calls.map((c) => c.text).join('')).toBe('x'.repeat(400));
  });
});
