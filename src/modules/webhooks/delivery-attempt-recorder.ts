import type pg from 'pg';
import type { Clock } from '../../platform/clock.js';
import { recordOutcomes, type DeliveryAttemptOutcome } from './record-delivery-attempts.js';

/**
 * Writes finished attempts to the database in batches: a success waits up
 * to `gatherMs` (or until `batchSize` are queued) for others to join it, and
 * whatever finishes while one batch is being written goes into the next.
 * Each write is one statement, and on loopback a statement's round trip
 * costs the sender about as much CPU as a webhook POST, so batching is most
 * of what recording costs per delivery. A failed write (the
 * database away) is retried with back-off until it lands, or, once the
 * dispatcher is stopping, until a deadline; after that the deliveries stay
 * leased and are sent again when their leases run out (at-least-once).
 */
export interface RecorderLog {
  warn(o: object, m?: string): void;
}

export function createDeliveryAttemptRecorder(opts: {
  pool: pg.Pool;
  workerId: string;
  clock: Clock;
  log?: RecorderLog;
  onRecorded: () => void;
  gatherMs?: number;
  batchSize?: number;
}) {
  const gatherMs = opts.gatherMs ?? 5;
  const batchSize = opts.batchSize ?? 64;
  let queue: DeliveryAttemptOutcome[] = [];
  let flushing: Promise<void> | null = null;
  let gathering: NodeJS.Timeout | null = null;
  /** Record statements written, for the bench. */
  let writes = 0;
  let giveUpAt = Infinity;
  /** Attempts over but not yet recorded. */
  let unrecorded = 0;

  async function writeAll(): Promise<void> {
    for (let delay = 50; queue.length > 0; delay = Math.min(delay * 2, 2000)) {
      const batch = queue;
      queue = [];
      try {
        writes++;
        await recordOutcomes(opts.pool, opts.workerId, batch, opts.clock.now());
        unrecorded -= batch.length;
        opts.onRecorded();
      } catch (err) {
        queue = batch.concat(queue);
        if (Date.now() >= giveUpAt) {
          opts.log?.warn({ err: (err as Error).message, outcomes: queue.length }, 'could not record webhook attempts; they will be sent again when their leases run out');
          unrecorded -= queue.length;
          queue = [];
          return;
        }
        opts.log?.warn({ err: (err as Error).message }, 'recording webhook attempts failed; retrying');
        await new Promise((r) => setTimeout(r, delay));
      }
    }
  }

  function flush(): Promise<void> {
    if (gathering) clearTimeout(gathering);
    gathering = null;
    if (flushing) return flushing.then(() => (queue.length > 0 ? flush() : undefined));
    if (queue.length === 0) return Promise.resolve();
    flushing = writeAll().finally(() => {
      flushing = null;
    });
    return flushing;
  }

  function startFlush(): void {
    // writeAll handles its own failures; this only reports a fault in that handling.
    flush().catch((err: Error) => opts.log?.warn({ err: err.message }, 'webhook attempt recorder failed'));
  }

  return {
    /** Queues an outcome; it is written with the next batch (`flush()` writes at once and waits). */
    add(outcome: DeliveryAttemptOutcome): void {
      queue.push(outcome);
      unrecorded++;
      if (flushing) return; // written as soon as the batch in flight lands
      // Only plain successes wait for company: a failure may pause or disable its endpoint, which must
      // land before the next claim could pick that endpoint's other deliveries.
      if (queue.length >= batchSize || outcome.status !== 'succeeded' || outcome.endpointUnhealthy) return startFlush();
      gathering ??= setTimeout(startFlush, gatherMs);
    },
    flush,
    unrecorded: () => unrecorded,
    writes: () => writes,
    /** From now on, stop retrying a failed write after `ms`. */
    giveUpAfter(ms: number): void {
      giveUpAt = Date.now() + ms;
    },
  };
}
