import type { Tx } from '../../platform/db.js';
import { applyTransition, type ApplyOutcome } from '../lifecycle/apply-transition.js';
import type { DeliveredTest } from '../catalog/delivery.js';
import { roundPoints } from './auto-mark.js';
import { listMarks } from './marks-repo.js';
import { makeScore, scoreMarkedBy, sectionPoints } from './score.js';

/**
 * Finishes marking in the caller's transaction: the final score from every
 * stored mark (auto, reviewer, model) over the test's maximum, with its
 * `markedBy`, then `marking → completed` and `grading.done` through the
 * state machine. Shared by reviewers (record-marks.ts) and the model's
 * `decide` mode (ai/settle-ai-marking.ts), so both release the same score.
 */
export async function completeMarking(
  tx: Tx,
  input: { assignmentId: string; institutionId: string; test: DeliveredTest; now: Date },
): Promise<ApplyOutcome> {
  const marks = await listMarks(tx, input.institutionId, input.assignmentId);
  const points = roundPoints(marks.reduce((sum, m) => sum + m.points, 0));
  // The questions the candidate was given: a pool's undrawn questions count for nothing.
  const maxPoints = input.test.questions.reduce((sum, q) => sum + q.points, 0);
  const pointsOf = new Map(marks.map((m) => [m.questionId, m.points]));
  const score = makeScore({
    points,
    maxPoints,
    passPercent: input.test.passPercent,
    final: true,
    markedAt: input.now,
    markedBy: scoreMarkedBy(marks),
    sections: sectionPoints(input.test, (id) => pointsOf.get(id) ?? 0),
  });
  return applyTransition(tx, input.assignmentId, [{ type: 'complete_marking', score }], input.now);
}
