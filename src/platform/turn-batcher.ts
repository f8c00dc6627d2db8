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
