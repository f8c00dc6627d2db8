import diagnostics from 'node:diagnostics_channel';
import { Transform, type Readable } from 'node:stream';
import type { AppContext } from '../../platform/context.js';
import { withTransaction, type Queryable } from '../../platform/db.js';
import { AppError, notFound } from '../../platform/errors.js';
import { newId } from '../../platform/ids.js';
import { ByteMeter, ByteRate, Gate } from '../../platform/byte-rate.js';
import { REQUEST_TIME } from '../../platform/http/request-time.js';
import { ObjectTooLargeError, type StoredStream } from '../../platform/storage/object-store.js';
import { storageFor } from '../../platform/storage/storage.js';
import { forgetRecentSession, sessionIsLive, type StudentSession } from '../assignments/student-sessions.js';
import { deliver } from '../catalog/delivery.js';
import { UPLOAD_DEFAULT_BYTES } from '../catalog/schemas.js';
import { loadTestVersion } from '../catalog/test-versions.js';
import { answerFilesPrefix } from './answer-files.js';
import { deleteOtherAnswerFiles, insertAnswerFile, upsertFileAnswer } from './answer-files-repo.js';
import { ContentSniffer, accepted, judgeContent } from './file-content.js';
import { findAttempt, lockAttempt, type Attempt } from './find-attempt.js';
import { acceptsSaves } from './timing.js';

/**
 * A file uploaded as the answer to a `file_upload` question
 * (POST /a/{assignmentId}/files/{questionId}, the contract in
 * docs/file-uploads.md):
 *
 * 1. refused before a byte is read unless the question was drawn for the
 *    student's own open attempt and is a file_upload question, and when the
 *    declared length already passes the question's `maxBytes`;
 * 2. streamed to storage under a key of its own, counted (over `maxBytes`:
 *    the write stops there and nothing stays), hashed and sniffed on the way;
 * 3. refused when the content is not one of the question's `accept` types or
 *    contradicts the browser's claim (the object is deleted);
 * 4. made the answer in one transaction under the attempt's share lock, with
 *    autosave's version rule: a newer answer already stored wins (`saved:
 *    false`, the new file deleted);
 * 5. after commit, the question's previous file (replaced, or cleared by an
 *    autosave of null) is deleted, its row in the same transaction.
 * A client lost mid-upload fails step 2: no row was written, the temporary
 * object is removed, and the previous file is still the answer.
 */
export interface UploadInput {
  questionId: string;
  body: Readable;
  claimedType: string;
  fileName: string;
  version: number;
  /** The request's Content-Length, when it sent one. */
  declaredBytes: number | null;
}

export interface UploadResult {
  questionId: string;
  fileId: string;
  fileName: string;
  contentType: string;
  bytes: number;
  version: number;
  saved: boolean;
}

export const FILE_NAME_MAX = 255;

/** The file's name as shown to people: its last path part, no control characters. */
export function cleanFileName(raw: string): string | null {
  const name = raw
    .split(/[/\\]/)
    .pop()!
    .replace(/[\u0000-\u001f\u007f]/g, '')
    .trim();
  return name === '' || name.length > FILE_NAME_MAX ? null : name;
}

function closed(attempt: Pick<Attempt, 'submittedAt' | 'submittedBy' | 'deadlineAt'>, now: Date): AppError | null {
  if (attempt.submittedBy === 'cancelled') return new AppError('invalid_state', 'This test has been withdrawn; answers can no longer change.');
  if (attempt.submittedAt) return new AppError('invalid_state', 'This test has been submitted; answers can no longer change.');
  if (!acceptsSaves(attempt.deadlineAt, now)) return new AppError('invalid_state', 'Time is up; answers can no longer change.');
  return null;
}

function mib(bytes: number): string {
  const m = bytes / (1024 * 1024);
  return m >= 1 ? `${Number(m.toFixed(1))} MB` : `${Math.ceil(bytes / 1024)} KB`;
}

