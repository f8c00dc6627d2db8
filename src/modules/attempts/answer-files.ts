import type { Queryable } from '../../platform/db.js';

/**
 * Reads of uploaded answer files, for the student page, the portal and the
 * downloads. Only a file the answer names is ever served: one replaced or
 * cleared is not an answer any more, even in the moment before its row goes.
 */
export interface AnswerFile {
  fileId: string;
  assignmentId: string;
  institutionId: string;
  questionId: string;
  storageKey: string;
  fileName: string;
  contentType: string;
  bytes: number;
}

/** What a page shows of a file answer. */
export type AnswerFileSummary = Pick<AnswerFile, 'fileId' | 'fileName' | 'contentType' | 'bytes'>;

const COLUMNS = `f.id, f.assignment_id, f.institution_id, f.question_id, f.storage_key, f.file_name, f.content_type, f.bytes`;

type Row = {
  id: string;
  assignment_id: string;
  institution_id: string;
  question_id: string;
  storage_key: string;
  file_name: string;
  content_type: string;
  bytes: string;
};

const toFile = (r: Row): AnswerFile => ({
  fileId: r.id,
  assignmentId: r.assignment_id,
  institutionId: r.institution_id,
  questionId: r.question_id,
  storageKey: r.storage_key,
  fileName: r.file_name,
  contentType: r.content_type,
  bytes: Number(r.bytes),
});

/** The files the assignment's answers name, by question id. */
export async function currentAnswerFiles(db: Queryable, institutionId: string, assignmentId: string): Promise<Map<string, AnswerFile>> {
  const { rows } = await db.query<Row>(
    `SELECT ${COLUMNS} FROM answer_files f
       JOIN answers a ON a.assignment_id = f.assignment_id AND a.question_id = f.question_id AND a.value ->> 'fileId' = f.id
      WHERE f.assignment_id = $1 AND f.institution_id = $2`,
    [assignmentId, institutionId],
  );
  return new Map(rows.map((r) => [r.question_id, toFile(r)]));
}

/** One file, only while its answer names it; `institutionId` null reaches any institution's (operators). */
export async function findCurrentAnswerFile(db: Queryable, institutionId: string | null, fileId: string): Promise<AnswerFile | null> {
  const { rows } = await db.query<Row>(
    `SELECT ${COLUMNS} FROM answer_files f
       JOIN answers a ON a.assignment_id = f.assignment_id AND a.question_id = f.question_id AND a.value ->> 'fileId' = f.id
      WHERE f.id = $1 AND ($2::text IS NULL OR f.institution_id = $2)`,
    [fileId, institutionId],
  );
  return rows[0] ? toFile(rows[0]) : null;
}

export function summaryOf(f: AnswerFile): AnswerFileSummary {
  return { fileId: f.fileId, fileName: f.fileName, contentType: f.contentType, bytes: f.bytes };
}

/** The storage prefix of an assignment's answer files (purged with the assignment). */
export function answerFilesPrefix(institutionId: string, assignmentId: string): string {
  return `answers/${institutionId}/${assignmentId}/`;
}
