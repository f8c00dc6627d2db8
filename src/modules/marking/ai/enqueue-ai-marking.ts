import type { Tx } from '../../../platform/db.js';
import { enqueueJob } from '../../../platform/jobs.js';
import type { TestVersion } from '../../catalog/tests-service.js';
import type { AnswerValue } from '../../attempts/answer-values.js';
import { aiItemsOf } from './ai-items.js';
import { insertSuggestions } from './suggestions-repo.js';
import { AI_OFF_REASON, aiMarkKey } from './ai-mark-key.js';
import { aiMarkJob, type AiMarkPayload } from './ai-mark-job.js';


/**
 * At submission, in the submission's transaction: one suggestion row and one
 * durable job per item the model should mark. The answer is already a row,
 * so a model outage delays a suggestion but never blocks the submission or
 * loses an answer. With AI marking off, the rows say so and no job is queued:
 * the items wait for a reviewer like any essay.
 */
export async function enqueueAiMarking(
  tx: Tx,
  input: { assignmentId: string; institutionId: string; test: TestVersion; answers: ReadonlyMap<string, AnswerValue>; aiEnabled: boolean; now: Date },
): Promise<number> {
  const items = aiItemsOf(input.test.questions, input.answers);
  if (items.length === 0) return 0;
  await insertSuggestions(
    tx,
    items.map((q) => ({
      assignmentId: input.assignmentId,
      institutionId: input.institutionId,
      questionId: q.id,
      testId: input.test.testId,
      mode: q.aiMarking.mode,
      minConfidence: q.aiMarking.minConfidence,
      maxPoints: q.points,
      status: input.aiEnabled ? 'pending' : 'handed_over',
      failureReason: input.aiEnabled ? null : AI_OFF_REASON,
    })),
    input.now,
  );
  if (!input.aiEnabled) return 0;
  for (const q of items) {
    const payload: AiMarkPayload = { institutionId: input.institutionId, assignmentId: input.assignmentId, questionId: q.id };
    // runAt from the service clock (not the database's), so a test's manual clock decides when it is due.
    await enqueueJob(tx, aiMarkJob, payload, { runAt: input.now, uniqueKey: aiMarkKey(input.assignmentId, q.id) });
  }
  return items.length;
}