/**
 * Every upload of this process shares one allowance of 64 MB a second:
 * unthrottled, fifty students' 20 MB files arrived at over 500 MB/s on two
 * cores, and the partner read's p50 rose sevenfold and its p99 fourteenfold
 * (docs/performance.md). Why 64 and not more: every body chunk is a new
 * ArrayBuffer, and V8 runs a young collection each time 32 MB of them have
 * been allocated (a fixed threshold, "external memory pressure"), which
 * stopped the loop for 2-10 ms; at 128 MB/s that was four such pauses a
 * second, and a partner read in one of them was a slow read.
 * Fifty 20 MB files then take about sixteen seconds, on a loop with nothing else to do.
 */
export const UPLOAD_BYTES_PER_SECOND = 64 * 1024 * 1024;
/** Uploads of this process streaming their bodies now. */
let streaming = 0;
/**
 * And less while the event loop is busy: uploads are the work that can wait
 * (TCP holds the clients), a partner's read or a student's save cannot. Their
 * starts (fifty checks, files opened) alone kept the loop 65-80 % busy in
 * bench:uploads, and nearly every read then was slow.
 */
const UPLOADS_GIVE_WAY = {
  busyAbove: 0.5,
  busyBelow: 0.3,
  // Never so low that an upload's share falls below twice the rate its request time allows for
  // (platform/http/request-time.ts): giving way must not turn into cutting uploads off with a 408.
  floorBytesPerSecond: () => Math.max(8 * 1024 * 1024, streaming * 2 * REQUEST_TIME.uploadFloorBytesPerSecond),
  startBytesPerSecond: 16 * 1024 * 1024,
};
const uploadRate = new ByteRate(UPLOAD_BYTES_PER_SECOND, UPLOAD_BYTES_PER_SECOND / 10, UPLOADS_GIVE_WAY);
/** Each upload takes from the allowance every 256 KiB, not every chunk (platform/byte-rate.ts: ByteMeter). */
const RATE_STEP_BYTES = 256 * 1024;

/**
 * The uploads' database work, the checks before the body (session, attempt)
 * and the record after it, runs two at a time: uploads that start together
 * (a class told to hand in now) or end together (they share the allowance,
 * so a burst of them does) never hold more than two of the pool's
 * connections, nor queue in front of everyone else's statements. Fifty
 * uploads checked at once had queued 40 statements ahead of a partner read
 * (docs/performance.md).
 */
const uploadDbTurns = new Gate(2);

/** Runs an upload's database work in its turn (above); the direct uploads' intent and record take theirs too. */
export function inUploadTurn<T>(work: () => Promise<T>): Promise<T> {
  return uploadDbTurns.run(work);
}

/** The refusal of a session that ended since this process last saw it (a new start link, expiry); it is forgotten. */
export function sessionEnded(session: StudentSession): AppError {
  forgetRecentSession(session.idHash);
  return new AppError('unauthenticated', 'Your session has ended. Open the test link again.');
}

/**
 * Where each upload is in its round, for a measuring subscriber
 * (bench/upload-server.ts): `{ assignmentId, phase, at }` with `at` in epoch
 * milliseconds, at `checked` (the target found, streaming starts),
 * `received` (stored whole), `hashed`, `queued` (waiting to record),
 * `recording` (its turn), `committed` and `done` (the replaced file deleted).
 * Nothing is built unless someone listens.
 */
export const uploadPhases = diagnostics.channel('assay.answer-file.phase');
function phase(assignmentId: string, name: string): void {
  if (uploadPhases.hasSubscribers) uploadPhases.publish({ assignmentId, phase: name, at: performance.timeOrigin + performance.now() });
}

/**
 * The student's open attempt and its drawn file_upload question, with the question's limit; refused otherwise.
 * `recheckSession`: the session may come from this process's recent ones (the upload routes'
 * `sessionRecheckedByStatement`), so it is looked up again here, before a byte of the body is read.
 */
