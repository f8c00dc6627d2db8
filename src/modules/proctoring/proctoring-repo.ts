import type { Queryable, Tx } from '../../platform/db.js';
import type { FlagKind, ReviewOutcome, Severity } from './rules.js';
import { toSummary, type SessionCountsRecord, type Summary } from '../assignments/proctoring-summary.js';

/**
 * SQL of the proctoring module. Every query names the institution. Writes
 * that touch an attempt's flags hold its session row's lock (lockSession)
 * first, so the flags of one attempt change one transaction at a time; the
 * lock order everywhere is attempt (share), session, then assignment (taken
 * by appendEvent).
 */
export interface FlagRow {
  id: string;
  signalId: string | null;
  kind: FlagKind;
  severity: Severity;
  startedAt: Date;
  durationSeconds: number;
  ongoing: boolean;
  occurrence: number | null;
  evidenceSnapshotId: string | null;
  violationEventId: string | null;
  reviewOutcome: ReviewOutcome | null;
  reviewNote: string | null;
  reviewedBy: string | null;
  reviewedAt: Date | null;
}

const FLAG_COLUMNS = `id, signal_id, kind, severity, started_at, duration_seconds, ongoing, occurrence, evidence_snapshot_id,
  violation_event_id, review_outcome, review_note, reviewed_by, reviewed_at`;

/** A row of FLAG_COLUMNS as pg returns it. */
type FlagRecord = {
  id: string;
  signal_id: string | null;
  kind: FlagKind;
  severity: Severity;
  started_at: Date;
  duration_seconds: number;
  ongoing: boolean;
  occurrence: number | null;
  evidence_snapshot_id: string | null;
  violation_event_id: string | null;
  review_outcome: ReviewOutcome | null;
  review_note: string | null;
  reviewed_by: string | null;
  reviewed_at: Date | null;
};

function toFlag(r: FlagRecord): FlagRow {
  return {
    id: r.id,
    signalId: r.signal_id,
    kind: r.kind,
    severity: r.severity,
    startedAt: r.started_at,
    durationSeconds: r.duration_seconds,
    ongoing: r.ongoing,
    occurrence: r.occurrence,
    evidenceSnapshotId: r.evidence_snapshot_id,
    violationEventId: r.violation_event_id,
    reviewOutcome: r.review_outcome,
    reviewNote: r.review_note,
    reviewedBy: r.reviewed_by,
    reviewedAt: r.reviewed_at,
  };
}

/** Share-locks the attempt while it is running: null once submitted (or unknown). */
export async function lockOpenAttempt(tx: Tx, institutionId: string, assignmentId: string): Promise<{ startedAt: Date } | null> {
  const { rows } = await tx.query(
    'SELECT started_at FROM attempts WHERE assignment_id = $1 AND institution_id = $2 AND submitted_at IS NULL FOR SHARE',
    [assignmentId, institutionId],
  );
  return rows[0] ? { startedAt: rows[0].started_at } : null;
}

export interface SessionRow {
  lastHeartbeatAt: Date | null;
  interruptedFlagId: string | null;
  reviewedAt: Date | null;
  purgedAt: Date | null;
}

/** Creates the attempt's session row if missing, then locks it. */
export async function lockSession(tx: Tx, institutionId: string, assignmentId: string, now: Date): Promise<SessionRow> {
  await tx.query(
    `INSERT INTO proctoring_sessions (assignment_id, institution_id, created_at) VALUES ($1, $2, $3) ON CONFLICT (assignment_id) DO NOTHING`,
    [assignmentId, institutionId, now],
  );
  const { rows } = await tx.query(
    `SELECT last_heartbeat_at, interrupted_flag_id, reviewed_at, purged_at FROM proctoring_sessions
      WHERE assignment_id = $1 AND institution_id = $2 FOR UPDATE`,
    [assignmentId, institutionId],
  );
  const r = rows[0]!;
  return { lastHeartbeatAt: r.last_heartbeat_at, interruptedFlagId: r.interrupted_flag_id, reviewedAt: r.reviewed_at, purgedAt: r.purged_at };
}

/**
 * Whether the attempt is open, and the interruption flag its next heartbeat
 * must close: what the heartbeat coalescer reads once per attempt (and again
 * after a status change) instead of writing on every beat. Null: no open attempt.
 */
export async function openAttemptState(db: Queryable, institutionId: string, assignmentId: string): Promise<{ interruptedFlagId: string | null } | null> {
  const { rows } = await db.query({
    name: 'proctoring-open-attempt-state',
    text: `SELECT s.interrupted_flag_id FROM attempts a LEFT JOIN proctoring_sessions s ON s.assignment_id = a.assignment_id
            WHERE a.assignment_id = $1 AND a.institution_id = $2 AND a.submitted_at IS NULL`,
    values: [assignmentId, institutionId],
  });
  return rows[0] ? { interruptedFlagId: rows[0].interrupted_flag_id } : null;
}

