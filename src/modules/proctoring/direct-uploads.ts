import type { AppContext } from '../../platform/context.js';
import { withTransaction, type Queryable } from '../../platform/db.js';
import { AppError, invalid, notFound } from '../../platform/errors.js';
import { newId } from '../../platform/ids.js';
import type { PresignedPut } from '../../platform/storage/object-store.js';
import { storageFor } from '../../platform/storage/storage.js';
import type { StudentSession } from '../assignments/student-sessions.js';
import { findAttempt } from '../attempts/find-attempt.js';
import { findSnapshotByClientId, flagExists, segmentUploadState } from './media-repo.js';
import { acceptsUpload, checkCaptureTime, proctoredAttemptOf, refusedAfterSubmission } from './proctored-attempt.js';
import { recordStoredSegment, SEGMENT_CHECK_BYTES, SEGMENT_MAX_BYTES, segmentContentError, segmentKey } from './store-segment.js';
import { recordStoredSnapshot, SNAPSHOT_MAX_BYTES, snapshotContentError, snapshotKey } from './store-snapshot.js';

/**
 * Direct uploads, when storage is S3: the page asks for a presigned PUT of
 * one object (its key chosen here, under the attempt's prefix; its length
 * and type signed, so S3 refuses any other), PUTs the bytes straight to the
 * bucket, then asks for it to be recorded. The API never receives the
 * bytes: it checks the object with a HEAD (the declared size) and a ranged
 * GET of its first bytes (the same content checks as the through-API
 * upload), then writes the same row the through-API upload writes.
 *
 * Every presigned request is a row of pending_uploads, written before the
 * URL is handed out; recording deletes it. A page that died between its PUT
 * and the record leaves the row, and the worker's sweep (sweepPendingUploads)
 * records the object after the row expires if it passes the checks, and
 * deletes it otherwise: nothing accepted is lost, nothing unchecked stays.
 *
 * Capture times are checked when the upload is presigned (as the
 * through-API upload checks its headers); whether the attempt still takes
 * it is judged at the time the object was written (its Last-Modified), so
 * a segment put in time and recorded by the sweep later is kept.
 */
export type DirectUploadIntent =
  | { kind: 'segment'; bytes: number; seq: number; startedAt: Date; durationMs: number }
  | { kind: 'snapshot'; bytes: number; takenAt: Date; flagId: string | null; clientId: string | null };

export type Presigned =
  | { direct: true; key: string; upload: PresignedPut; expiresAt: string }
  /** Stored already (a retry): nothing to put. */
  | { direct: false; seq: number; stored: false }
  | { direct: false; snapshotId: string; stored: false };

export type Recorded = { kind: 'segment'; seq: number; stored: boolean } | { kind: 'snapshot'; snapshotId: string; stored: boolean };

interface PendingRow {
  storage_key: string;
  institution_id: string;
  assignment_id: string;
  kind: 'segment' | 'snapshot';
  declared_bytes: number;
  content_type: string;
  meta: { seq?: number; startedAt?: string; durationMs?: number; takenAt?: string; flagId?: string | null; clientId?: string | null; snapshotId?: string };
  expires_at: Date;
}

function tooLarge(limit: number): AppError {
  return new AppError('payload_too_large', `The upload is larger than the limit of ${limit / 1024} KiB for this kind.`);
}