export async function answerFileTarget(
  ctx: AppContext,
  session: StudentSession,
  assignmentId: string,
  questionId: string,
  rawFileName: string,
  declaredBytes: number | null,
  opts: { recheckSession?: boolean } = {},
) {
  const now = ctx.clock.now();
  const { live, attempt, version } = await uploadDbTurns.run(async () => {
    const live = !opts.recheckSession || (await sessionIsLive(ctx.pool, session.idHash, now));
    const attempt = live ? await findAttempt(ctx.pool, session.institutionId, assignmentId) : null;
    // The version is cached (test-versions.ts): a database read only on this process's first use of it.
    const version = attempt && attempt.userId === session.userId ? await loadTestVersion(ctx.pool, attempt.testVersionId) : null;
    return { live, attempt, version };
  });
  if (!live) throw sessionEnded(session);
  if (!attempt || !version) throw notFound('attempt');
  const refused = closed(attempt, now);
  if (refused) throw refused;

  const test = deliver(version, attempt.delivery);
  const field = 'questionId';
  const refuse = (message: string) => new AppError('invalid_request', `${field}: ${message}`, [{ field, message }]);
  if (!version.questions.some((q) => q.id === questionId)) throw refuse('is not a question of this test');
  if (!test.questions.some((q) => q.id === questionId)) throw refuse('was not drawn for this assignment');
  const q = test.questions.find((x) => x.id === questionId)!;
  if (q.type !== 'file_upload') {
    throw refuse('is not a file_upload question');
  }
  const fileName = cleanFileName(rawFileName);
  if (fileName === null) {
    throw new AppError('invalid_request', `x-file-name: must name the file (1 to ${FILE_NAME_MAX} characters)`, [
      { field: 'x-file-name', message: `must name the file (1 to ${FILE_NAME_MAX} characters)` },
    ]);
  }
  const maxBytes = q.maxBytes ?? UPLOAD_DEFAULT_BYTES;
  const tooLarge = () => new AppError('payload_too_large', `The file is larger than this question's limit of ${mib(maxBytes)}.`);
  if (declaredBytes !== null && declaredBytes > maxBytes) throw tooLarge();
  return { attempt, q, fileName, maxBytes, tooLarge };
}

/** The content's type if this question takes it, or the refusal to send (the caller deletes the object). */
export function judgeForQuestion(accept: readonly string[], detected: string | null, claimedType: string): { type: string } | AppError {
  const judged = judgeContent(detected, claimedType);
  if (judged.ok && accepted(accept, judged.type)) return { type: judged.type };
  const message = judged.ok ? `This question accepts ${accept.join(', ')}; the file is ${judged.type}.` : judged.message;
  return new AppError('unsupported_media_type', message);
}

/** Thrown from `within` when another request owns the object: the object is kept, not deleted. */
export class ObjectOwnedElsewhere extends Error {}

/**
 * Makes the stored object the question's answer (the attempt still open, the session live, autosave's
 * version rule), then deletes the question's previous file. On any refusal the new object is deleted.
 */
