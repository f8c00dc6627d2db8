import pg from 'pg';
import type { Queryable } from './db.js';

/**
 * Coalesces the calls made in one turn of the event loop: each `load(item)`
 * joins the forming batch, which a setImmediate hands to `run` right after
 * the turn's I/O callbacks, so a call waits for nothing that was not already
 * there. Under light load a batch is one item; under many concurrent
 * requests one database round trip serves all of them.
 *
 * `group` splits a turn's items (by index) into the batches sent, which run
 * concurrently; by default, runs of at most 256. `run` returns one result per
 * item of its batch, in order; its failure fails that batch's items only.
 */
export function createTurnBatcher<I, O>(
  run: (items: I[]) => Promise<O[]>,
  group: (items: I[]) => number[][] = (items) => chunks(items.length, 256),
): (item: I) => Promise<O> {
  type Pending = { item: I; resolve: (o: O) => void; reject: (err: unknown) => void };
  let queue: Pending[] = [];
  let scheduled = false;

  async function send(batch: Pending[]): Promise<void> {
    try {
      const results = await run(batch.map((p) => p.item));
      batch.forEach((p, i) => p.resolve(results[i]!));
    } catch (err) {
      for (const p of batch) p.reject(err);
    }
  }

  function flush(): void {
    scheduled = false;
    const waiting = queue;
    queue = [];
    for (const indexes of group(waiting.map((p) => p.item))) void send(indexes.map((i) => waiting[i]!));
  }

  return (item) =>
    new Promise<O>((resolve, reject) => {
      queue.push({ item, resolve, reject });
      if (!scheduled) {
        scheduled = true;
        setImmediate(flush);
      }
    });
}

/** The indexes 0 … n-1 in runs of at most `size`. */
export function chunks(n: number, size: number): number[][] {
  const out: number[][] = [];
  for (let i = 0; i < n; i += size) out.push(Array.from({ length: Math.min(size, n - i) }, (_, j) => i + j));
  return out;
}

/**
 * A statement with a single form and a batch form, batched per pool: on a
 * pool the calls of one event-loop turn go through that pool's turn batcher,
 * a batch of one taking `one` and larger batches `many`; in a transaction
 * (a client, or a joined pool) a call runs alone through `one`, since the
 * transaction's own statements must not wait for a batch.
 */
export function batchedPerPool<I, O>(spec: {
  one: (db: Queryable, item: I) => Promise<O>;
  many: (pool: pg.Pool, items: I[]) => Promise<O[]>;
  group?: (items: I[]) => number[][];
}): (db: Queryable, item: I) => Promise<O> {
  const batchers = new WeakMap<pg.Pool, (item: I) => Promise<O>>();
  return (db, item) => {
    if (!(db instanceof pg.Pool)) return spec.one(db, item);
    let batcher = batchers.get(db);
    if (!batcher) {
      batcher = createTurnBatcher<I, O>(async (items) => (items.length === 1 ? [await spec.one(db, items[0]!)] : spec.many(db, items)), spec.group);
      batchers.set(db, batcher);
    }
    return batcher(item);
  };
}