export async function presignDirectUpload(ctx: AppContext, session: StudentSession, assignmentId: string, intent: DirectUploadIntent): Promise<Presigned> {
  const storage = storageFor(ctx.config);
  if (storage.kind !== 's3' || !storage.presignPut) {
    throw new AppError('invalid_state', 'Direct uploads need S3 storage; this service takes uploads through its own upload routes.');
  }
  const attempt = await proctoredAttemptOf(ctx, session, assignmentId);
  const { institutionId } = attempt;
  const now = ctx.clock.now();
  let key: string;
  let contentType: string;
  let meta: PendingRow['meta'];
  if (intent.kind === 'segment') {
    if (intent.bytes > SEGMENT_MAX_BYTES) throw tooLarge(SEGMENT_MAX_BYTES);
    const state = await segmentUploadState(ctx.pool, institutionId, assignmentId, intent.seq);
    if (!state) throw notFound('assignment');
    if (state.stored) return { direct: false, seq: intent.seq, stored: false };
    checkCaptureTime('startedAt', intent.startedAt, { startedAt: attempt.startedAt, submittedAt: state.submittedAt, deadlineAt: state.deadlineAt }, now);
    if (!acceptsUpload(state.submittedAt, intent.startedAt, now)) throw refusedAfterSubmission();
    key = segmentKey(institutionId, assignmentId, intent.seq);
    contentType = 'video/webm';
    meta = { seq: intent.seq, startedAt: intent.startedAt.toISOString(), durationMs: intent.durationMs };
  } else {
    if (intent.bytes > SNAPSHOT_MAX_BYTES) throw tooLarge(SNAPSHOT_MAX_BYTES);
    if (intent.clientId) {
      const seen = await findSnapshotByClientId(ctx.pool, institutionId, assignmentId, intent.clientId);
      if (seen) return { direct: false, snapshotId: seen, stored: false };
    }
    const row = await findAttempt(ctx.pool, institutionId, assignmentId);
    if (!row) throw refusedAfterSubmission();
    checkCaptureTime('takenAt', intent.takenAt, row, now);
    if (!acceptsUpload(row.submittedAt, intent.takenAt, now)) throw refusedAfterSubmission();
    if (intent.flagId && !(await flagExists(ctx.pool, institutionId, assignmentId, intent.flagId))) throw invalid('flagId', 'is not a flag of this attempt');
    const snapshotId = newId('snp');
    key = snapshotKey(institutionId, assignmentId, snapshotId);
    contentType = 'image/jpeg';
    meta = { snapshotId, takenAt: intent.takenAt.toISOString(), flagId: intent.flagId, clientId: intent.clientId };
  }
  const expiresAt = new Date(now.getTime() + ctx.config.directUploadSeconds * 1000);
  // Signed before the intent is written, not inside a transaction (as answer files are, direct-answer-files.ts):
  // signing may wait (the first call loads the AWS SDK, credentials may be fetched), and a transaction open
  // meanwhile would hold a pool connection for every camera of a class that starts together. The URL leaves
  // only once its intent is on record, so an object under this key is always found by the sweep.
  const upload = await storage.presignPut!(key, intent.bytes, contentType, ctx.config.directUploadSeconds);
  await ctx.pool.query(
    `INSERT INTO pending_uploads (storage_key, institution_id, assignment_id, kind, declared_bytes, content_type, meta, created_at, expires_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)`,
    [key, institutionId, assignmentId, intent.kind, intent.bytes, contentType, JSON.stringify(meta), now, expiresAt],
  );
  return { direct: true, key, upload, expiresAt: expiresAt.toISOString() };
}

/** The page's record call: its own attempt's pending upload, checked and recorded; recording twice answers the first. */
export async function recordDirectUpload(ctx: AppContext, session: StudentSession, assignmentId: string, key: string): Promise<Recorded> {
  const attempt = await proctoredAttemptOf(ctx, session, assignmentId);
  const outcome = await settle(ctx, { institutionId: attempt.institutionId, assignmentId, key }, 'page');
  if (outcome === 'missing') {
    throw new AppError('invalid_state', 'The object is not in storage yet: PUT it with the presigned request first, then record it.');
  }
  return outcome;
}

/**
 * Pending uploads past their expiry (the presigned request can no longer be
 * used, so the object is final): each recorded when its object passes the
 * checks, otherwise the object and the row deleted.
 */
export async function sweepPendingUploads(ctx: AppContext, batch = 100): Promise<{ recorded: number; deleted: number }> {
  const now = ctx.clock.now();
  let recorded = 0;
  let deleted = 0;
  const { rows } = await ctx.pool.query<{ storage_key: string; institution_id: string; assignment_id: string; kind: string }>(
    'SELECT storage_key, institution_id, assignment_id, kind FROM pending_uploads WHERE expires_at < $1 ORDER BY expires_at LIMIT $2',
    [now, batch],
  );
  const storage = storageFor(ctx.config);
  for (const r of rows) {
    if (r.kind === 'answer_file') {
      // An answer file becomes the answer only when the page records it (the student sees it said so);
      // one the page never recorded is not the student's answer: its object and intent go.
      await storage.delete(r.storage_key);
      await ctx.pool.query('DELETE FROM pending_uploads WHERE storage_key = $1', [r.storage_key]);
      deleted++;
      continue;
    }
    try {
      const outcome = await settle(ctx, { institutionId: r.institution_id, assignmentId: r.assignment_id, key: r.storage_key }, 'sweep');
      if (outcome === 'missing' || !outcome.stored) deleted++;
      else recorded++;
    } catch (err) {
      if (!(err instanceof AppError)) throw err;
      deleted++;
    }
  }
  return { recorded, deleted };
}

