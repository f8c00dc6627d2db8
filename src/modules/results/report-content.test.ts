import { describe, expect, it } from 'vitest';
import { reportContent } from './report-content.js';
import type { ReportData } from './report-repo.js';

/** The per-question table of a candidate report names each question's passage when the test has any. */
const base: ReportData = {
  assignmentId: 'asg_1',
  livemode: true,
  institutionName: 'Riverside',
  testTitle: 'Reading',
  testVersion: 1,
  contentLanguage: 'en',
  testLanguage: null,
  translated: false,
  proctoring: 'none',
  candidateName: null,
  externalUserId: 'u1',
  createdAt: new Date(0),
  startedAt: null,
  submittedAt: null,
  completedAt: null,
  score: null,
  flags: [],
  feedback: null,
  questions: [
    { n: 1, section: '', type: 'single_choice', points: 1, maxPoints: 1, passage: 'The flood' },
    { n: 2, section: '', type: 'numeric', points: 0, maxPoints: 1, passage: null },
  ],
};

describe('the report’s questions and their passages', () => {
  it('adds a Passage column naming each question’s passage (– for none)', () => {
    const q = reportContent(base, new Date(0)).questions!;
    expect(q.columns).toEqual(['Question', 'Passage', 'Points', 'Out of', 'Outcome']);
    expect(q.rows.map((r) => r[1])).toEqual(['The flood', '–']);
  });

  it('a test without passages keeps its columns', () => {
    const q = reportContent({ ...base, questions: base.questions!.map((x) => ({ ...x, passage: null })) }, new Date(0)).questions!;
    expect(q.columns).toEqual(['Question', 'Points', 'Out of', 'Outcome']);
  });
});
