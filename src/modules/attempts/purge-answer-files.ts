import type { AppContext } from '../../platform/context.js';
import { storageFor } from '../../platform/storage/storage.js';
import { answerFilesPrefix } from './answer-files.js';

/**
 * Retention of uploaded answer files, run with the proctoring media's
 * (ASSAY_PROCTORING_RETENTION_DAYS after submission, the one retention
 * period of a candidate's personal files; proctoring/purge-proctoring.ts): an
 * attempt's files go once it was submitted that long ago AND its marks are
 * final (never while it waits for a reviewer, who needs the files). Files
 * first, then the rows, as the proctoring purge: a crash in between leaves
 * rows whose files are gone (the next run deletes them), never files no row
 * leads to. The answers keep naming the file (`{ fileId }`): the marks and
 * the score stand, and the portal says the file is no longer stored.
 */
const BATCH = 50;

export async function purgeExpiredAnswerFiles(ctx: AppContext): Promise<{ attempts: number; files: number }> {
  const cutoff = new Date(ctx.clock.now().getTime() - ctx.config.proctoringRetentionDays * 24 * 3600_000);
  const storage = storageFor(ctx.config);
  let attempts = 0;
  let files = 0;
  for (;;) {
    const { rows } = await ctx.pool.query<{ assignment_id: string; institution_id: string }>(
      `SELECT DISTINCT f.assignment_id, f.institution_id FROM answer_files f
         JOIN attempts a ON a.assignment_id = f.assignment_id
         JOIN assignments s ON s.id = f.assignment_id
        WHERE f.created_at < $1 AND a.submitted_at < $1 AND s.status NOT IN ('submitted', 'marking')
        LIMIT $2`,
      [cutoff, BATCH],
    );
    for (const r of rows) {
      files += await storage.deletePrefix(answerFilesPrefix(r.institution_id, r.assignment_id));
      await ctx.pool.query('DELETE FROM answer_files WHERE assignment_id = $1 AND institution_id = $2', [r.assignment_id, r.institution_id]);
      attempts++;
    }
    if (rows.length < BATCH) return { attempts, files };
  }
}