/**
 * The row already written for this object, when it was recorded before. Looked up within the attempt:
 * the attempt's keys lead both tables' indexes, storage_key has none of its own.
 */
async function recordedAlready(db: Queryable, where: { institutionId: string; assignmentId: string; key: string }): Promise<Recorded | null> {
  const params = [where.key, where.institutionId, where.assignmentId];
  const seg = await db.query<{ seq: number }>('SELECT seq FROM recording_segments WHERE storage_key = $1 AND institution_id = $2 AND assignment_id = $3', params);
  if (seg.rows[0]) return { kind: 'segment', seq: seg.rows[0].seq, stored: false };
  const snap = await db.query<{ id: string }>('SELECT id FROM proctoring_snapshots WHERE storage_key = $1 AND institution_id = $2 AND assignment_id = $3', params);
  if (snap.rows[0]) return { kind: 'snapshot', snapshotId: snap.rows[0].id, stored: false };
  return null;
}

/**
 * Checks and records one pending upload under a lock on its row (two record
 * calls at once, or a call and the sweep, record it once). 'missing': no
 * object yet (the page is told to PUT first; the sweep deletes the row). A
 * refused object is deleted with its row, and the refusal thrown.
 */
async function settle(ctx: AppContext, where: { institutionId: string; assignmentId: string; key: string }, by: 'page' | 'sweep'): Promise<Recorded | 'missing'> {
  const storage = storageFor(ctx.config);
  // A refusal commits the row's deletion, then is thrown (throwing inside would roll it back).
  let refusal: AppError | null = null;
  const outcome = await withTransaction(ctx.pool, async (tx): Promise<Recorded | 'missing' | 'refused'> => {
    const { rows } = await tx.query<PendingRow>(
      // Answer files have their own record call (attempts/direct-answer-files.ts).
      `SELECT * FROM pending_uploads WHERE storage_key = $1 AND institution_id = $2 AND assignment_id = $3 AND kind IN ('segment', 'snapshot') FOR UPDATE`,
      [where.key, where.institutionId, where.assignmentId],
    );
    const row = rows[0];
    const done = await recordedAlready(tx, where);
    if (!row) {
      if (done) return done;
      throw notFound('upload');
    }
    const drop = () => tx.query('DELETE FROM pending_uploads WHERE storage_key = $1', [row.storage_key]);
    // A crash after the record's own commit left the row: the object is recorded, only the row goes.
    if (done) {
      await drop();
      return done;
    }
    const head = await storage.head(row.storage_key);
    if (!head) {
      if (by === 'sweep') await drop();
      return 'missing';
    }
    const refuse = async (err: AppError): Promise<'refused'> => {
      await storage.delete(row.storage_key);
      await drop();
      refusal = err;
      return 'refused';
    };
    if (head.size !== row.declared_bytes) {
      return refuse(invalid('key', `the stored object has ${head.size} bytes, not the ${row.declared_bytes} declared`));
    }
    const start = (await storage.readStart(row.storage_key, row.kind === 'segment' ? SEGMENT_CHECK_BYTES : 16)) ?? Buffer.alloc(0);
    const contentError = row.kind === 'segment' ? segmentContentError(start) : snapshotContentError(start);
    if (contentError) return refuse(contentError);
    const attempt = await findAttempt(tx, row.institution_id, row.assignment_id);
    const captured = new Date(row.kind === 'segment' ? row.meta.startedAt! : row.meta.takenAt!);
    if (!attempt || !acceptsUpload(attempt.submittedAt, captured, head.lastModified)) return refuse(refusedAfterSubmission());

    const now = ctx.clock.now();
    let recorded: Recorded;
    if (row.kind === 'segment') {
      const m = row.meta;
      const stored = await recordStoredSegment(ctx, row.institution_id, row.assignment_id, { seq: m.seq!, key: row.storage_key, size: head.size, startedAt: captured, durationMs: m.durationMs! }, now);
      recorded = { kind: 'segment', seq: m.seq!, stored };
    } else {
      const m = row.meta;
      const saved = await recordStoredSnapshot(
        ctx,
        row.institution_id,
        row.assignment_id,
        { id: m.snapshotId!, key: row.storage_key, size: head.size, takenAt: captured, flagId: m.flagId ?? null, clientId: m.clientId ?? null },
        now,
      );
      recorded = { kind: 'snapshot', snapshotId: saved.snapshotId, stored: saved.created };
    }
    await drop();
    return recorded;
  });
  if (outcome === 'refused') throw refusal!;
  return outcome;
}
