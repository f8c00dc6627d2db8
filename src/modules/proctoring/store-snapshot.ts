import type { AppContext } from '../../platform/context.js';
import { withTransaction } from '../../platform/db.js';
import { AppError, invalid } from '../../platform/errors.js';
import { newId } from '../../platform/ids.js';
import { storageFor } from '../../platform/storage/storage.js';
import type { StudentSession } from '../assignments/student-sessions.js';
import { attachEvidence, findSnapshotByClientId, flagExists, insertSnapshot } from './media-repo.js';
import { acceptsUpload, checkCaptureTime, proctoredAttemptOf, refusedAfterSubmission } from './proctored-attempt.js';
import { proctoringPrefix } from './store-segment.js';
import { findAttempt } from '../attempts/find-attempt.js';

/**
 * A still from the camera: the periodic snapshot, or the evidence of a
 * critical flag (`X-Flag-Id`), which becomes that flag's evidence unless it
 * has some already. `X-Snapshot-Id` (chosen by the page) makes a retried
 * upload idempotent: the same id answers with the snapshot stored first.
 */
export const SNAPSHOT_MAX_BYTES = 512 * 1024;

const JPEG_MAGIC = Buffer.from([0xff, 0xd8, 0xff]);

export interface SnapshotInput {
  body: Buffer;
  takenAt: Date;
  flagId: string | null;
  clientId: string | null;
}

export async function storeSnapshot(
  ctx: AppContext,
  session: StudentSession,
  assignmentId: string,
  input: SnapshotInput,
): Promise<{ snapshotId: string; created: boolean }> {
  const attempt = await proctoredAttemptOf(ctx, session, assignmentId);
  const { institutionId } = attempt;
  const now = ctx.clock.now();
  if (input.clientId) {
    const seen = await findSnapshotByClientId(ctx.pool, institutionId, assignmentId, input.clientId);
    if (seen) return { snapshotId: seen, created: false };
  }
  const row = await findAttempt(ctx.pool, institutionId, assignmentId);
  if (!row) throw refusedAfterSubmission();
  checkCaptureTime('X-Snapshot-Taken-At', input.takenAt, row, now);
  if (!acceptsUpload(row.submittedAt, input.takenAt, now)) throw refusedAfterSubmission();
  const refused = snapshotContentError(input.body);
  if (refused) throw refused;
  if (input.flagId && !(await flagExists(ctx.pool, institutionId, assignmentId, input.flagId))) {
    throw invalid('X-Flag-Id', 'is not a flag of this attempt');
  }

  const id = newId('snp');
  const key = snapshotKey(institutionId, assignmentId, id);
  const storage = storageFor(ctx.config);
  await storage.put(key, input.body, 'image/jpeg');
  // Object.assign, not a spread given new keys, which makes new hidden classes per call (docs/performance.md).
  return recordStoredSnapshot(ctx, institutionId, assignmentId, Object.assign({}, input, { id, key, size: input.body.length }), now);
}

/** Why a snapshot starting with `start` is refused, or null when it is accepted. */
export function snapshotContentError(start: Buffer): AppError | null {
  return start.subarray(0, 3).equals(JPEG_MAGIC) ? null : new AppError('unsupported_media_type', 'The body is not a JPEG image (Content-Type: image/jpeg).');
}

export function snapshotKey(institutionId: string, assignmentId: string, snapshotId: string): string {
  return `${proctoringPrefix(institutionId, assignmentId)}snapshots/${snapshotId}.jpg`;
}

/**
 * The row of a snapshot whose object is stored and checked (through the API
 * or put directly to S3), and the flag's evidence; a duplicate client id
 * answers the first snapshot and deletes this object.
 */
export async function recordStoredSnapshot(
  ctx: AppContext,
  institutionId: string,
  assignmentId: string,
  input: { id: string; key: string; size: number; takenAt: Date; flagId: string | null; clientId: string | null },
  now: Date,
): Promise<{ snapshotId: string; created: boolean }> {
  const { id, key } = input;
  const storage = storageFor(ctx.config);
  try {
    const saved = await withTransaction(ctx.pool, async (tx) => {
      const stored = await insertSnapshot(
        tx,
        institutionId,
        assignmentId,
        { id, flagId: input.flagId, storageKey: key, sizeBytes: input.size, takenAt: input.takenAt, clientId: input.clientId },
        now,
      );
      if (stored.created && input.flagId) await attachEvidence(tx, institutionId, assignmentId, input.flagId, id);
      return stored;
    });
    if (!saved.created) await storage.delete(key);
    return { snapshotId: saved.id, created: saved.created };
  } catch (err) {
    await storage.delete(key).catch(() => undefined);
    throw err;
  }
}
