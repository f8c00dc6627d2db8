import { readAll } from '../../platform/db.js';
import type { AppContext } from '../../platform/context.js';
import { notFound } from '../../platform/errors.js';
import { findAssignment, findAssignmentById } from '../assignments/find-assignment.js';
import { loadTestVersion } from '../catalog/test-versions.js';
import { fileUrlIssuer } from './file-urls.js';
import { listSegments, listSnapshots } from './media-repo.js';
import { findSessionView, listFlags, type FlagRow } from './proctoring-repo.js';
import { resolveRules, type ProctoringRules } from '../catalog/proctoring-rules.js';
import type { ProctoringMode } from '../catalog/test-settings.js';
import { type FlagKind, type ReviewOutcome, type Severity } from './rules.js';
import { reviewStatusOf, type ReviewStatus } from '../assignments/proctoring-summary.js';

/**
 * An attempt's proctoring record for reviewers (operator API, and the staff
 * portal later) and partners: the flags timeline with review outcomes and
 * evidence, the recording's segments in seq order, and the snapshots, each
 * file behind a signed URL valid for 15 minutes. Service functions take the
 * institution: another tenant's assignment is not found.
 */
export interface FlagView {
  id: string;
  kind: FlagKind;
  severity: Severity;
  startedAt: Date;
  durationSeconds: number;
  ongoing: boolean;
  evidence: { snapshot: boolean; snapshotId: string | null; url: string | null };
  review: null | { outcome: ReviewOutcome; note: string; reviewedAt: Date; reviewer: string | null };
}

export interface ProctoringReport {
  assignmentId: string;
  mode: ProctoringMode;
  rules: ProctoringRules | null;
  summary: { critical: number; warning: number; info: number; confirmed: number; dismissed: number; reviewStatus: ReviewStatus };
  lastHeartbeatAt: Date | null;
  purgedAt: Date | null;
  urlsExpireAt: Date;
  flags: FlagView[];
  recording: {
    segmentCount: number;
    totalDurationMs: number;
    totalBytes: number;
    segments: Array<{ seq: number; startedAt: Date; receivedAt: Date | null; durationMs: number; sizeBytes: number; contentType: string; url: string }>;
  };
  snapshots: Array<{ snapshotId: string; takenAt: Date; receivedAt: Date | null; flagId: string | null; sizeBytes: number; url: string }>;
}

/** `livemode`: a partner key's mode (an assignment of the other mode is 404); staff and operators pass nothing. */
export async function getProctoringReport(ctx: AppContext, institutionId: string, assignmentId: string, livemode?: boolean): Promise<ProctoringReport> {
  const row = await findAssignment(ctx.pool, institutionId, assignmentId, livemode);
  if (!row) throw notFound('assignment');
  const test = await loadTestVersion(ctx.pool, row.testVersionId);
  const urls = fileUrlIssuer(ctx.config, ctx.clock.now());
  const [session, flags, segments, snapshots] =
    test.proctoring === 'none'
      ? [null, [], [], []]
      : await readAll(ctx.pool, [
          () => findSessionView(ctx.pool, institutionId, assignmentId),
          () => listFlags(ctx.pool, institutionId, assignmentId),
          () => listSegments(ctx.pool, institutionId, assignmentId),
          () => listSnapshots(ctx.pool, institutionId, assignmentId),
        ] as const);
  const snapshotKeys = new Map(snapshots.map((s) => [s.id, s.storageKey]));
  const counts = session ?? { critical: 0, warning: 0, info: 0, criticalUnreviewed: 0, confirmed: 0, dismissed: 0 };
  return {
    assignmentId,
    mode: test.proctoring,
    rules: test.proctoring === 'none' ? null : resolveRules(test.proctoringRules),
    summary: {
      critical: counts.critical,
      warning: counts.warning,
      info: counts.info,
      confirmed: counts.confirmed,
      dismissed: counts.dismissed,
      reviewStatus: reviewStatusOf(counts),
    },
    lastHeartbeatAt: session?.lastHeartbeatAt ?? null,
    purgedAt: session?.purgedAt ?? null,
    urlsExpireAt: urls.expiresAt,
    flags: flags.map((f) => flagView(f, snapshotKeys, urls.url)),
    recording: {
      segmentCount: segments.length,
      totalDurationMs: segments.reduce((sum, s) => sum + s.durationMs, 0),
      totalBytes: segments.reduce((sum, s) => sum + s.sizeBytes, 0),
      segments: segments.map((s) => ({
        seq: s.seq,
        startedAt: s.startedAt,
        receivedAt: s.receivedAt,
        durationMs: s.durationMs,
        sizeBytes: s.sizeBytes,
        contentType: s.contentType,
        url: urls.url(s.storageKey, s.contentType),
      })),
    },
    snapshots: snapshots.map((s) => ({ snapshotId: s.id, takenAt: s.takenAt, receivedAt: s.receivedAt, flagId: s.flagId, sizeBytes: s.sizeBytes, url: urls.url(s.storageKey, 'image/jpeg') })),
  };
}

function flagView(f: FlagRow, snapshotKeys: Map<string, string>, url: (key: string, type: string) => string): FlagView {
  const evidenceKey = f.evidenceSnapshotId ? snapshotKeys.get(f.evidenceSnapshotId) : undefined;
  return {
    id: f.id,
    kind: f.kind,
    severity: f.severity,
    startedAt: f.startedAt,
    durationSeconds: f.durationSeconds,
    ongoing: f.ongoing,
    evidence: { snapshot: evidenceKey !== undefined, snapshotId: evidenceKey ? f.evidenceSnapshotId : null, url: evidenceKey ? url(evidenceKey, 'image/jpeg') : null },
    review: f.reviewOutcome ? { outcome: f.reviewOutcome, note: f.reviewNote ?? '', reviewedAt: f.reviewedAt!, reviewer: f.reviewedBy } : null,
  };
}

/** The operator's entry: operators act for every institution, so the assignment names its own. */
export async function institutionOfAssignment(ctx: AppContext, assignmentId: string): Promise<string> {
  const row = await findAssignmentById(ctx.pool, assignmentId);
  if (!row) throw notFound('assignment');
  return row.institutionId;
}

export async function getProctoringReportForOperator(ctx: AppContext, assignmentId: string): Promise<ProctoringReport> {
  return getProctoringReport(ctx, await institutionOfAssignment(ctx, assignmentId), assignmentId);
}