export interface CoalescedBeat {
  assignmentId: string;
  institutionId: string;
  /** The latest heartbeat of the attempt that this process received since its last flush. */
  seenAt: Date;
  cameraActive: boolean;
  fullscreen: boolean | null;
}

/**
 * The heartbeat coalescer's flush: the latest time (and camera and
 * full-screen state) of every attempt that beat since the last one, in one
 * statement, for the attempts still open (share-locked, as a submission
 * takes the update lock, so no time lands after it; in assignment order, so
 * two processes flushing the same attempts lock them in the same order).
 * Another process may have written a later beat of the same attempt: the
 * time only moves forward, and the state follows the later beat. Returns the
 * open attempts written, with the interruption flag each must now close.
 */
export async function flushHeartbeats(db: Queryable, beats: CoalescedBeat[]): Promise<Map<string, string | null>> {
  const rows = beats
    .map((b) => ({ assignment_id: b.assignmentId, institution_id: b.institutionId, seen_at: b.seenAt.toISOString(), camera_active: b.cameraActive, fullscreen: b.fullscreen }))
    .sort((x, y) => (x.assignment_id < y.assignment_id ? -1 : 1));
  const { rows: written } = await db.query<{ assignment_id: string; interrupted_flag_id: string | null }>({
    name: 'proctoring-flush-heartbeats',
    text: `WITH open AS (
       SELECT b.assignment_id, b.institution_id, b.seen_at, b.camera_active, b.fullscreen
         FROM jsonb_to_recordset($1::jsonb) AS b(assignment_id text, institution_id text, seen_at timestamptz, camera_active boolean, fullscreen boolean)
         JOIN attempts a ON a.assignment_id = b.assignment_id AND a.institution_id = b.institution_id AND a.submitted_at IS NULL
        ORDER BY b.assignment_id FOR SHARE OF a
     )
     INSERT INTO proctoring_sessions AS s (assignment_id, institution_id, last_heartbeat_at, camera_active, fullscreen, created_at)
     SELECT assignment_id, institution_id, seen_at, camera_active, fullscreen, seen_at FROM open ORDER BY assignment_id
     ON CONFLICT (assignment_id) DO UPDATE
        SET last_heartbeat_at = GREATEST(s.last_heartbeat_at, EXCLUDED.last_heartbeat_at),
            camera_active = CASE WHEN s.last_heartbeat_at > EXCLUDED.last_heartbeat_at THEN s.camera_active ELSE EXCLUDED.camera_active END,
            fullscreen = CASE WHEN s.last_heartbeat_at > EXCLUDED.last_heartbeat_at THEN s.fullscreen ELSE EXCLUDED.fullscreen END
      WHERE s.institution_id = EXCLUDED.institution_id
     RETURNING assignment_id, interrupted_flag_id`,
    values: [JSON.stringify(rows)],
  });
  return new Map(written.map((r) => [r.assignment_id, r.interrupted_flag_id]));
}

/** The heartbeat's time and the page's camera and full-screen state, on a session row the caller has locked. */
export async function recordHeartbeatTime(tx: Tx, assignmentId: string, a: { now: Date; cameraActive: boolean; fullscreen: boolean | null }): Promise<void> {
  await tx.query(
    'UPDATE proctoring_sessions SET last_heartbeat_at = GREATEST(last_heartbeat_at, $2), camera_active = $3, fullscreen = $4 WHERE assignment_id = $1',
    [assignmentId, a.now, a.cameraActive, a.fullscreen],
  );
}

export async function setInterruptedFlag(tx: Tx, assignmentId: string, flagId: string | null): Promise<void> {
  await tx.query('UPDATE proctoring_sessions SET interrupted_flag_id = $2 WHERE assignment_id = $1', [assignmentId, flagId]);
}

export async function flagsBySignal(tx: Tx, institutionId: string, assignmentId: string, signalIds: string[]): Promise<Map<string, FlagRow>> {
  const { rows } = await tx.query<FlagRecord>(
    `SELECT ${FLAG_COLUMNS} FROM proctoring_flags WHERE assignment_id = $1 AND institution_id = $2 AND signal_id = ANY($3)`,
    [assignmentId, institutionId, signalIds],
  );
  return new Map(rows.map((r) => [r.signal_id as string, toFlag(r)]));
}

export async function flagsById(db: Queryable, institutionId: string, assignmentId: string, ids: string[]): Promise<Map<string, FlagRow>> {
  const { rows } = await db.query<FlagRecord>(`SELECT ${FLAG_COLUMNS} FROM proctoring_flags WHERE assignment_id = $1 AND institution_id = $2 AND id = ANY($3)`, [
    assignmentId,
    institutionId,
    ids,
  ]);
  return new Map(rows.map((r) => [r.id, toFlag(r)]));
}

export async function countFlagsOfKind(tx: Tx, institutionId: string, assignmentId: string, kind: FlagKind): Promise<number> {
  const { rows } = await tx.query<{ n: number }>(
    'SELECT count(*)::int AS n FROM proctoring_flags WHERE assignment_id = $1 AND institution_id = $2 AND kind = $3',
    [assignmentId, institutionId, kind],
  );
  return rows[0]!.n;
}

