import type { AppContext } from '../../platform/context.js';
import type { Queryable } from '../../platform/db.js';
import { AppError, invalid, notFound } from '../../platform/errors.js';
import { newId } from '../../platform/ids.js';
import type { PresignedPut } from '../../platform/storage/object-store.js';
import { storageFor } from '../../platform/storage/storage.js';
import { sessionIsLive, type StudentSession } from '../assignments/student-sessions.js';
import { answerFilesPrefix } from './answer-files.js';
import { ContentSniffer } from './file-content.js';
import { loadTestVersion } from '../catalog/test-versions.js';
import { findAttempt, type Attempt } from './find-attempt.js';
import { answerFileTarget, inUploadTurn, judgeForQuestion, ObjectOwnedElsewhere, recordAnswerFile, sessionEnded, type UploadResult } from './store-answer-file.js';

/**
 * Answer files uploaded directly, when storage is S3: the page asks for a
 * presigned PUT of its file (length, type and SHA-256 signed), PUTs the
 * bytes to the bucket, and asks for the file to be recorded as the answer.
 * The API never receives the file. At the record it reads the object only
 * in ranges: its size by HEAD; its first 4 KiB and its last 64 KiB (the
 * same sniffer as the through-API upload: a file's signature is at its
 * start, a zip's central directory, naming every entry, at its end; text is
 * judged on both ends). What fails is deleted with its intent.
 *
 * The SHA-256 the answer's row keeps is the one the browser computed
 * (crypto.subtle) and S3 verified: it is a signed header of the PUT
 * (x-amz-checksum-sha256), so the browser cannot leave it out or change
 * it, and S3 refuses a body whose hash differs.
 */
export const HEAD_READ = 4096;
export const TAIL_READ = 64 * 1024;
/** What the presigned PUT's Content-Type must be: the stored object's type, as the through-API upload stores it. */
const STORED_TYPE = 'application/octet-stream';

export interface AnswerFileIntent {
  questionId: string;
  bytes: number;
  /** The browser's claim, judged against the content at the record as the through-API upload's Content-Type is. */
  claimedType: string;
  fileName: string;
  version: number;
  /** base64 of the file's SHA-256, as S3's x-amz-checksum-sha256 takes it. */
  sha256: string;
}

interface Meta {
  questionId: string;
  fileId: string;
  fileName: string;
  claimedType: string;
  version: number;
  sha256: string;
}

export async function presignAnswerFile(
  ctx: AppContext,
  session: StudentSession,
  assignmentId: string,
  intent: AnswerFileIntent,
): Promise<{ direct: true; key: string; upload: PresignedPut; expiresAt: string }> {
  const storage = storageFor(ctx.config);
  if (storage.kind !== 's3' || !storage.presignPut) {
    throw new AppError('invalid_state', 'Direct uploads need S3 storage; this service takes files through its own upload route.');
  }
  if (!/^[A-Za-z0-9+/]{43}=$/.test(intent.sha256)) throw invalid('sha256', 'must be the base64 of the SHA-256 of the file (44 characters)');
  const { attempt, q, fileName } = await answerFileTarget(ctx, session, assignmentId, intent.questionId, intent.fileName, intent.bytes, { recheckSession: true });
  const now = ctx.clock.now();
  const fileId = newId('fil');
  const key = `${answerFilesPrefix(attempt.institutionId, assignmentId)}${fileId}`;
  const meta: Meta = { questionId: q.id, fileId, fileName, claimedType: intent.claimedType, version: intent.version, sha256: intent.sha256 };
  const expiresAt = new Date(now.getTime() + ctx.config.directUploadSeconds * 1000);
  // Signed before the intent is written, not inside a transaction: signing may wait (the first call loads
  // the AWS SDK, credentials may be fetched), and a transaction open meanwhile would hold a pool connection,
  // fifty of them for a class whose first uploads start together. The URL leaves only once its intent is on
  // record, so an object under this key is always found by the sweep.
  const upload = await storage.presignPut!(key, intent.bytes, STORED_TYPE, ctx.config.directUploadSeconds, intent.sha256);
  await inUploadTurn(() =>
    ctx.pool.query(
      `INSERT INTO pending_uploads (storage_key, institution_id, assignment_id, kind, declared_bytes, content_type, meta, created_at, expires_at)
       VALUES ($1, $2, $3, 'answer_file', $4, $5, $6, $7, $8)`,
      [key, attempt.institutionId, assignmentId, intent.bytes, STORED_TYPE, JSON.stringify(meta), now, expiresAt],
    ),
  );
  return { direct: true, key, upload, expiresAt: expiresAt.toISOString() };
}

