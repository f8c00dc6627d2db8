import type { Tx } from '../../platform/db.js';
import type { AnswerValue } from './answer-values.js';
import type { AnswerFile } from './answer-files.js';

/** SQL for the rows of uploaded answer files (writes; reads are in answer-files.ts). Every query names the institution. */
/** A row as written: the read's fields under the row's own id, with the content's hash. */
export type AnswerFileRow = Omit<AnswerFile, 'fileId'> & { id: string; sha256: string };

/**
 * Stores `{ fileId }` as the answer unless a newer version is stored, under
 * the caller's share lock on the open attempt (as autosave's statement).
 * Returns the version now stored and whether this one was written.
 */
export async function upsertFileAnswer(
  tx: Tx,
  a: { assignmentId: string; institutionId: string; questionId: string; fileId: string; version: number; now: Date },
): Promise<{ saved: boolean; version: number }> {
  const value: AnswerValue = { fileId: a.fileId };
  const { rows } = await tx.query<{ version: string }>(
    `INSERT INTO answers AS s (assignment_id, institution_id, question_id, value, version, saved_at)
     VALUES ($1, $2, $3, $4::jsonb, $5, $6)
     ON CONFLICT (assignment_id, question_id) DO UPDATE
        SET value = EXCLUDED.value, version = EXCLUDED.version, saved_at = EXCLUDED.saved_at
      WHERE s.version < EXCLUDED.version
     RETURNING version`,
    [a.assignmentId, a.institutionId, a.questionId, JSON.stringify(value), a.version, a.now],
  );
  if (rows[0]) return { saved: true, version: Number(rows[0].version) };
  const current = await tx.query<{ version: string }>('SELECT version FROM answers WHERE assignment_id = $1 AND institution_id = $2 AND question_id = $3', [
    a.assignmentId,
    a.institutionId,
    a.questionId,
  ]);
  return { saved: false, version: Number(current.rows[0]!.version) };
}

export async function insertAnswerFile(tx: Tx, f: AnswerFileRow, now: Date): Promise<void> {
  await tx.query(
    `INSERT INTO answer_files (id, assignment_id, institution_id, question_id, storage_key, file_name, content_type, bytes, sha256, created_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)`,
    [f.id, f.assignmentId, f.institutionId, f.questionId, f.storageKey, f.fileName, f.contentType, f.bytes, f.sha256, now],
  );
}

/** Deletes the question's other files (the ones the answer no longer names); returns their storage keys. */
export async function deleteOtherAnswerFiles(tx: Tx, institutionId: string, assignmentId: string, questionId: string, keepId: string): Promise<string[]> {
  const { rows } = await tx.query<{ storage_key: string }>(
    'DELETE FROM answer_files WHERE assignment_id = $1 AND institution_id = $2 AND question_id = $3 AND id <> $4 RETURNING storage_key',
    [assignmentId, institutionId, questionId, keepId],
  );
  return rows.map((r) => r.storage_key);
}
