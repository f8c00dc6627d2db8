import type { Queryable } from '../../platform/db.js';
import { purgeLoginLeftovers } from './lti-repo.js';

/** Hourly (the maintenance purge): login states, nonces and picker requests past their expiry. */
export function purgeLtiLaunchLeftovers(db: Queryable, now: Date): Promise<void> {
  return purgeLoginLeftovers(db, now);
}
