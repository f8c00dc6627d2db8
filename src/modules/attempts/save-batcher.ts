import type pg from 'pg';
import { recordSaveBatch } from '../../platform/telemetry/metrics.js';
import { saveAnswersForSession, saveAnswersForSessions, type SessionSave } from './attempts-repo.js';

/**
 * Group commit for autosave: the saves that reach one process in the same
 * turn of its event loop go to PostgreSQL as one statement
 * (saveAnswersForSessions), which still checks each request's session and
 * attempt on its own; a save that arrives alone takes the single-request
 * statement (saveAnswersForSession), which costs PostgreSQL less. A save waits for nothing that was not already there:
 * the batch is sent from a setImmediate, right after the turn's I/O
 * callbacks. Under light load a batch is one save; on an exam day, when
 * many saves arrive together, one round trip and one statement serve them
 * all, which is where a save's cost goes (the socket writes, the driver's
 * protocol work, PostgreSQL's per-statement overhead).
 *
 * The statement cannot upsert one row twice, so a save that names an
 * (assignment, question) already in the forming batch (a second tab, a
 * retry) goes in a statement of its own, as it would without batching:
 * two concurrent saves of one answer were never ordered by their arrival,
 * and the versioned upsert keeps the newest whichever commits first.
 */
const MAX_ROWS = 500;

interface Pending {
  save: SessionSave;
  resolve: (written: Map<string, number>) => void;
  reject: (err: unknown) => void;
}

class SaveBatcher {
  private queue: Pending[] = [];
  private scheduled = false;

  constructor(private readonly pool: pg.Pool) {}

  save(save: SessionSave): Promise<Map<string, number>> {
    return new Promise((resolve, reject) => {
      this.queue.push({ save, resolve, reject });
      if (!this.scheduled) {
        this.scheduled = true;
        setImmediate(() => this.flush());
      }
    });
  }

  private flush(): void {
    this.scheduled = false;
    let waiting = this.queue;
    this.queue = [];
    while (waiting.length > 0) {
      const batch: Pending[] = [];
      const later: Pending[] = [];
      const keys = new Set<string>();
      let rows = 0;
      for (const p of waiting) {
        const clash = p.save.answers.some((a) => keys.has(`${p.save.assignmentId} ${a.questionId}`));
        if (clash || (rows > 0 && rows + p.save.answers.length > MAX_ROWS)) {
          later.push(p);
          continue;
        }
        for (const a of p.save.answers) keys.add(`${p.save.assignmentId} ${a.questionId}`);
        rows += p.save.answers.length;
        batch.push(p);
      }
      void this.send(batch);
      waiting = later;
    }
  }

  private async send(batch: Pending[]): Promise<void> {
    recordSaveBatch(batch.length);
    try {
      // One save alone (light load) takes the lighter single-request statement.
      const written = batch.length === 1 ? [await saveAnswersForSession(this.pool, batch[0]!.save)] : await saveAnswersForSessions(this.pool, batch.map((p) => p.save));
      batch.forEach((p, i) => p.resolve(written[i]!));
    } catch (err) {
      for (const p of batch) p.reject(err);
    }
  }
}

const batchers = new WeakMap<pg.Pool, SaveBatcher>();

/** Stores one request's answers through its pool's batcher; resolves to what was written (see saveAnswersForSessions). */
export function saveAnswersBatched(pool: pg.Pool, save: SessionSave): Promise<Map<string, number>> {
  let batcher = batchers.get(pool);
  if (!batcher) batchers.set(pool, (batcher = new SaveBatcher(pool)));
  return batcher.save(save);
}
