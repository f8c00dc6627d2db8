/**
 * A counting semaphore: at most `limit` tasks run at once, the others wait
 * in arrival order. In-process only; the cap is per worker process.
 */
export function createLimiter(limit: number) {
  let active = 0;
  const waiting: Array<() => void> = [];

  async function run<T>(task: () => Promise<T>): Promise<T> {
    if (active >= limit) await new Promise<void>((resolve) => waiting.push(resolve));
    else active++;
    try {
      return await task();
    } finally {
      // Hand the slot straight to the next waiter, so a newcomer cannot take it in between.
      const next = waiting.shift();
      if (next) next();
      else active--;
    }
  }

  return { run, active: () => active, waiting: () => waiting.length };
}
