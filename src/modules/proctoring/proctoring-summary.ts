import type { Queryable } from '../../platform/db.js';
import { loadTestVersion } from '../attempts/attempts-service.js';
import { findSummary, toSummary, type SessionCountsRecord } from './proctoring-repo.js';
import { reviewStatusOf, type ReviewStatus } from './rules.js';
import type { ProctoredMode } from '../catalog/test-settings.js';

/**
 * The partner read's `proctoring` object (docs/proctoring.md):
 * `{ mode, flags: { critical, warning, info }, reviewStatus }`, null for a
 * test without proctoring. Cheap on purpose, it is on the hottest partner
 * route: the mode comes from the in-process copy of the immutable test
 * version, and the counts from one primary-key read of the session row, which
 * keeps them in step with the flags (no count over the flags per read).
 */
export interface PartnerProctoring {
  mode: ProctoredMode;
  flags: { critical: number; warning: number; info: number };
  reviewStatus: ReviewStatus;
}

export async function proctoringSummary(
  db: Queryable,
  institutionId: string,
  assignmentId: string,
  testVersionId: string,
  /** The session row's counts when the caller already read them (the partner read joins them in); else one read here. */
  counts?: Record<string, unknown>,
): Promise<PartnerProctoring | null> {
  const { proctoring } = await loadTestVersion(db, testVersionId);
  if (proctoring === 'none') return null;
  // The partner read's statement selects the session's count columns beside the assignment's (READ_ASSIGNMENT_SQL).
  const s = counts ? toSummary(counts as SessionCountsRecord) : await findSummary(db, institutionId, assignmentId);
  return { mode: proctoring, flags: { critical: s.critical, warning: s.warning, info: s.info }, reviewStatus: reviewStatusOf(s) };
}
