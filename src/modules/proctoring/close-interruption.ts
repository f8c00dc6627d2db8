import type { Tx } from '../../platform/db.js';
import * as repo from './proctoring-repo.js';

/**
 * The silence is over: the interruption flag gets its final duration, up to
 * `endedAt`, the first heartbeat after it (it stays critical). The caller
 * holds the attempt's and the session's locks.
 */
export async function closeInterruption(tx: Tx, a: { institutionId: string; assignmentId: string }, flagId: string, endedAt: Date): Promise<void> {
  const flag = (await repo.flagsById(tx, a.institutionId, a.assignmentId, [flagId])).get(flagId);
  if (flag) {
    const durationSeconds = Math.max(flag.durationSeconds, (endedAt.getTime() - flag.startedAt.getTime()) / 1000);
    await repo.saveFlag(tx, a.institutionId, a.assignmentId, { ...flag, durationSeconds, ongoing: false }, endedAt);
  }
  await repo.setInterruptedFlag(tx, a.assignmentId, null);
}
