import PDFDocument from 'pdfkit';
import { PDI, type ReportContent } from './report-content.js';
import { faceOfChar, faceOfLocale, loadFace, type Face, type FaceKey, type FontLog } from './report-fonts.js';
import { standardWriter, stripControls, unicodeWriter, type PdfWriter } from './report-pdf-text.js';

/**
 * The report as a PDF, drawn on the server with pdfkit (MIT; no browser):
 * A4, the same content as the page (report-content.ts), in the report's
 * language and direction (a right-to-left report mirrors: labels on the
 * right, the first column of a table at the right). Every page carries the
 * test-mode notice of a test-mode report at its top and "Page n of m" at its
 * foot, drawn once all pages exist (bufferPages).
 *
 * Fonts (pdfFonts): a report the standard Helvetica can write (a Latin
 * language, every character in its WinAnsi set) is drawn with it, as it
 * always was; any other embeds the Noto faces its scripts need
 * (report-fonts.ts) and is laid out by report-pdf-text.ts (bidirectional
 * text, a face per script). docs/results.md says which and what happens
 * when a face is missing.
 *
 * The PDF is tagged (WCAG 1.3.1, docs/accessibility.md): a structure tree in
 * reading order, as the HTML page has it: the institution and the notice as
 * paragraphs, the title H1, each part H2, the facts a list of label and
 * value, each table a Table with its Caption, header cells TH and data cells
 * TD. What only decorates or repeats (rules between rows, the page numbers,
 * the notice on pages after the first) is marked as an artifact, which a
 * screen reader skips.
 */
const MARGIN = { top: 84, bottom: 64, left: 56, right: 56 };

/** How the PDF is written: pdfkit's Helvetica, or embedded faces (the report's own first). */
export type PdfFonts = { kind: 'standard' } | { kind: 'embedded'; faces: ReadonlyMap<FaceKey, Face>; primary: FaceKey; cjk: FaceKey };

/** Everything the PDF writes, for choosing its fonts. */
function allText(c: ReportContent, institutionName: string): string {
  const rows = (t: { columns: string[]; rows: string[][] } | null) => (t ? [...t.columns, ...t.rows.flat()] : []);
  return [
    institutionName,
    c.title,
    c.pdfTitle,
    c.testModeNotice ?? '',
    ...Object.values(c.headings),
    c.notProctored,
    ...c.details.flat(),
    ...c.result.flat(),
    ...rows(c.sections),
    ...rows(c.questions),
    c.integrity?.summary ?? '',
    ...rows(c.integrity),
    c.feedback?.heading ?? '',
    ...(c.feedback?.items.flatMap((i) => [i.label, ...i.paragraphs]) ?? []),
    c.footer,
    c.pageOf(1, 1),
  ].join('\n');
}

/** What pdfkit's standard fonts encode (WinAnsi): Latin-1 and a few typographic marks. */
const WIN_ANSI = /^[\n\u0020-\u007E\u00A0-\u00FF\u0152\u0153\u0160\u0161\u0178\u017D\u017E\u0192\u02C6\u02DC\u2013\u2014\u2018-\u201A\u201C-\u201E\u2020-\u2022\u2026\u2030\u2039\u203A\u20AC\u2122]*$/u;

/**
 * The fonts for this report's PDF, or `language-missing` when the face its
 * language is written in is not installed (the route then draws the PDF in
 * English). Faces for other scripts in the content (an Arabic test title in
 * an English report) are added when found; a missing one is logged.
 */
export function pdfFonts(c: ReportContent, institutionName: string, dirs: readonly string[], log: FontLog): PdfFonts | 'language-missing' {
  const text = allText(c, institutionName);
  const own = faceOfLocale(c.locale);
  if (own === 'latin' && WIN_ANSI.test(stripControls(text))) return { kind: 'standard' };
  const latin = loadFace('latin', dirs, log);
  const primary = own === 'latin' ? latin : loadFace(own, dirs, log);
  if (!primary) return own === 'latin' ? { kind: 'standard' } : 'language-missing';
  const cjk: FaceKey = c.locale.startsWith('zh') ? 'cjk-sc' : 'cjk-jp';
  const faces = new Map<FaceKey, Face>([[own, primary]]);
  if (latin) faces.set('latin', latin);
  for (const ch of new Set(text)) {
    const key = faceOfChar(ch, cjk);
    if (key && !faces.has(key)) {
      const face = loadFace(key, dirs, log);
      if (face) faces.set(key, face);
    }
  }
  return { kind: 'embedded', faces, primary: own, cjk };
}

