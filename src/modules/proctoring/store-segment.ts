import type { AppContext } from '../../platform/context.js';
import { AppError } from '../../platform/errors.js';
import { randomBase62 } from '../../platform/ids.js';
import { storageFor } from '../../platform/storage/storage.js';
import type { StudentSession } from '../assignments/student-sessions.js';
import { insertSegment, segmentUploadState } from './media-repo.js';
import { acceptsUpload, checkCaptureTime, proctoredAttemptOf, refusedAfterSubmission } from './proctored-attempt.js';

/**
 * One recording segment: a complete WebM file from its own MediaRecorder
 * start/stop, numbered by the page. Stored once per (attempt, seq): a
 * duplicate (a retry after a lost answer, a replay from the page's queue)
 * answers `stored: false` without writing anything, in any order.
 *
 * The file is written before its row: a row never points at a missing file.
 * Each upload writes under its own key (seq plus a random suffix), so two
 * racing uploads of one seq cannot overwrite each other's file; the one whose
 * row loses deletes its file. A process that dies between the two leaves a
 * file without a row, which the retention purge removes with its folder.
 */
export const SEGMENT_MAX_BYTES = 4 * 1024 * 1024;

/** Every WebM file starts with the EBML header's id. */
const EBML_MAGIC = Buffer.from([0x1a, 0x45, 0xdf, 0xa3]);
/**
 * The Tracks element's id: a recorder writes it with its first frame. A browser's MediaRecorder stopped
 * before any frame arrived (a segment begun a moment before Submit, a starved camera) hands over the EBML
 * header alone, which no player can open: it holds no moment of the test. Tracks precede the first
 * cluster, so it is looked for where the page and the record page look: the file's first 64 KiB.
 */
const TRACKS_ID = Buffer.from([0x16, 0x54, 0xae, 0x6b]);

export function proctoringPrefix(institutionId: string, assignmentId: string): string {
  return `proctoring/${institutionId}/${assignmentId}/`;
}

export interface SegmentInput {
  seq: number;
  body: Buffer;
  startedAt: Date;
  durationMs: number;
}

export async function storeSegment(
  ctx: AppContext,
  session: StudentSession,
  assignmentId: string,
  input: SegmentInput,
): Promise<{ seq: number; stored: boolean }> {
  const attempt = await proctoredAttemptOf(ctx, session, assignmentId);
  const now = ctx.clock.now();
  const state = await segmentUploadState(ctx.pool, attempt.institutionId, assignmentId, input.seq);
  if (!state) throw new Error(`attempt ${assignmentId} vanished`);
  // A duplicate is answered as such whatever the attempt's state, so the page can clear its queue.
  if (state.stored) return { seq: input.seq, stored: false };
  checkCaptureTime('X-Segment-Started-At', input.startedAt, { startedAt: attempt.startedAt, submittedAt: state.submittedAt, deadlineAt: state.deadlineAt }, now);
  if (!acceptsUpload(state.submittedAt, input.startedAt, now)) throw refusedAfterSubmission();
  const refused = segmentContentError(input.body);
  if (refused) throw refused;

  const storage = storageFor(ctx.config);
  const key = segmentKey(attempt.institutionId, assignmentId, input.seq);
  await storage.put(key, input.body, 'video/webm');
  // Object.assign, not a spread given new keys, which makes new hidden classes per call (docs/performance.md).
  const stored = await recordStoredSegment(ctx, attempt.institutionId, assignmentId, Object.assign({}, input, { key, size: input.body.length }), now);
  return { seq: input.seq, stored };
}

/** How far into a segment its checks look (the Tracks element comes before the first cluster). */
export const SEGMENT_CHECK_BYTES = 64 * 1024;

/** Why a segment whose first SEGMENT_CHECK_BYTES bytes are `start` is refused, or null when it is accepted. */
export function segmentContentError(start: Buffer): AppError | null {
  if (start.length === 0 || !start.subarray(0, 4).equals(EBML_MAGIC)) {
    return new AppError('unsupported_media_type', 'The body is not a WebM file (Content-Type: video/webm, one complete recording).');
  }
  if (start.subarray(0, SEGMENT_CHECK_BYTES).indexOf(TRACKS_ID) < 0) {
    return new AppError('invalid_request', 'The WebM file holds no video: the recorder stopped before its first frame. Nothing was stored.', [
      { field: 'body', message: 'no Tracks element (no frame was recorded)' },
    ]);
  }
  return null;
}

/** Each upload's own key: the seq plus a random suffix, so two racing uploads of one seq never share an object. */
export function segmentKey(institutionId: string, assignmentId: string, seq: number): string {
  return `${proctoringPrefix(institutionId, assignmentId)}segments/${String(seq).padStart(5, '0')}-${randomBase62(8)}.webm`;
}

/**
 * The row of a segment whose object is stored and checked (through the API
 * or put directly to S3): false, and the object deleted, when the seq was
 * stored already.
 */
export async function recordStoredSegment(
  ctx: AppContext,
  institutionId: string,
  assignmentId: string,
  s: { seq: number; key: string; size: number; startedAt: Date; durationMs: number },
  now: Date,
): Promise<boolean> {
  const storage = storageFor(ctx.config);
  let stored: boolean;
  try {
    stored = await insertSegment(
      ctx.pool,
      institutionId,
      assignmentId,
      { seq: s.seq, storageKey: s.key, sizeBytes: s.size, contentType: 'video/webm', startedAt: s.startedAt, durationMs: s.durationMs },
      now,
    );
  } catch (err) {
    await storage.delete(s.key).catch(() => undefined);
    throw err;
  }
  if (!stored) await storage.delete(s.key);
  return stored;
}
