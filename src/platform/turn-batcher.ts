/**
 * Coalesces the calls made in one turn of the event loop into one: each
 * `load(item)` joins the forming batch, which a setImmediate hands to `run`
 * right after the turn's I/O callbacks, so a call waits for nothing that was
 * not already there. Under light load a batch is one item; under many
 * concurrent requests one database round trip serves all of them. `run`
 * returns one result per item, in order; its failure fails every item of
 * that batch.
 */
export function createTurnBatcher<I, O>(run: (items: I[]) => Promise<O[]>, maxItems = 256): (item: I) => Promise<O> {
  let queue: Array<{ item: I; resolve: (o: O) => void; reject: (err: unknown) => void }> = [];
  let scheduled = false;

  async function send(batch: typeof queue): Promise<void> {
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
    for (let i = 0; i < waiting.length; i += maxItems) void send(waiting.slice(i, i + maxItems));
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
