import type { Queryable } from '../../platform/db.js';
import { cachedTestVersion, loadTestVersion } from '../catalog/test-versions.js';
import type { ProctoredMode } from '../catalog/test-settings.js';

/** The flag counts kept on an attempt's proctoring_sessions row. */
export interface Summary {
  critical: number;
  warning: number;
  info: number;
  criticalUnreviewed: number;
  confirmed: number;
  dismissed: number;
}

/** The count columns of a proctoring_sessions row; null where a left join found no session (the partner read). */
export type SessionCountsRecord = {
  flags_critical: number | null;
  flags_warning: number | null;
  flags_info: number | null;
  critical_unreviewed: number | null;
  confirmed: number | null;
  dismissed: number | null;
};

/** The counts of a proctoring_sessions row (or of none: zeros), also as selected by the partner read's join. */
export function toSummary(r: SessionCountsRecord | undefined): Summary {
  return {
    critical: r?.flags_critical ?? 0,
    warning: r?.flags_warning ?? 0,
    info: r?.flags_info ?? 0,
    criticalUnreviewed: r?.critical_unreviewed ?? 0,
    confirmed: r?.confirmed ?? 0,
    dismissed: r?.dismissed ?? 0,
  };
}

/** The partner read's one extra query: the session's counts (zeros when the attempt has no session yet). */
export async function findSummary(db: Queryable, institutionId: string, assignmentId: string): Promise<Summary> {
  const { rows } = await db.query<SessionCountsRecord>({
    name: 'proctoring-find-summary',
    text: `SELECT flags_critical, flags_warning, flags_info, critical_unreviewed, confirmed, dismissed
             FROM proctoring_sessions WHERE assignment_id = $1 AND institution_id = $2`,
    values: [assignmentId, institutionId],
  });
  return toSummary(rows[0]);
}

export const REVIEW_STATUSES = ['not_required', 'pending', 'reviewed'] as const;
export type ReviewStatus = (typeof REVIEW_STATUSES)[number];

/** The partner read's reviewStatus: nothing critical, some critical flag unreviewed, or every one reviewed. */
export function reviewStatusOf(counts: { critical: number; criticalUnreviewed: number }): ReviewStatus {
  if (counts.critical === 0) return 'not_required';
  return counts.criticalUnreviewed > 0 ? 'pending' : 'reviewed';
}

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
  counts?: SessionCountsRecord,
): Promise<PartnerProctoring | null> {
  const { proctoring } = await loadTestVersion(db, testVersionId);
  if (proctoring === 'none') return null;
  // The partner read's statement selects the session's count columns beside the assignment's (READ_ASSIGNMENT_SQL).
  return summaryOf(proctoring, counts ? toSummary(counts) : await findSummary(db, institutionId, assignmentId));
}

/**
 * proctoringSummary without a promise, for a read that has the session's counts and whose version this
 * process holds (cachedTestVersion): undefined when it has not, and the caller takes the path above.
 */
export function proctoringSummaryAtHand(testVersionId: string, counts: SessionCountsRecord): PartnerProctoring | null | undefined {
  const version = cachedTestVersion(testVersionId);
  if (!version) return undefined;
  return version.proctoring === 'none' ? null : summaryOf(version.proctoring, toSummary(counts));
}

function summaryOf(mode: ProctoredMode, s: ReturnType<typeof toSummary>): PartnerProctoring {
  return { mode, flags: { critical: s.critical, warning: s.warning, info: s.info }, reviewStatus: reviewStatusOf(s) };
}
