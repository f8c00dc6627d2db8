import { randomInt } from 'node:crypto';
import { withTransaction } from '../../platform/db.js';
import { notFound } from '../../platform/errors.js';
import type { AppContext } from '../../platform/context.js';
import { accommodationsOf, findAssignment } from '../assignments/find-assignment.js';
import { applyTransition } from '../lifecycle/apply-transition.js';
import { insertAttempt } from './attempts-repo.js';
import { rememberBegunAttempt } from './save-answers.js';
import type { StudentSession } from '../assignments/student-sessions.js';
import { scheduleAutoSubmit } from './auto-submit-job.js';
import { loadTestVersion } from '../catalog/test-versions.js';
import { deadlineFor } from './timing.js';
import { drawDelivery } from '../catalog/delivery.js';
import { chooseContentLanguage } from '../catalog/translations/localize.js';
import { acceptLanguageTags } from '../../platform/i18n/locales.js';

export type BeginOutcome = 'started' | 'expired' | 'unchanged';

/**
 * "Begin test": `assigned → started` through the state machine (emits
 * `exam.started`), the attempt with its deadline (extra time included), and the durable
 * auto-submit job, all in one transaction. The candidate's delivery (the
 * pools' draw, the shuffles; catalog/delivery.ts) is drawn here, from the
 * CSPRNG, and stored with the attempt: an assignment never started draws
 * nothing, and every later reader sees the stored one. The assignment row lock makes a
 * second press or a second tab a no-op (`unchanged`). Past dueAt the lazy
 * expiry check applies instead (`expired`). A test with translations has
 * its content language chosen here, as the intro page showed it, and kept
 * in the delivery (docs/test-format.md "Languages").
 */
export async function beginAttempt(
  ctx: AppContext,
  session: StudentSession,
  assignmentId: string,
  request: { acceptLanguage?: string | undefined } = {},
): Promise<BeginOutcome> {
  const row = await findAssignment(ctx.pool, session.institutionId, assignmentId);
  if (!row || row.userId !== session.userId) throw notFound('assignment');
  const test = await loadTestVersion(ctx.pool, row.testVersionId);
  const now = ctx.clock.now();

  const outcome = await withTransaction(ctx.pool, async (tx) => {
    const started = await applyTransition(tx, row.id, [{ type: 'start' }], now);
    if (started.ok) {
      // Read under the row lock applyTransition took: extra time granted a moment ago counts.
      const deadlineAt = deadlineFor(now, test.durationMinutes, await accommodationsOf(tx, row.institutionId, row.id));
      const attempt = {
        assignmentId: row.id,
        institutionId: row.institutionId,
        userId: row.userId,
        testVersionId: row.testVersionId,
        startedAt: now,
        deadlineAt,
        delivery: drawDelivery(test, randomInt),
      };
      if (Object.keys(test.translations).length > 0) {
        attempt.delivery.contentLanguage = chooseContentLanguage(test, [row.candidateLocale, row.locale, ...acceptLanguageTags(request.acceptLanguage)]);
      }
      await insertAttempt(tx, attempt);
      await scheduleAutoSubmit(tx, row.id, deadlineAt);
      return attempt;
    }
    // Still assigned but refused: it is past dueAt, so it expires now (the state machine decides).
    if (started.status === 'assigned') {
      const expired = await applyTransition(tx, row.id, [{ type: 'expire' }], now);
      if (expired.ok) return 'expired' as const;
    }
    return 'unchanged' as const;
  });
  if (typeof outcome === 'string') return outcome;
  rememberBegunAttempt(outcome); // after the commit: a save never sees an attempt that is not stored
  return 'started';
}