export async function recordAnswerFile(
  ctx: AppContext,
  session: StudentSession,
  target: { attempt: Attempt; questionId: string },
  file: { fileId: string; key: string; fileName: string; contentType: string; bytes: number; sha256: string; version: number },
  within?: (tx: Queryable) => Promise<void>,
): Promise<UploadResult> {
  const { attempt } = target;
  const assignmentId = attempt.assignmentId;
  const storage = storageFor(ctx.config);
  const removeObject = () => storage.delete(file.key).catch(() => undefined);
  const now = ctx.clock.now();
  let outcome: { saved: boolean; version: number; stale: string[] };
  phase(assignmentId, 'queued');
  try {
    outcome = await uploadDbTurns.run(() => (phase(assignmentId, 'recording'), withTransaction(ctx.pool, async (tx) => {
      const locked = await lockAttempt(tx, assignmentId, 'share', { institutionId: attempt.institutionId });
      if (!locked) throw notFound('attempt');
      const refusedNow = closed(locked, now);
      if (refusedNow) throw refusedNow;
      if (!(await sessionIsLive(tx, session.idHash, now))) throw new AppError('unauthenticated', 'Your session has ended. Open the test link again.');
      if (within) await within(tx);
      // Literals, not spreads given new keys, which make new hidden classes per call (docs/performance.md).
      const written = await upsertFileAnswer(tx, { assignmentId, institutionId: attempt.institutionId, questionId: target.questionId, fileId: file.fileId, version: file.version, now });
      if (!written.saved) return { saved: written.saved, version: written.version, stale: [] };
      await insertAnswerFile(
        tx,
        {
          id: file.fileId,
          assignmentId,
          institutionId: attempt.institutionId,
          questionId: target.questionId,
          storageKey: file.key,
          fileName: file.fileName,
          contentType: file.contentType,
          bytes: file.bytes,
          sha256: file.sha256,
        },
        now,
      );
      return { saved: written.saved, version: written.version, stale: await deleteOtherAnswerFiles(tx, attempt.institutionId, assignmentId, target.questionId, file.fileId) };
    })));
  } catch (err) {
    if (!(err instanceof ObjectOwnedElsewhere)) await removeObject();
    throw err;
  }
  phase(assignmentId, 'committed');
  if (!outcome.saved) await removeObject();
  for (const old of outcome.stale) await storage.delete(old).catch(() => undefined);
  phase(assignmentId, 'done');
  return { questionId: target.questionId, fileId: file.fileId, fileName: file.fileName, contentType: file.contentType, bytes: file.bytes, version: outcome.version, saved: outcome.saved };
}

export async function storeAnswerFile(ctx: AppContext, session: StudentSession, assignmentId: string, input: UploadInput): Promise<UploadResult> {
  const { attempt, q, fileName, maxBytes, tooLarge } = await answerFileTarget(ctx, session, assignmentId, input.questionId, input.fileName, input.declaredBytes, {
    recheckSession: true,
  });

  phase(assignmentId, 'checked');
  const storage = storageFor(ctx.config);
  const fileId = newId('fil');
  const key = `${answerFilesPrefix(attempt.institutionId, assignmentId)}${fileId}`;
  const sniffer = new ContentSniffer();
  // The store hashes what it stores, off the event loop (platform/byte-thread.ts): 50 students' 20 MB files
  // hashed on the loop slowed every other request.
  const meter = new ByteMeter(uploadRate, RATE_STEP_BYTES);
  const inspect = new Transform({
    transform(chunk: Buffer, _enc, done) {
      try {
        sniffer.push(chunk);
      } catch (err) {
        return done(err as Error);
      }
      const allowed = meter.add(chunk.length);
      // Most chunks go on at once: a wait for the allowance only every few hundred KB.
      if (!allowed) return done(null, chunk);
      allowed.then(() => done(null, chunk), done);
    },
  });
  input.body.on('error', (err) => inspect.destroy(err));
  // A client that goes away mid-upload: the request ends without an error on some paths, so its 'aborted' counts too.
  input.body.on('aborted', () => inspect.destroy(new Error('upload aborted by the client')));
  input.body.pipe(inspect);

  let stored: StoredStream;
  streaming++;
  try {
    stored = await storage.putStream(key, inspect, 'application/octet-stream', maxBytes);
  } catch (err) {
    input.body.unpipe(inspect);
    if (err instanceof ObjectTooLargeError) throw tooLarge();
    throw err;
  } finally {
    streaming--;
  }

  phase(assignmentId, 'received');
  const judged = judgeForQuestion(q.accept, sniffer.finish(), input.claimedType);
  if (judged instanceof AppError) {
    await storage.delete(key).catch(() => undefined);
    throw judged;
  }
  phase(assignmentId, 'hashed');
  const { bytes, sha256 } = stored;
  return recordAnswerFile(ctx, session, { attempt, questionId: q.id }, { fileId, key, fileName, contentType: judged.type, bytes, sha256, version: input.version });
}
