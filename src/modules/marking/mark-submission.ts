import type { Tx } from '../../platform/db.js';
import type { DeliveredTest } from '../catalog/delivery.js';
import { markAttempt } from './auto-mark.js';
import { type AnswerValue } from '../attempts/answer-values.js';
import { enqueueAiMarking } from './ai/enqueue-ai-marking.js';
import { insertAutoMarks } from './marks-repo.js';
import { sectionPoints, submissionScore } from './score.js';
import { type Score } from '../lifecycle/score.js';

/**
 * Auto-marks a submitted attempt inside the submission transaction: writes
 * one `auto` mark per auto-markable question (unanswered ones get 0) and
 * returns the score for `exam.completed` (null when nothing is auto-markable).
 * Items for AI marking become durable jobs in the same transaction.
 */
export async function markSubmission(
  tx: Tx,
  input: {
    assignmentId: string;
    institutionId: string;
    test: DeliveredTest;
    answers: ReadonlyMap<string, AnswerValue>;
    now: Date;
    /** Whether AI marking is configured (ASSAY_AI_BASE_URL). */
    aiEnabled?: boolean;
  },
): Promise<Score | null> {
  const marked = markAttempt(input.test.questions, input.answers);
  const autoMarks = marked.items.flatMap((i) => (i.kind === 'auto' ? [{ questionId: i.questionId, points: i.points }] : []));
  await insertAutoMarks(tx, { assignmentId: input.assignmentId, institutionId: input.institutionId, marks: autoMarks, now: input.now });
  await enqueueAiMarking(tx, { ...input, aiEnabled: input.aiEnabled ?? false });
  const autoOf = new Map(autoMarks.map((m) => [m.questionId, m.points]));
  return submissionScore({
    autoPoints: marked.autoPoints,
    maxPoints: marked.maxPoints,
    autoMarkableCount: marked.autoMarkableCount,
    manualCount: marked.manualCount,
    resultVisibility: input.test.resultVisibility,
    passPercent: input.test.passPercent,
    markedAt: input.now,
    sections: sectionPoints(input.test, (id) => autoOf.get(id) ?? 0),
  });
}
