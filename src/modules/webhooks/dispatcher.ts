import os from 'node:os';
import pg from 'pg';
import type { Clock } from '../../platform/clock.js';
import type { Config } from '../../platform/config.js';
import type { Pool } from '../../platform/db.js';
import { randomBase62 } from '../../platform/ids.js';
import { envelopeBody } from '../events/event-envelope.js';
import { claimDeliveries, recordOutcomes, type AttemptOutcome, type ClaimedDelivery } from './deliveries-repo.js';
import { WEBHOOKS_CHANNEL } from './fan-out.js';
import { judgeAttempt } from './retry-policy.js';
import { createWebhookClient, type WebhookClient } from './send-webhook.js';
import type { Resolver } from './url-guard.js';
import { secretBoxFor, urlPolicyFor } from './webhooks-context.js';

/**
 * The webhook dispatcher: claims due deliveries (deliveries-repo.ts), POSTs
 * them (send-webhook.ts), judges each result (retry-policy.ts) and records it.
 * Woken by NOTIFY on commit of a fanned-out event, and by a short poll for
 * retries that come due and notifications missed across a reconnect.
 * Outcomes are recorded in batches: whatever finished while the previous
 * batch was being written goes in the next one. A delivery stays leased
 * until its outcome is recorded, so nobody else takes it meanwhile; if this
 * process dies, the lease runs out and another dispatcher sends it again
 * (at-least-once: the receiver dedupes by `webhook-id`).
 */
export interface DispatcherOptions {
  pool: Pool;
  connectionString: string;
  clock: Clock;
  config: Readonly<Config>;
  /** Injected in tests to resolve host names to chosen addresses. */
  resolver?: Resolver;
  pollIntervalMs?: number;
  random?: () => number;
  log?: { info(o: object, m?: string): void; warn(o: object, m?: string): void; error(o: object, m?: string): void };
}

export const USER_AGENT = 'Assay-Webhooks/1.0 (+https://www.standardwebhooks.com)';