export function reportPdf(c: ReportContent, institutionName: string, fonts: PdfFonts = { kind: 'standard' }): Promise<Buffer> {
  const doc = new PDFDocument({
    size: 'A4',
    margins: MARGIN,
    bufferPages: true,
    pdfVersion: '1.7',
    tagged: true,
    lang: c.locale === 'en' ? 'en-GB' : c.lang,
    displayTitle: true,
    info: { Title: stripControls(c.pdfTitle), Author: institutionName, Creator: 'Assay', Producer: 'Assay' },
  });
  const chunks: Buffer[] = [];
  doc.on('data', (b: Buffer) => chunks.push(b));
  const done = new Promise<Buffer>((resolve, reject) => {
    doc.on('end', () => resolve(Buffer.concat(chunks)));
    doc.on('error', reject);
  });
  const w: PdfWriter = fonts.kind === 'standard' ? standardWriter(doc) : unicodeWriter(doc, fonts.faces, { dir: c.dir, primary: fonts.primary, cjk: fonts.cjk });
  const width = doc.page.width - MARGIN.left - MARGIN.right;
  // A box [x, x + boxWidth) measured from the start edge: from the left in a left-to-right report, from the right in a right-to-left one.
  const at = (x: number, boxWidth: number) => (w.dir === 'rtl' ? MARGIN.left + width - (x - MARGIN.left) - boxWidth : x);
  const root = doc.struct('Document');
  doc.addStructure(root);
  /** A structure element of `type` under `parent`, its content what `draw` puts on the page (run at once). */
  const tag = (parent: PDFKit.PDFStructureElement, type: string, draw: () => void) => parent.add(doc.struct(type, {}, [draw]));
  /** Drawing that carries no content of its own (a rule, a repeated line): skipped by assistive technology. */
  const artifact = (type: 'Pagination' | 'Layout', draw: () => void) => {
    doc.markContent('Artifact', { type });
    draw();
    doc.endMarkedContent();
  };
  // The notice leads the reading order, though it is drawn on the first page only once every page exists.
  const notice = c.testModeNotice ? doc.struct('P') : null;
  if (notice) root.add(notice);

  const heading = (text: string) => {
    doc.moveDown(0.8).fillColor('#000');
    tag(root, 'H2', () => w.text(text, { x: MARGIN.left, width }, { size: 13, bold: true }));
    doc.moveDown(0.3);
  };
  const paragraph = (text: string) => tag(root, 'P', () => w.text(text, { x: MARGIN.left, width }, { size: 10.5 }));
  const facts = (pairs: Array<[string, string]>) => {
    const list = doc.struct('L');
    root.add(list);
    for (const [k, v] of pairs) {
      const item = doc.struct('LI');
      list.add(item);
      const y = doc.y;
      tag(item, 'Lbl', () => w.text(k, { x: at(MARGIN.left, 130), y, width: 130 }, { size: 10.5, bold: true }));
      const after = doc.y;
      tag(item, 'LBody', () => w.text(v, { x: at(MARGIN.left + 140, width - 140), y, width: width - 140 }, { size: 10.5 }));
      doc.y = Math.max(after, doc.y) + 3;
      item.end();
    }
    list.end();
  };
  const table = (caption: string, columns: string[], rows: string[][]) => {
    const t = doc.struct('Table');
    root.add(t);
    doc.moveDown(0.4);
    tag(t, 'Caption', () => w.text(caption, { x: MARGIN.left, width }, { size: 10.5, bold: true }));
    doc.moveDown(0.2);
    const first = Math.max(150, width - (columns.length - 1) * 80);
    const colX = (i: number) => (i === 0 ? MARGIN.left : MARGIN.left + first + (i - 1) * ((width - first) / (columns.length - 1)));
    const colW = (i: number) => (i === 0 ? first - 6 : (width - first) / (columns.length - 1) - 6);
    // The header row's cells head their columns; each body row's first cell heads its row (as the page's th scope="row").
    const row = (cells: string[], bold: boolean) => {
      if (doc.y > doc.page.height - MARGIN.bottom - 30) doc.addPage();
      const tr = doc.struct('TR');
      t.add(tr);
      const y = doc.y;
      let bottom = y;
      cells.forEach((cell, i) => {
        tag(tr, bold || i === 0 ? 'TH' : 'TD', () => w.text(cell, { x: at(colX(i), colW(i)), y, width: colW(i), align: i === 0 ? 'start' : 'end' }, { size: 10, bold: bold || i === 0 }));
        bottom = Math.max(bottom, doc.y);
      });
      tr.end();
      artifact('Layout', () => doc.moveTo(MARGIN.left, bottom + 2).lineTo(MARGIN.left + width, bottom + 2).lineWidth(0.5).strokeColor('#8a8a8a').stroke());
      doc.y = bottom + 6;
    };
    row(columns, true);
    for (const r of rows) row(r, false);
    t.end();
  };

  doc.fillColor('#333');
  tag(root, 'P', () => w.text(institutionName, { x: MARGIN.left, y: MARGIN.top, width }, { size: 10 }));
  doc.moveDown(0.4).fillColor('#000');
  tag(root, 'H1', () => w.text(c.title, { x: MARGIN.left, width }, { size: 18, bold: true }));
  heading(c.headings.candidateAndTest);
  facts(c.details);
  heading(c.headings.result);
  facts(c.result);
  if (c.sections) table(c.headings.scoreBySection, c.sections.columns, c.sections.rows);
  if (c.questions) table(c.headings.pointsByQuestion, c.questions.columns, c.questions.rows);
  if (c.feedback) {
    heading(c.feedback.heading);
    for (const item of c.feedback.items) {
      doc.moveDown(0.3);
      tag(root, 'H3', () => w.text(item.label, { x: MARGIN.left, width }, { size: 11, bold: true }));
      for (const para of item.paragraphs) {
        // A line break is a new line; a paragraph isolated as a whole (report-content.ts) is isolated line by line.
        const mark = /^[\u2066-\u2068]/u.exec(para)?.[0];
        for (const line of (mark ? para.slice(mark.length, -1) : para).split('\n')) paragraph(mark ? `${mark}${line}${PDI}` : line);
        doc.moveDown(0.3);
      }
    }
  }
  heading(c.headings.integrity);
  if (c.integrity) {
    paragraph(c.integrity.summary);
    table(c.headings.flagsTable, c.integrity.columns, c.integrity.rows);
  } else {
    paragraph(c.notProctored);
  }
  doc.moveDown(1).fillColor('#333');
  tag(root, 'P', () => w.text(c.footer, { x: MARGIN.left, width }, { size: 9 }));

  // The notice and the page numbers, on every page, inside the margins (which are lifted so no page is added).
  const range = doc.bufferedPageRange();
  for (let i = range.start; i < range.start + range.count; i++) {
    doc.switchToPage(i);
    const { top, bottom } = doc.page.margins;
    doc.page.margins.top = 0;
    doc.page.margins.bottom = 0;
    if (c.testModeNotice) {
      const text = c.testModeNotice;
      artifact('Layout', () => doc.rect(MARGIN.left, 28, width, 36).fillColor('#fff4ce').fill());
      const draw = () => {
        doc.fillColor('#5c3c00');
        w.text(text, { x: MARGIN.left + 8, y: 34, width: width - 16 }, { size: 10, bold: true });
      };
      if (i === range.start && notice) notice.add(draw);
      else artifact('Pagination', draw);
    }
    artifact('Pagination', () => {
      doc.fillColor('#333');
      w.text(c.pageOf(i - range.start + 1, range.count), { x: MARGIN.left, y: doc.page.height - 40, width, align: 'end' }, { size: 9 });
    });
    doc.page.margins.top = top;
    doc.page.margins.bottom = bottom;
  }
  notice?.end();
  root.end();
  doc.end();
  return done;
}