/** Inserts a flag or replaces the mutable part of an existing one (same id). */
export async function saveFlag(tx: Tx, institutionId: string, assignmentId: string, f: FlagRow, now: Date): Promise<void> {
  await tx.query(
    `INSERT INTO proctoring_flags (id, institution_id, assignment_id, signal_id, kind, severity, started_at, duration_seconds, ongoing,
                                   occurrence, evidence_snapshot_id, violation_event_id, created_at, updated_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $13)
     ON CONFLICT (id) DO UPDATE SET severity = EXCLUDED.severity, duration_seconds = EXCLUDED.duration_seconds,
        ongoing = EXCLUDED.ongoing, violation_event_id = EXCLUDED.violation_event_id, updated_at = EXCLUDED.updated_at
      WHERE proctoring_flags.institution_id = EXCLUDED.institution_id`,
    [f.id, institutionId, assignmentId, f.signalId, f.kind, f.severity, f.startedAt, f.durationSeconds, f.ongoing, f.occurrence, f.evidenceSnapshotId, f.violationEventId, now],
  );
}

export async function saveReview(
  tx: Tx,
  institutionId: string,
  flagId: string,
  r: { outcome: ReviewOutcome; note: string; reviewer: string; now: Date },
): Promise<void> {
  await tx.query(
    `UPDATE proctoring_flags SET review_outcome = $3, review_note = $4, reviewed_by = $5, reviewed_at = $6, updated_at = $6
      WHERE id = $1 AND institution_id = $2`,
    [flagId, institutionId, r.outcome, r.note, r.reviewer, r.now],
  );
}

/** Recounts the attempt's flags into its session row (in the transaction that changed them) and returns the counts. */
export async function refreshSummary(tx: Tx, institutionId: string, assignmentId: string): Promise<Summary> {
  const { rows } = await tx.query<SessionCountsRecord>(
    `UPDATE proctoring_sessions s SET flags_critical = c.critical, flags_warning = c.warning, flags_info = c.info,
            critical_unreviewed = c.unreviewed, confirmed = c.confirmed, dismissed = c.dismissed
       FROM (SELECT count(*) FILTER (WHERE severity = 'critical')::int AS critical,
                    count(*) FILTER (WHERE severity = 'warning')::int AS warning,
                    count(*) FILTER (WHERE severity = 'info')::int AS info,
                    count(*) FILTER (WHERE severity = 'critical' AND review_outcome IS NULL)::int AS unreviewed,
                    count(*) FILTER (WHERE severity = 'critical' AND review_outcome = 'confirmed')::int AS confirmed,
                    count(*) FILTER (WHERE severity = 'critical' AND review_outcome = 'dismissed')::int AS dismissed
               FROM proctoring_flags WHERE assignment_id = $1 AND institution_id = $2) c
      WHERE s.assignment_id = $1 AND s.institution_id = $2
      RETURNING s.flags_critical, s.flags_warning, s.flags_info, s.critical_unreviewed, s.confirmed, s.dismissed`,
    [assignmentId, institutionId],
  );
  return toSummary(rows[0]);
}

export async function markReviewed(tx: Tx, assignmentId: string, now: Date): Promise<void> {
  await tx.query('UPDATE proctoring_sessions SET reviewed_at = $2 WHERE assignment_id = $1', [assignmentId, now]);
}

export interface SessionView extends Summary {
  lastHeartbeatAt: Date | null;
  cameraActive: boolean | null;
  fullscreen: boolean | null;
  purgedAt: Date | null;
}

export async function findSessionView(db: Queryable, institutionId: string, assignmentId: string): Promise<SessionView | null> {
  const { rows } = await db.query<SessionCountsRecord & { last_heartbeat_at: Date | null; camera_active: boolean | null; fullscreen: boolean | null; purged_at: Date | null }>(
    `SELECT last_heartbeat_at, camera_active, fullscreen, purged_at, flags_critical, flags_warning, flags_info, critical_unreviewed, confirmed, dismissed
       FROM proctoring_sessions WHERE assignment_id = $1 AND institution_id = $2`,
    [assignmentId, institutionId],
  );
  const r = rows[0];
  if (!r) return null;
  // Object.assign, not a spread given new keys, which makes new hidden classes per call (docs/performance.md).
  return Object.assign({}, toSummary(r), { lastHeartbeatAt: r.last_heartbeat_at, cameraActive: r.camera_active, fullscreen: r.fullscreen, purgedAt: r.purged_at });
}

export async function listFlags(db: Queryable, institutionId: string, assignmentId: string): Promise<FlagRow[]> {
  const { rows } = await db.query<FlagRecord>(
    `SELECT ${FLAG_COLUMNS} FROM proctoring_flags WHERE institution_id = $1 AND assignment_id = $2 ORDER BY started_at, id`,
    [institutionId, assignmentId],
  );
  return rows.map(toFlag);
}
