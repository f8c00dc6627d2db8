import PDFDocument from 'pdfkit';
import type { ReportContent } from './report-content.js';

/**
 * The report as a PDF, drawn on the server with pdfkit (MIT; no browser):
 * A4, the standard Helvetica fonts, the same content as the page
 * (report-content.ts). Every page carries the test-mode notice of a
 * test-mode report at its top and "Page n of m" at its foot, drawn once all
 * pages exist (bufferPages). Text outside the Latin-1 range of the standard
 * fonts prints as the fonts allow (docs/results.md).
 */
const MARGIN = { top: 84, bottom: 64, left: 56, right: 56 };

export function reportPdf(c: ReportContent, institutionName: string): Promise<Buffer> {
  const doc = new PDFDocument({
    size: 'A4',
    margins: MARGIN,
    bufferPages: true,
    lang: 'en-GB',
    displayTitle: true,
    info: { Title: c.testModeNotice ? `Test mode: ${c.title}` : c.title, Author: institutionName, Creator: 'Assay', Producer: 'Assay' },
  });
  const chunks: Buffer[] = [];
  doc.on('data', (b: Buffer) => chunks.push(b));
  const done = new Promise<Buffer>((resolve, reject) => {
    doc.on('end', () => resolve(Buffer.concat(chunks)));
    doc.on('error', reject);
  });
  const width = doc.page.width - MARGIN.left - MARGIN.right;

  const heading = (text: string) => {
    doc.moveDown(0.8).font('Helvetica-Bold').fontSize(13).fillColor('#000').text(text, MARGIN.left, undefined, { width });
    doc.moveDown(0.3);
  };
  const facts = (pairs: Array<[string, string]>) => {
    for (const [k, v] of pairs) {
      const y = doc.y;
      doc.font('Helvetica-Bold').fontSize(10.5).text(k, MARGIN.left, y, { width: 130 });
      const after = doc.y;
      doc.font('Helvetica').text(v, MARGIN.left + 140, y, { width: width - 140 });
      doc.y = Math.max(after, doc.y) + 3;
    }
  };
  const table = (caption: string, columns: string[], rows: string[][]) => {
    doc.moveDown(0.4).font('Helvetica-Bold').fontSize(10.5).text(caption, MARGIN.left, undefined, { width });
    doc.moveDown(0.2);
    const first = Math.max(150, width - (columns.length - 1) * 80);
    const colX = (i: number) => (i === 0 ? MARGIN.left : MARGIN.left + first + (i - 1) * ((width - first) / (columns.length - 1)));
    const colW = (i: number) => (i === 0 ? first - 6 : (width - first) / (columns.length - 1) - 6);
    const row = (cells: string[], bold: boolean) => {
      if (doc.y > doc.page.height - MARGIN.bottom - 30) doc.addPage();
      const y = doc.y;
      let bottom = y;
      cells.forEach((cell, i) => {
        doc.font(bold || i === 0 ? 'Helvetica-Bold' : 'Helvetica').fontSize(10).text(cell, colX(i), y, { width: colW(i), align: i === 0 ? 'left' : 'right' });
        bottom = Math.max(bottom, doc.y);
      });
      doc.moveTo(MARGIN.left, bottom + 2).lineTo(MARGIN.left + width, bottom + 2).lineWidth(0.5).strokeColor('#8a8a8a').stroke();
      doc.y = bottom + 6;
    };
    row(columns, true);
    for (const r of rows) row(r, false);
  };

  doc.font('Helvetica').fontSize(10).fillColor('#333').text(institutionName, MARGIN.left, MARGIN.top, { width });
  doc.moveDown(0.4).font('Helvetica-Bold').fontSize(18).fillColor('#000').text(c.title, { width });
  heading('Candidate and test');
  facts(c.details);
  heading('Result');
  facts(c.result);
  if (c.sections) table('Score by section', c.sections.columns, c.sections.rows);
  if (c.questions) table('Points by question, in the order the candidate saw them', c.questions.columns, c.questions.rows);
  heading('Integrity');
  if (c.integrity) {
    doc.font('Helvetica').fontSize(10.5).text(c.integrity.summary, MARGIN.left, undefined, { width });
    table('Proctoring flags by severity and review outcome', c.integrity.columns, c.integrity.rows);
  } else {
    doc.font('Helvetica').fontSize(10.5).text('This test was not proctored.', MARGIN.left, undefined, { width });
  }
  doc.moveDown(1).font('Helvetica').fontSize(9).fillColor('#333').text(c.footer, MARGIN.left, undefined, { width });

  // The notice and the page numbers, on every page, inside the margins (which are lifted so no page is added).
  const range = doc.bufferedPageRange();
  for (let i = range.start; i < range.start + range.count; i++) {
    doc.switchToPage(i);
    const { top, bottom } = doc.page.margins;
    doc.page.margins.top = 0;
    doc.page.margins.bottom = 0;
    if (c.testModeNotice) {
      doc.rect(MARGIN.left, 28, width, 36).fillColor('#fff4ce').fill();
      doc.fillColor('#5c3c00').font('Helvetica-Bold').fontSize(10).text(c.testModeNotice, MARGIN.left + 8, 34, { width: width - 16 });
    }
    doc.fillColor('#333').font('Helvetica').fontSize(9).text(`Page ${i - range.start + 1} of ${range.count}`, MARGIN.left, doc.page.height - 40, { width, align: 'right' });
    doc.page.margins.top = top;
    doc.page.margins.bottom = bottom;
  }
  doc.end();
  return done;
}
