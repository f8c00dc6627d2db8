import type { Queryable } from '../../platform/db.js';
import { notFound } from '../../platform/errors.js';
import { findAssignmentById, type AssignmentRow } from '../assignments/assignments-repo.js';
import { countWords } from '../attempts/answer-values.js';
import { listAnswers, loadTestVersion } from '../attempts/attempts-service.js';
import type { AssignmentStatus } from '../lifecycle/state-machine.js';
import type { TestVersion } from '../tests/tests-service.js';
import { isAutoMarkable, type AnswerValue } from './auto-mark.js';
import { listMarks, type StoredMark } from './marks-repo.js';
import type { Score } from './score.js';

export interface MarkingItem {
  questionId: string;
  type: string;
  prompt: string;
  maxPoints: number;
  answer: AnswerValue;
  wordCount: number | null;
  maxWords: number | null;
  rubric: string | null;
  needsMarking: boolean;
  mark: Omit<StoredMark, 'questionId'> | null;
}

export interface MarkingView {
  assignmentId: string;
  institutionId: string;
  externalUserId: string;
  testId: string;
  /** The pinned version (not in the operator API's response): its questions carry the option texts. */
  testVersionId: string;
  title: string;
  marking: TestVersion['marking'];
  resultVisibility: TestVersion['resultVisibility'];
  passPercent: number | null;
  status: AssignmentStatus;
  startedAt: Date | null;
  submittedAt: Date | null;
  completedAt: Date | null;
  score: Score | null;
  items: MarkingItem[];
  awaitingMarking: string[];
}

/**
 * What a marker needs: every question with the saved answer and its mark,
 * and which items still wait for a reviewer. The operator API calls it
 * unscoped; a reviewer portal passes its institution, and another
 * institution's assignment is then not found, like a missing one.
 */
export async function getMarkingView(db: Queryable, assignmentId: string, scope: { institutionId?: string } = {}): Promise<MarkingView> {
  const row = await findAssignmentById(db, assignmentId);
  if (!row || (scope.institutionId !== undefined && row.institutionId !== scope.institutionId)) throw notFound('assignment');
  const test = await loadTestVersion(db, row.testVersionId);
  const [answers, marks] = await Promise.all([listAnswers(db, row.institutionId, row.id), listMarks(db, row.institutionId, row.id)]);
  return buildView(row, test, answers, marks);
}

export function buildView(
  row: AssignmentRow,
  test: TestVersion,
  answers: Array<{ questionId: string; value: AnswerValue }>,
  marks: StoredMark[],
): MarkingView {
  const answerOf = new Map(answers.map((a) => [a.questionId, a.value]));
  const markOf = new Map(marks.map((m) => [m.questionId, m]));
  const items: MarkingItem[] = test.questions.map((q) => {
    const answer = answerOf.get(q.id) ?? null;
    const mark = markOf.get(q.id);
    const essay = q.type === 'essay' ? q : null;
    return {
      questionId: q.id,
      type: q.type,
      prompt: q.prompt,
      maxPoints: q.points,
      answer,
      wordCount: essay ? countWords(typeof answer === 'string' ? answer : '') : null,
      maxWords: essay?.maxWords ?? null,
      rubric: essay?.rubric ?? null,
      needsMarking: !isAutoMarkable(q),
      mark: mark ? { points: mark.points, source: mark.source, comment: mark.comment, markedBy: mark.markedBy, markedAt: mark.markedAt } : null,
    };
  });
  return {
    assignmentId: row.id,
    institutionId: row.institutionId,
    externalUserId: row.externalUserId,
    testId: row.testId,
    testVersionId: row.testVersionId,
    title: test.title,
    marking: test.marking,
    resultVisibility: test.resultVisibility,
    passPercent: test.passPercent,
    status: row.status,
    startedAt: row.startedAt,
    submittedAt: row.submittedAt,
    completedAt: row.completedAt,
    score: row.score,
    items,
    awaitingMarking: row.status === 'marking' ? items.filter((i) => i.needsMarking && !i.mark).map((i) => i.questionId) : [],
  };
}
