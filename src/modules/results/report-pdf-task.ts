import { englishTranslator, translator } from '../../platform/i18n/catalogue.js';
import type { LocaleChoice } from '../../platform/i18n/locales.js';
import { reportContent } from './report-content.js';
import { pdfFonts, reportPdf } from './report-pdf.js';
import type { ReportData } from './report-repo.js';

/**
 * The candidate report's PDF, drawn on a worker-pool thread
 * (platform/worker-pool): pdfkit lays out and writes the whole document in
 * one synchronous run, and a report in a language Helvetica cannot write
 * (Arabic, Hindi, CJK…) shapes every run of text through fontkit, so one PDF
 * held the event loop for 67 ms (a short English report) to 7.6 s (a long
 * Japanese one with feedback) on the loaded 2-core machine of
 * docs/performance.md "Report PDFs and statistics off the event loop". The
 * loop reads the report's rows and chooses its language; everything from
 * the words to the bytes happens here.
 *
 * The fonts are parsed once per thread (report-fonts.ts); a face that is
 * missing is told back as a warning for the request's log, not logged here.
 */
export interface RenderReportArgs {
  data: ReportData;
  /** When the report is produced (its footer). */
  generatedAt: Date;
  /** The report's language, as the route chose it. */
  locale: LocaleChoice;
  fontDirs: readonly string[];
}

export interface RenderedReport {
  pdf: Uint8Array;
  /** Faces not found, for the request's log. */
  warnings: Array<{ fields: object; message: string }>;
}

export async function renderReportPdf(_input: Uint8Array, args: RenderReportArgs): Promise<RenderedReport> {
  const warnings: RenderedReport['warnings'] = [];
  const log = { warn: (fields: object, message: string) => void warnings.push({ fields, message }) };
  const { data, generatedAt, fontDirs } = args;
  let content = reportContent(data, generatedAt, translator(args.locale));
  let fonts = pdfFonts(content, data.institutionName, fontDirs, log);
  if (fonts === 'language-missing') {
    // No face for the language's script is installed: an English PDF rather than one of empty boxes.
    content = reportContent(data, generatedAt, englishTranslator());
    fonts = pdfFonts(content, data.institutionName, fontDirs, log);
  }
  const pdf = await reportPdf(content, data.institutionName, fonts === 'language-missing' ? undefined : fonts);
  // A copy of its own: a small Buffer may be a view of Node's shared pool, which would all be cloned back.
  return { pdf: new Uint8Array(pdf), warnings };
}
