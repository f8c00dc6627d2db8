import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { DEFAULT_REPORT_FONT_DIRS } from '../../platform/config.js';
import { translator } from '../../platform/i18n/catalogue.js';
import { chooseLocale } from '../../platform/i18n/locales.js';
import { reportContent } from './report-content.js';
import type { ReportData } from './report-repo.js';
import { pdfFonts } from './report-pdf.js';

/**
 * Which fonts a report's PDF is drawn with: Helvetica while it can write
 * every character, else the Noto faces its language and content need; and
 * when its language's face is not installed, the route's cue to draw it in
 * English, told once in the log.
 */
const data: ReportData = {
  assignmentId: 'asg_1',
  livemode: true,
  institutionName: 'Riverside',
  testTitle: 'Reading',
  testVersion: 1,
  contentLanguage: 'en',
  testLanguage: null,
  translated: false,
  proctoring: 'none',
  candidateName: 'Zoë',
  externalUserId: 'u1',
  createdAt: new Date(0),
  startedAt: null,
  submittedAt: null,
  completedAt: null,
  score: null,
  flags: [],
  feedback: null,
  questions: null,
};
const content = (tag: string, d: ReportData = data) => reportContent(d, new Date(0), translator(chooseLocale({ candidate: tag })));
const fontsInstalled = DEFAULT_REPORT_FONT_DIRS.some((d) => fs.existsSync(path.join(d, 'NotoSansArabic-Regular.ttf')));

describe('the fonts of a report’s PDF', () => {
  it('are the standard Helvetica for English and Latin-1 content, without looking for a file', () => {
    const warnings: string[] = [];
    expect(pdfFonts(content('en'), 'Riverside', ['/nonexistent'], { warn: (_, m) => warnings.push(m) })).toEqual({ kind: 'standard' });
    expect(warnings).toEqual([]);
  });

  it('tell the route to draw an Arabic report in English when no Arabic face is installed, logging each missing face once', () => {
    const missing: unknown[] = [];
    const log = { warn: (o: object) => missing.push((o as { font: string }).font) };
    expect(pdfFonts(content('ar'), 'Riverside', ['/nonexistent'], log)).toBe('language-missing');
    expect(pdfFonts(content('ar'), 'Riverside', ['/nonexistent'], log)).toBe('language-missing');
    expect(missing).toEqual(['Noto Sans', 'Noto Sans Arabic']);
  });

  it.skipIf(!fontsInstalled)('embed the faces an English report’s content needs (an Arabic title) beside Noto Sans', () => {
    const fonts = pdfFonts(content('en', { ...data, testTitle: 'القراءة' }), 'Riverside', DEFAULT_REPORT_FONT_DIRS, { warn: () => {} });
    expect(fonts !== 'language-missing' && fonts.kind === 'embedded' && [...fonts.faces.keys()].sort()).toEqual(['arabic', 'latin']);
  });
});
