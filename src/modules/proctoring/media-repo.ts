import type { Queryable, Tx } from '../../platform/db.js';

/**
 * SQL for the rows that point at stored files: recording segments and
 * snapshots. A row holds the object's storage key and size, never its bytes.
 * Each insert also creates the attempt's session row when it is missing, so
 * the retention purge (which walks session rows) finds every file.
 */
export interface SegmentRow {
  seq: number;
  storageKey: string;
  sizeBytes: number;
  contentType: string;
  startedAt: Date;
  durationMs: number;
  /** The server's clock when the upload arrived; null for rows stored before migration 0016 kept it. */
  receivedAt: Date | null;
}

export interface SnapshotRow {
  id: string;
  flagId: string | null;
  storageKey: string;
  sizeBytes: number;
  takenAt: Date;
  /** The server's clock when the upload arrived; null for rows stored before migration 0016 kept it. */
  receivedAt: Date | null;
}

/** What an upload needs to decide: the attempt's submission time, and whether this seq is stored already. */
export async function segmentUploadState(
  db: Queryable,
  institutionId: string,
  assignmentId: string,
  seq: number,
): Promise<{ submittedAt: Date | null; deadlineAt: Date; stored: boolean } | null> {
  const { rows } = await db.query({
    name: 'proctoring-segment-state',
    text: `SELECT a.submitted_at, a.deadline_at, EXISTS (SELECT 1 FROM recording_segments s WHERE s.assignment_id = a.assignment_id AND s.seq = $3) AS stored
             FROM attempts a WHERE a.assignment_id = $1 AND a.institution_id = $2`,
    values: [assignmentId, institutionId, seq],
  });
  return rows[0] ? { submittedAt: rows[0].submitted_at, deadlineAt: rows[0].deadline_at, stored: rows[0].stored } : null;
}

/** Inserts the segment unless its seq is stored already; true when this call stored it. */
export async function insertSegment(db: Queryable, institutionId: string, assignmentId: string, s: Omit<SegmentRow, 'receivedAt'>, now: Date): Promise<boolean> {
  const { rows } = await db.query({
    name: 'proctoring-insert-segment',
    text: `WITH session AS (
       INSERT INTO proctoring_sessions (assignment_id, institution_id, created_at) VALUES ($1, $2, $8) ON CONFLICT (assignment_id) DO NOTHING
     )
     INSERT INTO recording_segments (institution_id, assignment_id, seq, storage_key, size_bytes, content_type, started_at, duration_ms, created_at, received_at)
     VALUES ($2, $1, $3, $4, $5, $6, $7, $9, $8, $8)
     ON CONFLICT (assignment_id, seq) DO NOTHING
     RETURNING seq`,
    values: [assignmentId, institutionId, s.seq, s.storageKey, s.sizeBytes, s.contentType, s.startedAt, now, s.durationMs],
  });
  return rows.length > 0;
}

/** The first segment number not stored yet for the attempt (one past the highest; 0 when none). */
export async function nextSegmentSeq(db: Queryable, institutionId: string, assignmentId: string): Promise<number> {
  const { rows } = await db.query<{ n: number }>(
    'SELECT COALESCE(max(seq) + 1, 0)::int AS n FROM recording_segments WHERE assignment_id = $1 AND institution_id = $2',
    [assignmentId, institutionId],
  );
  return rows[0]!.n;
}

export async function listSegments(db: Queryable, institutionId: string, assignmentId: string): Promise<SegmentRow[]> {
  const { rows } = await db.query(
    `SELECT seq, storage_key, size_bytes, content_type, started_at, duration_ms, received_at FROM recording_segments
      WHERE institution_id = $1 AND assignment_id = $2 ORDER BY seq`,
    [institutionId, assignmentId],
  );
  return rows.map((r) => ({
    seq: r.seq,
    storageKey: r.storage_key,
    sizeBytes: r.size_bytes,
    contentType: r.content_type,
    startedAt: r.started_at,
    durationMs: r.duration_ms,
    receivedAt: r.received_at,
  }));
}

export async function findSnapshotByClientId(db: Queryable, institutionId: string, assignmentId: string, clientId: string): Promise<string | null> {
  const { rows } = await db.query('SELECT id FROM proctoring_snapshots WHERE assignment_id = $1 AND institution_id = $2 AND client_id = $3', [
    assignmentId,
    institutionId,
    clientId,
  ]);
  return rows[0]?.id ?? null;
}

/** Inserts the snapshot unless one with the same client id is stored; returns the stored snapshot's id either way. */
export async function insertSnapshot(
  tx: Tx,
  institutionId: string,
  assignmentId: string,
  s: Omit<SnapshotRow, 'receivedAt'> & { clientId: string | null },
  now: Date,
): Promise<{ id: string; created: boolean }> {
  await tx.query(
    `INSERT INTO proctoring_sessions (assignment_id, institution_id, created_at) VALUES ($1, $2, $3) ON CONFLICT (assignment_id) DO NOTHING`,
    [assignmentId, institutionId, now],
  );
  const { rows } = await tx.query(
    `INSERT INTO proctoring_snapshots (id, institution_id, assignment_id, client_id, flag_id, storage_key, size_bytes, taken_at, created_at, received_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $9)
     ON CONFLICT (assignment_id, client_id) DO NOTHING RETURNING id`,
    [s.id, institutionId, assignmentId, s.clientId, s.flagId, s.storageKey, s.sizeBytes, s.takenAt, now],
  );
  if (rows[0]) return { id: s.id, created: true };
  return { id: (await findSnapshotByClientId(tx, institutionId, assignmentId, s.clientId!))!, created: false };
}

/** Makes the snapshot a flag's evidence, unless the flag has evidence already. */
export async function attachEvidence(tx: Tx, institutionId: string, assignmentId: string, flagId: string, snapshotId: string): Promise<void> {
  await tx.query(
    `UPDATE proctoring_flags SET evidence_snapshot_id = $4 WHERE id = $3 AND assignment_id = $1 AND institution_id = $2 AND evidence_snapshot_id IS NULL`,
    [assignmentId, institutionId, flagId, snapshotId],
  );
}

export async function flagExists(db: Queryable, institutionId: string, assignmentId: string, flagId: string): Promise<boolean> {
  const { rows } = await db.query('SELECT 1 FROM proctoring_flags WHERE id = $1 AND assignment_id = $2 AND institution_id = $3', [
    flagId,
    assignmentId,
    institutionId,
  ]);
  return rows.length > 0;
}

export async function listSnapshots(db: Queryable, institutionId: string, assignmentId: string): Promise<SnapshotRow[]> {
  const { rows } = await db.query(
    `SELECT id, flag_id, storage_key, size_bytes, taken_at, received_at FROM proctoring_snapshots
      WHERE institution_id = $1 AND assignment_id = $2 ORDER BY taken_at, id`,
    [institutionId, assignmentId],
  );
  return rows.map((r) => ({ id: r.id, flagId: r.flag_id, storageKey: r.storage_key, sizeBytes: r.size_bytes, takenAt: r.taken_at, receivedAt: r.received_at }));
}
