import { englishTranslator, type Translator } from '../../platform/i18n/catalogue.js';
import type { ReportData } from './report-repo.js';
import { contentMark, isolatesTexts, type ContentLang } from '../catalog/content/content-lang.js';

/**
 * A candidate report's content, once, for both renderings (the HTML page
 * and the PDF): the same labels, values and wording in each, in the
 * candidate's language (the catalogue's `report.` messages; dates and numbers
 * through Intl for the candidate's locale).
 *
 * Text that can run against the sentence around it (a Latin test title in an
 * Arabic sentence, an Arabic name in an English one, ids and figures in a
 * right-to-left report) is wrapped in Unicode's isolate marks, FSI … PDI: the
 * page turns them into `<bdi>` (report-page.ts) and the PDF hands them to the
 * bidirectional algorithm (report-pdf-text.ts). A left-to-right report whose
 * values hold no right-to-left letter gets none, so it reads exactly as before.
 *
 * The author's texts (the test's title, its sections' and passages' titles)
 * are in the test's language, or the translation the candidate read: when
 * that is not the report's, each is isolated in the direction of its
 * language (LRI or RLI … PDI), which the page writes as `<bdi lang dir>`
 * (`contentLang`) and the PDF orders as such; a test that declares no
 * language gets FSI on a report not in English (each text its own
 * direction, as on the candidate's pages: catalog/content/content-lang.ts).
 */
export interface ReportContent {
  /** The report's language: `<html lang dir>`, the PDF's language and its fonts. */
  lang: string;
  locale: string;
  dir: 'ltr' | 'rtl';
  /** The language of the author's texts when it is not the report's: what the page marks each LRI/RLI-isolated text with. */
  contentLang: ContentLang;
  title: string;
  /** The window's and the PDF's title. */
  documentTitle: string;
  pdfTitle: string;
  /** On every page of a test-mode report; null for a live one. */
  testModeNotice: string | null;
  /** The same notice split for the page: its tag ("Test mode") and the sentence after it. */
  testMode: { tag: string; tagEnd: string; body: string } | null;
  headings: { candidateAndTest: string; result: string; integrity: string; scoreBySection: string; pointsByQuestion: string; flagsTable: string };
  notProctored: string;
  downloadPdf: string;
  details: Array<[string, string]>;
  result: Array<[string, string]>;
  sections: { columns: string[]; rows: string[][] } | null;
  /** Each question's outcome, when the institution shows them (reportShowsQuestions). */
  questions: { columns: string[]; rows: string[][] } | null;
  integrity: { summary: string; columns: string[]; rows: string[][] } | null;
  /** The reviewer's feedback (plain text): a label ("Overall", "Question 2") and its paragraphs (split at blank lines; a line break inside one kept as `\n`), each isolated in its own direction where needed. */
  feedback: { heading: string; items: Array<{ label: string; paragraphs: string[] }> } | null;
  footer: string;
  /** "Page n of m", for the PDF's foot. */
  pageOf: (page: number, pages: number) => string;
}

export const FSI = '\u2068';
export const PDI = '\u2069';
export const LRI = '\u2066';
export const RLI = '\u2067';
/** Whether a value starts with an isolate of its own (a content text, or a value already isolated). */
export const isolated = (value: string): boolean => value.startsWith(FSI) || value.startsWith(LRI) || value.startsWith(RLI);
/** A letter of a right-to-left script (Hebrew, Arabic, Syriac, Thaana, N’Ko and their presentation forms). */
const RTL_LETTER = /[\u0590-\u08FF\uFB1D-\uFDFF\uFE70-\uFEFF]|\uD802[\uDC00-\uDFFF]|\uD83A[\uDC00-\uDFFF]/;

/** Whether a value needs isolating from its surroundings in a report of direction `dir`. */
export const needsIsolation = (dir: 'ltr' | 'rtl', value: string): boolean => value !== '' && (dir === 'rtl' || RTL_LETTER.test(value));

