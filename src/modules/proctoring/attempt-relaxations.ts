import type { Queryable } from '../../platform/db.js';
import { accommodationsOf } from '../assignments/find-assignment.js';
import { effectiveProctoringRelaxations, type EffectiveRelaxations } from '../assignments/accommodations.js';

/**
 * The effective proctoring relaxations of a running attempt, for the heartbeat.
 *
 * Unlike the facts cached in proctored-attempt.ts, accommodations can change while the attempt runs
 * (PATCH /assignments/{id}), and in any API process. So they are cached per attempt for a short time
 * only: a change applies to heartbeats within RELAXATIONS_TTL_MS, as the open page learns of a new
 * deadline within its 10 s status poll. The heartbeat asks only when it carries a signal an
 * accommodation can relax, so the common heartbeat costs nothing more.
 */
export const RELAXATIONS_TTL_MS = 10_000;

const MAX_CACHED = 20_000;
const cache = new Map<string, { relaxations: EffectiveRelaxations; readAt: number }>();

export async function attemptRelaxations(db: Queryable, institutionId: string, assignmentId: string, now: Date): Promise<EffectiveRelaxations> {
  const hit = cache.get(assignmentId);
  if (hit && now.getTime() - hit.readAt < RELAXATIONS_TTL_MS && now.getTime() >= hit.readAt) return hit.relaxations;
  const relaxations = effectiveProctoringRelaxations({ accommodations: await accommodationsOf(db, institutionId, assignmentId) });
  cache.delete(assignmentId);
  if (cache.size >= MAX_CACHED) cache.delete(cache.keys().next().value!);
  cache.set(assignmentId, { relaxations, readAt: now.getTime() });
  return relaxations;
}