export function createWebhookDispatcher(opts: DispatcherOptions) {
  const tunables = opts.config.webhooks;
  const workerId = `${os.hostname()}:${process.pid}:${randomBase62(6)}`;
  const box = secretBoxFor(opts.config);
  const client: WebhookClient = createWebhookClient({
    policy: urlPolicyFor(opts.config),
    timeoutMs: tunables.timeoutMs,
    // Several endpoints may share one origin (a hosted LMS); the per-endpoint limit is enforced by the claim.
    connectionsPerOrigin: tunables.concurrency,
    userAgent: USER_AGENT,
    resolver: opts.resolver,
  });
  const pollMs = opts.pollIntervalMs ?? 250;
  let stopped = true;
  /** While stopping, recording is retried until this time (ms), then left to the lease. */
  let giveUpAt = 0;
  let running = 0;
  let cycle: Promise<void> | null = null;
  let wakeAgain = false;
  let timer: NodeJS.Timeout | null = null;
  let listener: pg.Client | null = null;
  const inFlight = new Set<Promise<void>>();
  let queue: AttemptOutcome[] = [];
  let flushing: Promise<void> | null = null;
  let stopping: Promise<void> | null = null;

  function secretsOf(d: ClaimedDelivery, now: Date): string[] {
    const secrets = [box.open(d.secretEnc)];
    if (d.previousSecretEnc && d.previousSecretExpiresAt && d.previousSecretExpiresAt > now) secrets.push(box.open(d.previousSecretEnc));
    return secrets;
  }

  async function deliver(d: ClaimedDelivery): Promise<void> {
    const now = opts.clock.now();
    const result = await client.send({ url: d.url, msgId: d.event.id, body: envelopeBody(d.event), secrets: secretsOf(d, now), now });
    const verdict = judgeAttempt(result, d.attempts, tunables.retryScheduleMs, now, opts.random);
    queue.push({
      deliveryId: d.id,
      generation: d.generation,
      endpointId: d.endpointId,
      attemptedAt: now,
      statusCode: result.statusCode,
      errorClass: result.errorClass,
      durationMs: result.durationMs,
      excerpt: result.excerpt,
      status: verdict.kind === 'succeeded' ? 'succeeded' : verdict.kind === 'retry' ? 'pending' : 'failed',
      nextAttemptAt: verdict.kind === 'retry' ? verdict.nextAttemptAt : null,
      gone: verdict.kind === 'gone',
      pauseEndpointUntil: verdict.kind === 'retry' || verdict.kind === 'exhausted' ? verdict.pauseEndpointUntil : null,
    });
    if (verdict.kind === 'gone') opts.log?.warn({ endpointId: d.endpointId }, 'webhook endpoint answered 410 Gone; disabling it');
    await flush();
  }

  /** Writes queued outcomes; a failed write (database away) is retried until it lands or the dispatcher stops. */
  function flush(): Promise<void> {
    if (flushing) return flushing.then(() => (queue.length > 0 ? flush() : undefined));
    if (queue.length === 0) return Promise.resolve();
    flushing = (async () => {
      for (let delay = 50; queue.length > 0; delay = Math.min(delay * 2, 2000)) {
        const batch = queue;
        queue = [];
        try {
          await recordOutcomes(opts.pool, workerId, batch, opts.clock.now());
        } catch (err) {
          queue = batch.concat(queue);
          if (stopped && Date.now() >= giveUpAt) {
            opts.log?.warn({ err: (err as Error).message, outcomes: batch.length }, 'could not record webhook attempts; their leases will expire and they will be sent again');
            queue = [];
            return;
          }
          opts.log?.warn({ err: (err as Error).message }, 'recording webhook attempts failed; retrying');
          await new Promise((r) => setTimeout(r, delay));
        }
      }
    })().finally(() => {
      flushing = null;
    });
    return flushing;
  }

  function run(d: ClaimedDelivery): Promise<void> {
    running++;
    const p = deliver(d)
      .catch((err) => opts.log?.error({ err: (err as Error).message, deliveryId: d.id }, 'webhook delivery crashed; its lease will expire'))
      .finally(() => {
        running--;
        inFlight.delete(p);
        if (!stopped) wake();
      });
    inFlight.add(p);
    return p;
  }

  async function claim(limit: number): Promise<ClaimedDelivery[]> {
    return claimDeliveries(opts.pool, {
      now: opts.clock.now(),
      limit,
      workerId,
      leaseMs: tunables.leaseMs,
      endpointConcurrency: tunables.endpointConcurrency,
    });
  }

  function wake(): void {
    if (stopped) return;
    if (cycle) {
      wakeAgain = true;
      return;
    }
    cycle = (async () => {
      try {
        do {
          wakeAgain = false;
          for (;;) {
            const free = tunables.concurrency - running;
            if (free <= 0 || stopped) break;
            const claimed = await claim(free);
            for (const d of claimed) void run(d);
            if (claimed.length < free) break;
          }
        } while (wakeAgain && !stopped);
      } catch (err) {
        opts.log?.warn({ err: (err as Error).message }, 'webhook claim failed; will retry');
      } finally {
        cycle = null;
      }
    })();
  }

  function listenLater(): void {
    if (!stopped) setTimeout(() => void listen().catch(() => listenLater()), 1000).unref();
  }

  async function listen(): Promise<void> {
    const c = new pg.Client({ connectionString: opts.connectionString });
    let lost = false;
    c.on('error', () => {
      // The database went away: keep polling, listen again shortly.
      if (lost) return;
      lost = true;
      if (listener === c) listener = null;
      c.end().catch(() => undefined);
      listenLater();
    });
    c.on('notification', () => wake());
    await c.connect();
    await c.query(`LISTEN ${WEBHOOKS_CHANNEL}`);
    if (stopped) return void (await c.end());
    listener = c;
    wake(); // anything committed while we were not listening
  }

  /** Stops claiming, lets in-flight attempts finish (bounded by the request timeout) and records them. */
  async function stopNow(): Promise<void> {
    stopped = true;
    giveUpAt = Date.now() + 5000;
    if (timer) clearInterval(timer);
    timer = null;
    const l = listener;
    listener = null;
    await l?.end().catch(() => undefined);
    await cycle;
    await Promise.all([...inFlight]);
    await flush();
    await client.close();
  }

  return {
    workerId,
    async start(): Promise<void> {
      stopped = false;
      await listen().catch((err) => {
        opts.log?.warn({ err: (err as Error).message }, 'webhook dispatcher could not LISTEN; polling only for now');
        listenLater();
      });
      timer = setInterval(wake, pollMs);
      wake();
    },
    /** Delivers everything due now (by the injected clock) and records it; for tests with a manual clock. */
    async drain(): Promise<number> {
      let total = 0;
      for (;;) {
        const claimed = await claim(tunables.concurrency);
        if (claimed.length === 0) break;
        total += claimed.length;
        await Promise.all(claimed.map((d) => run(d)));
      }
      await flush();
      return total;
    },
    /** Idempotent: a second signal waits for the same stop. */
    stop(): Promise<void> {
      stopping ??= stopNow();
      return stopping;
    },
  };
}

export type WebhookDispatcher = ReturnType<typeof createWebhookDispatcher>;