export function reportContent(d: ReportData, generatedAt: Date, t: Translator = englishTranslator()): ReportContent {
  const iso = (value: string) => (needsIsolation(t.dir, value) ? `${FSI}${value}${PDI}` : value);
  const contentLang = contentMark({ language: d.testLanguage, translated: d.translated }, d.contentLanguage, t.lang);
  const isolate = isolatesTexts({ language: d.testLanguage }, contentLang, t.locale);
  /** An author's text: in its language's direction when that is not the report's, its own (FSI) for a test that says no language. */
  const own = (value: string) =>
    value === '' ? value : contentLang ? `${contentLang.dir === 'rtl' ? RLI : LRI}${value}${PDI}` : isolate ? `${FSI}${value}${PDI}` : iso(value);
  const num = (n: number) => t.number(n, { maximumFractionDigits: 2, useGrouping: false });
  const percent = (p: number) => t.number(p / 100, { style: 'percent', maximumFractionDigits: 2, useGrouping: false });
  const date = (x: Date | null) => (x ? t.dateTime(x) : '–');
  const s = d.score;
  const result: Array<[string, string]> = s
    ? [
        [t.t('report.score'), t.t('report.scoreValue', { maxPoints: s.maxPoints, points: iso(num(s.points)), max: iso(num(s.maxPoints)), percent: iso(percent(s.percent)) })],
        [t.t('report.result'), t.t(s.passed === true ? 'report.passed' : s.passed === false ? 'report.notPassed' : 'report.noPassMark')],
        [t.t('report.marking'), t.t(s.gradingStatus === 'final' ? 'report.markingFinal' : 'report.markingPending')],
      ]
    : [[t.t('report.score'), t.t('report.noScore')]];
  const sections = s?.sections?.length
    ? {
        columns: [t.t('report.section'), t.t('report.points'), t.t('report.outOf'), t.t('report.percent')],
        rows: s.sections.map((x) => [own(x.title), num(x.points), num(x.maxPoints), percent(x.percent)]),
      }
    : null;
  const outcome = (points: number | null, max: number) =>
    t.t(points === null ? 'report.outcomeNotMarked' : points >= max ? 'report.outcomeFull' : points > 0 ? 'report.outcomePart' : 'report.outcomeNone');
  const hasSections = d.questions?.some((q) => q.section !== '') ?? false;
  // A test with passages names each question's passage (a test without keeps its columns).
  const hasPassages = d.questions?.some((q) => q.passage !== null) ?? false;
  const questions = d.questions?.length
    ? {
        columns: [t.t('report.question'), ...(hasSections ? [t.t('report.section')] : []), ...(hasPassages ? [t.t('report.passage')] : []), t.t('report.points'), t.t('report.outOf'), t.t('report.outcome')],
        rows: d.questions.map((q) => [
          num(q.n),
          ...(hasSections ? [own(q.section)] : []),
          ...(hasPassages ? [q.passage === null ? '–' : q.passageTitled ? own(q.passage) : q.passage] : []),
          q.points === null ? '–' : num(q.points),
          num(q.maxPoints),
          outcome(q.points, q.maxPoints),
        ]),
      }
    : null;
  let integrity: ReportContent['integrity'] = null;
  if (d.proctoring !== 'none') {
    const total = d.flags.reduce((n, f) => n + f.total, 0);
    const open = d.flags.reduce((n, f) => n + f.unreviewed, 0);
    const confirmed = d.flags.reduce((n, f) => n + f.confirmed, 0);
    const summary = total === 0 ? t.t('report.flagsNone') : t.t('report.flagsSummary', { total, confirmed, dismissed: total - confirmed - open, open });
    const severity = { critical: t.t('report.severityCritical'), warning: t.t('report.severityWarning'), info: t.t('report.severityInfo') };
    integrity = {
      summary,
      columns: [t.t('report.severity'), t.t('report.flags'), t.t('report.confirmed'), t.t('report.dismissed'), t.t('report.awaitingReview')],
      rows: d.flags.map((f) => [severity[f.severity], num(f.total), num(f.confirmed), num(f.dismissed), num(f.unreviewed)]),
    };
  }
  // A reviewer's text has its own direction, whatever the report's (FSI … PDI, as a name has).
  const paragraphs = (text: string) => text.split(/\n\s*\n/).map((p) => (needsIsolation(t.dir, p) ? `${FSI}${p}${PDI}` : p));
  const feedback: ReportContent['feedback'] = d.feedback
    ? {
        heading: t.t('report.feedback'),
        items: [
          ...(d.feedback.overall !== null ? [{ label: t.t('report.feedbackOverall'), paragraphs: paragraphs(d.feedback.overall) }] : []),
          ...d.feedback.questions.map((q) => ({ label: t.t('test.questionNumber', { n: q.n }), paragraphs: paragraphs(q.feedback) })),
        ],
      }
    : null;
  const title = t.t('report.title', { test: own(d.testTitle) });
  const institution = iso(d.institutionName);
  return {
    lang: t.lang,
    locale: t.locale,
    dir: t.dir,
    contentLang,
    title,
    documentTitle: t.t(d.livemode ? 'report.documentTitle' : 'report.documentTitleTestMode', { title, institution }),
    pdfTitle: d.livemode ? title : t.t('report.pdfTitleTestMode', { title }),
    testModeNotice: d.livemode ? null : t.t('report.testModeNotice'),
    testMode: d.livemode ? null : { tag: t.t('report.testModeTag'), tagEnd: t.t('report.testModeTagEnd'), body: t.t('report.testModeBody') },
    headings: {
      candidateAndTest: t.t('report.candidateAndTest'),
      result: t.t('report.result'),
      integrity: t.t('report.integrity'),
      scoreBySection: t.t('report.scoreBySection'),
      pointsByQuestion: t.t('report.pointsByQuestion'),
      flagsTable: t.t('report.flagsTable'),
    },
    notProctored: t.t('report.notProctored'),
    downloadPdf: t.t('report.downloadPdf'),
    details: [
      [t.t('report.institution'), d.institutionName],
      [t.t('report.test'), t.t('report.testValue', { title: own(d.testTitle), version: d.testVersion })],
      [t.t('report.candidate'), d.candidateName ?? t.t('report.nameNotGiven')],
      [t.t('report.externalUserId'), d.externalUserId],
      [t.t('report.assigned'), date(d.createdAt)],
      [t.t('report.started'), date(d.startedAt)],
      [t.t('report.submitted'), date(d.submittedAt)],
      [t.t('report.completed'), date(d.completedAt)],
    ],
    result,
    sections,
    questions,
    integrity,
    feedback,
    footer: t.t('report.footer', { id: iso(d.assignmentId), date: iso(date(generatedAt)), institution }),
    pageOf: (page, pages) => t.t('report.pageOf', { page, pages }),
  };
}
