import { recordSaveBatch } from '../../platform/telemetry/metrics.js';
import { batchedPerPool } from '../../platform/turn-batcher.js';
import { saveAnswersForSession, saveAnswersForSessions, type SessionSave } from './attempts-repo.js';

/**
 * Group commit for autosave: the saves that reach one process in the same
 * turn of its event loop go to PostgreSQL as one statement
 * (saveAnswersForSessions, through the platform's turn batcher), which still
 * checks each request's session and attempt on its own; a save that arrives
 * alone takes the single-request statement (saveAnswersForSession), which
 * costs PostgreSQL less. Under light load a batch is one save; on an exam
 * day, when many saves arrive together, one round trip and one statement
 * serve them all, which is where a save's cost goes (the socket writes, the
 * driver's protocol work, PostgreSQL's per-statement work).
 *
 * The statement cannot upsert one row twice, so a save that names an
 * (assignment, question) already in a forming batch (a second tab, a retry)
 * goes in another batch, sent alongside, as it would be without batching:
 * two concurrent saves of one answer were never ordered by their arrival,
 * and the versioned upsert keeps the newest whichever commits first.
 */
const MAX_ROWS = 500;

/** Splits a turn's saves into batches with no (assignment, question) twice and at most MAX_ROWS answers. */
function clashFreeBatches(saves: SessionSave[]): number[][] {
  const batches: Array<{ indexes: number[]; keys: Set<string>; rows: number }> = [];
  saves.forEach((save, i) => {
    const keys = save.answers.map((a) => `${save.assignmentId} ${a.questionId}`);
    let batch = batches.find((b) => (b.rows === 0 || b.rows + keys.length <= MAX_ROWS) && !keys.some((k) => b.keys.has(k)));
    if (!batch) batches.push((batch = { indexes: [], keys: new Set(), rows: 0 }));
    batch.indexes.push(i);
    for (const k of keys) batch.keys.add(k);
    batch.rows += keys.length;
  });
  return batches.map((b) => b.indexes);
}

/**
 * Stores one request's answers through its pool's turn batcher; resolves to
 * what was written (see saveAnswersForSessions). Every statement sent counts
 * in the batch-size metric.
 */
export const saveAnswersBatched = batchedPerPool<SessionSave, Map<string, number>>({
  one(db, save) {
    recordSaveBatch(1);
    return saveAnswersForSession(db, save);
  },
  many(pool, saves) {
    recordSaveBatch(saves.length);
    return saveAnswersForSessions(pool, saves);
  },
  group: clashFreeBatches,
});