/** The answer already made of this object (a repeated record call). */
async function recordedAlready(db: Queryable, key: string): Promise<UploadResult | null> {
  const { rows } = await db.query<{ id: string; question_id: string; file_name: string; content_type: string; bytes: number; version: number | null }>(
    `SELECT f.id, f.question_id, f.file_name, f.content_type, f.bytes::int AS bytes, a.version::int AS version
     FROM answer_files f LEFT JOIN answers a ON a.assignment_id = f.assignment_id AND a.question_id = f.question_id
     WHERE f.storage_key = $1`,
    [key],
  );
  const f = rows[0];
  return f ? { questionId: f.question_id, fileId: f.id, fileName: f.file_name, contentType: f.content_type, bytes: f.bytes, version: f.version ?? 0, saved: true } : null;
}

/**
 * The page's record call: the object checked by ranged reads and made the
 * answer. A refused object is deleted with its intent. Recording twice
 * answers the first.
 */
export async function recordDirectAnswerFile(ctx: AppContext, session: StudentSession, assignmentId: string, key: string): Promise<UploadResult> {
  const storage = storageFor(ctx.config);
  // In the upload's turn (a class's records come together): the session, which the route may take from this
  // process's recent ones, looked up again first; then the intent and the attempt.
  const { live, row, attempt } = await inUploadTurn(async () => {
    if (!(await sessionIsLive(ctx.pool, session.idHash, ctx.clock.now()))) return { live: false, row: undefined, attempt: null };
    const { rows } = await ctx.pool.query<{ storage_key: string; declared_bytes: number; meta: Meta }>(
      `SELECT storage_key, declared_bytes, meta FROM pending_uploads
       WHERE storage_key = $1 AND institution_id = $2 AND assignment_id = $3 AND kind = 'answer_file'`,
      [key, session.institutionId, assignmentId],
    );
    return { live: true, row: rows[0], attempt: await findAttempt(ctx.pool, session.institutionId, assignmentId) };
  });
  if (!live) throw sessionEnded(session);
  if (!attempt || attempt.userId !== session.userId) throw notFound('attempt');
  if (!row) {
    const done = await recordedAlready(ctx.pool, key);
    if (done && key.startsWith(answerFilesPrefix(session.institutionId, assignmentId))) return done;
    throw notFound('upload');
  }
  const m = row.meta;
  const head = await storage.head(key);
  if (!head) throw new AppError('invalid_state', 'The file is not in storage yet: PUT it with the presigned request first, then record it.');
  const dropIntent = () => ctx.pool.query('DELETE FROM pending_uploads WHERE storage_key = $1', [key]);
  const refuse = async (err: AppError): Promise<never> => {
    await storage.delete(key).catch(() => undefined);
    await dropIntent();
    throw err;
  };
  if (head.size !== row.declared_bytes) await refuse(invalid('key', `the stored file has ${head.size} bytes, not the ${row.declared_bytes} declared`));

  // Two ranged reads (one when the file is small enough to be both ends at once).
  const sniffer = new ContentSniffer();
  if (head.size <= HEAD_READ + TAIL_READ) {
    sniffer.push((await storage.readRange(key, 0, head.size)) ?? Buffer.alloc(0));
  } else {
    sniffer.push((await storage.readRange(key, 0, HEAD_READ)) ?? Buffer.alloc(0));
    sniffer.pushTail((await storage.readRange(key, head.size - TAIL_READ, TAIL_READ)) ?? Buffer.alloc(0), head.size);
  }
  const judged = judgeForQuestion(await acceptOf(ctx, attempt, m.questionId), sniffer.finish(), m.claimedType);
  if (judged instanceof AppError) await refuse(judged);
  const type = (judged as { type: string }).type;

  const result = await recordAnswerFile(
    ctx,
    session,
    { attempt, questionId: m.questionId },
    { fileId: m.fileId, key, fileName: m.fileName, contentType: type, bytes: head.size, sha256: Buffer.from(m.sha256, 'base64').toString('hex'), version: m.version },
    // The intent goes in the answer's own transaction; one record call wins when two race.
    async (tx) => {
      const gone = await tx.query('DELETE FROM pending_uploads WHERE storage_key = $1', [key]);
      if (gone.rowCount === 0) throw new ObjectOwnedElsewhere();
    },
  ).catch(async (err) => {
    // Another record call took the intent first: its answer is this one's.
    if (err instanceof ObjectOwnedElsewhere) {
      const done = await recordedAlready(ctx.pool, key);
      if (done) return done;
      throw new AppError('invalid_state', 'This file is being recorded by another request; record it again.');
    }
    await dropIntent();
    throw err;
  });
  return result;
}

async function acceptOf(ctx: AppContext, attempt: Attempt, questionId: string): Promise<readonly string[]> {
  const version = await loadTestVersion(ctx.pool, attempt.testVersionId);
  const q = version.questions.find((x) => x.id === questionId);
  return q && q.type === 'file_upload' ? q.accept : [];
}
