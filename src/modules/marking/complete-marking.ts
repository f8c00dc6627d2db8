import type { Tx } from '../../platform/db.js';
import { applyTransition, type ApplyOutcome } from '../lifecycle/apply-transition.js';
import type { TestVersion } from '../catalog/tests-service.js';
import { roundPoints } from './auto-mark.js';
import { listMarks } from './marks-repo.js';
import { makeScore, scoreMarkedBy } from './score.js';

/**
 * Finishes marking in the caller's transaction: the final score from every
 * stored mark (auto, reviewer, model) over the test's maximum, with its
 * `markedBy`, then `marking → completed` and `grading.done` through the
 * state machine. Shared by reviewers (record-marks.ts) and the model's
 * `decide` mode (ai/settle-ai-marking.ts), so both release the same score.
 */
export async function completeMarking(
  tx: Tx,
  input: { assignmentId: string; institutionId: string; test: TestVersion; now: Date },
): Promise<ApplyOutcome> {
  const marks = await listMarks(tx, input.institutionId, input.assignmentId);
  const points = roundPoints(marks.reduce((sum, m) => sum + m.points, 0));
  const maxPoints = input.test.questions.reduce((sum, q) => sum + q.points, 0);
  const score = makeScore({
    points,
    maxPoints,
    passPercent: input.test.passPercent,
    final: true,
    markedAt: input.now,
    markedBy: scoreMarkedBy(marks),
  });
  return applyTransition(tx, input.assignmentId, [{ type: 'complete_marking', score }], input.now);
}
