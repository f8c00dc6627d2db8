import { formatPoints } from '../../platform/web/html.js';
import type { ReportData } from './report-repo.js';

/**
 * A candidate report's content, once, for both renderings (the HTML page
 * and the PDF): the same labels, values and wording in each.
 */
export interface ReportContent {
  title: string;
  /** On every page of a test-mode report; null for a live one. */
  testModeNotice: string | null;
  details: Array<[string, string]>;
  result: Array<[string, string]>;
  sections: { columns: string[]; rows: string[][] } | null;
  /** Each question's outcome, when the institution shows them (reportShowsQuestions). */
  questions: { columns: string[]; rows: string[][] } | null;
  integrity: { summary: string; columns: string[]; rows: string[][] } | null;
  footer: string;
}

const DATE = new Intl.DateTimeFormat('en-GB', { dateStyle: 'long', timeStyle: 'short', timeZone: 'UTC' });
export const reportDate = (d: Date | null): string => (d ? `${DATE.format(d)} UTC` : '–');

const SEVERITY = { critical: 'Critical', warning: 'Warning', info: 'Information' } as const;

export function reportContent(d: ReportData, generatedAt: Date): ReportContent {
  const s = d.score;
  const result: Array<[string, string]> = s
    ? [
        ['Score', `${formatPoints(s.points)} of ${formatPoints(s.maxPoints)} points (${formatPoints(s.percent)}%)`],
        ['Result', s.passed === true ? 'Passed' : s.passed === false ? 'Not passed' : 'No pass mark is set for this test'],
        ['Marking', s.gradingStatus === 'final' ? 'Final' : 'Some answers still await marking'],
      ]
    : [['Score', 'No score: this test has nothing marked automatically and no marks were recorded']];
  const sections = s?.sections?.length
    ? {
        columns: ['Section', 'Points', 'Out of', 'Percent'],
        rows: s.sections.map((x) => [x.title, formatPoints(x.points), formatPoints(x.maxPoints), `${formatPoints(x.percent)}%`]),
      }
    : null;
  const outcome = (points: number | null, max: number) => (points === null ? 'Not marked' : points >= max ? 'Full marks' : points > 0 ? 'Part marks' : 'No marks');
  const hasSections = d.questions?.some((q) => q.section !== '') ?? false;
  // A test with passages names each question's passage (a test without keeps its columns).
  const hasPassages = d.questions?.some((q) => q.passage !== null) ?? false;
  const questions = d.questions?.length
    ? {
        columns: ['Question', ...(hasSections ? ['Section'] : []), ...(hasPassages ? ['Passage'] : []), 'Points', 'Out of', 'Outcome'],
        rows: d.questions.map((q) => [
          String(q.n),
          ...(hasSections ? [q.section] : []),
          ...(hasPassages ? [q.passage ?? '–'] : []),
          q.points === null ? '–' : formatPoints(q.points),
          formatPoints(q.maxPoints),
          outcome(q.points, q.maxPoints),
        ]),
      }
    : null;
  let integrity: ReportContent['integrity'] = null;
  if (d.proctoring !== 'none') {
    const total = d.flags.reduce((n, f) => n + f.total, 0);
    const open = d.flags.reduce((n, f) => n + f.unreviewed, 0);
    const confirmed = d.flags.reduce((n, f) => n + f.confirmed, 0);
    const summary =
      total === 0
        ? 'The attempt was proctored and raised no flags.'
        : `The attempt was proctored and raised ${total} ${total === 1 ? 'flag' : 'flags'}: ${confirmed} confirmed by a reviewer, ${total - confirmed - open} dismissed, ${open} awaiting review.`;
    integrity = {
      summary,
      columns: ['Severity', 'Flags', 'Confirmed', 'Dismissed', 'Awaiting review'],
      rows: d.flags.map((f) => [SEVERITY[f.severity], String(f.total), String(f.confirmed), String(f.dismissed), String(f.unreviewed)]),
    };
  }
  return {
    title: `Result report: ${d.testTitle}`,
    testModeNotice: d.livemode ? null : 'Test mode: this report is of a sandbox run made with a test API key. It is not a real result.',
    details: [
      ['Institution', d.institutionName],
      ['Test', `${d.testTitle} (version ${d.testVersion})`],
      ['Candidate', d.candidateName ?? 'Name not given'],
      ['External user id', d.externalUserId],
      ['Assigned', reportDate(d.createdAt)],
      ['Started', reportDate(d.startedAt)],
      ['Submitted', reportDate(d.submittedAt)],
      ['Completed', reportDate(d.completedAt)],
    ],
    result,
    sections,
    questions,
    integrity,
    footer: `Report ${d.assignmentId}, produced ${reportDate(generatedAt)} by Assay for ${d.institutionName}.`,
  };
}
