import os from 'node:os';
import { performance } from 'node:perf_hooks';
import pg from 'pg';
import type { Clock } from '../../platform/clock.js';
import type { Config } from '../../platform/config.js';
import { randomBase62 } from '../../platform/ids.js';
import { recordWebhookAttempt } from '../../platform/telemetry/metrics.js';
import { inSpanFrom } from '../../platform/telemetry/trace-context.js';
import { createNotificationListener } from '../../platform/listener.js';
import { clientClassFor } from '../../platform/primary-hosts.js';
import { envelopeBody } from '../lifecycle/event-envelope.js';
import { createDeliveryAttemptRecorder } from './delivery-attempt-recorder.js';
import { claimDeliveries, releaseClaims, type ClaimedDelivery } from './deliveries-repo.js';
import { WEBHOOKS_CHANNEL } from './fan-out.js';
import { judgeAttempt } from './retry-policy.js';
import { createWebhookClient, type SendOutcome } from './send-webhook.js';
import type { Resolver } from './url-guard.js';
import { cachedOpener } from './secret-box.js';
import { secretBoxFor, urlPolicyFor } from './webhooks-context.js';

/**
 * The webhook dispatcher: claims due deliveries (deliveries-repo.ts), POSTs
 * them (send-webhook.ts), judges each result (retry-policy.ts) and records it
 * (delivery-attempt-recorder.ts). Woken by NOTIFY on the commit of a fanned-out event,
 * and by a short poll for retries that come due and notifications missed
 * across a reconnect.
 *
 * A claimed delivery is leased to this process until its attempt is
 * recorded, so no other dispatcher sends it meanwhile; if this process dies,
 * the lease runs out and another dispatcher sends it again (at-least-once:
 * receivers dedupe by `webhook-id`).
 *
 * Claims run ahead of the free slots (a ready list), so a finished request
 * is replaced at once instead of after a database round trip. Only
 * endpoints that answer quickly get deliveries claimed ahead (half their
 * limit), and only while no other process holds leases on them (the claim
 * decides: deliveries-repo.ts); a ready delivery whose lease could no longer
 * cover a whole attempt is handed back instead of sent: an attempt never
 * outlives its lease, so the leases in the database cover every request open.
 *
 * Batching: a claim and a record cost one statement each whatever their
 * size, and each claim steps over the rows already leased. So finished
 * attempts do not each trigger a claim: one is made once a batch's worth of
 * slots has freed (a quarter of the concurrency), or at once when nothing is
 * left ready to start; NOTIFY and the poll always claim. Recording batches
 * itself (delivery-attempt-recorder.ts).
 */
export interface DispatcherOptions {
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

const OUTCOME = { succeeded: 'succeeded', retry: 'retry', exhausted: 'failed', gone: 'gone' } as const;

export function createWebhookDispatcher(opts: DispatcherOptions) {
  const tunables = opts.config.webhooks;
  const workerId = `${os.hostname()}:${process.pid}:${randomBase62(6)}`;
  const client = createWebhookClient({
    policy: urlPolicyFor(opts.config),
    timeoutMs: tunables.timeoutMs,
    // Several endpoints may share one origin (a hosted LMS); the per-endpoint limit is the claim's job.
    connectionsPerOrigin: tunables.concurrency,
    userAgent: USER_AGENT,
    resolver: opts.resolver,
  });
  /**
   * The dispatcher's own connections, with asynchronous commit: a claim or a
   * recorded attempt lost in a database crash only means the event is sent
   * again (a lost claim frees the row, a lost record leaves it leased until
   * the lease runs out), which at-least-once allows; in exchange nothing here
   * waits for a disk flush. Events themselves are written elsewhere, with the
   * normal synchronous commit. A session option, so the worker passes the
   * session URL (ASSAY_DATABASE_SESSION_URL) here, never a transaction-mode pooler.
   */
  const pool = new pg.Pool({ connectionString: opts.connectionString, Client: clientClassFor(opts.connectionString), max: 3, options: '-c synchronous_commit=off', application_name: 'assay-webhook-dispatcher' });
  pool.on('error', () => undefined);
  /** Recording lags so far behind that claims wait (see wanted()); only then must a recorded batch wake the claimer. */
  let backlogged = false;
  const recorder = createDeliveryAttemptRecorder({ pool, workerId, clock: opts.clock, log: opts.log, onRecorded: () => (backlogged ? wakeSoon() : undefined) });
  const pollMs = opts.pollIntervalMs ?? 250;
  const prefetch = Math.max(1, Math.floor(tunables.concurrency / 2));
  /** Finished attempts that make a claim worth its statement while others are still ready to start. */
  const claimBatch = Math.max(1, Math.floor(tunables.concurrency / 4));
  const aheadPerEndpoint = Math.ceil(tunables.endpointConcurrency / 2);
  /** An endpoint whose last attempt took less than this may have deliveries claimed ahead. */
  const FAST_MS = 250;
  /** A ready delivery is sent only while its lease still covers a whole attempt and this margin. */
  const sendableForMs = tunables.leaseMs - tunables.timeoutMs - Math.min(1000, (tunables.leaseMs - tunables.timeoutMs) / 2);

  let stopped = true;
  let stopping: Promise<void> | null = null;
  let running = 0;
  /** Attempts finished since the last claim. */
  let freedSinceClaim = 0;
  /** Claim statements and the deliveries they returned, for the bench. */
  const counters = { claims: 0, claimed: 0 };
  const ready: Array<ClaimedDelivery & { claimedAt: number }> = [];
  /**
   * Running deliveries per endpoint: at most endpointConcurrency each here. Across processes the claim keeps
   * the limit (deliveries-repo.ts): while another process holds leases on an endpoint, this one is given no
   * more than what every process's leases leave of the limit.
   */
  const runningBy = new Map<string, number>();
  /** Running and ready deliveries per endpoint. */
  const heldBy = new Map<string, number>();
  /** Endpoints whose last attempt was quick. */
  const fast = new Set<string>();
  const inFlight = new Set<Promise<void>>();
  let cycling = false;
  let cycle: Promise<void> = Promise.resolve();
  let wakeAgain = false;
  let wakeScheduled = false;
  let timer: NodeJS.Timeout | null = null;
  const listener = createNotificationListener({
    connection: { connectionString: opts.connectionString },
    channel: WEBHOOKS_CHANNEL,
    onNotify: () => wake(),
    log: opts.log,
  });
  const open = cachedOpener(secretBoxFor(opts.config));

  function secretsOf(d: ClaimedDelivery, now: Date): string[] {
    const secrets = [open(d.secretEnc, d.endpointId)];
    if (d.previousSecretEnc && d.previousSecretExpiresAt && d.previousSecretExpiresAt > now) secrets.push(open(d.previousSecretEnc, d.endpointId));
    return secrets;
  }

  /** One attempt; resolves when the HTTP exchange is over and its outcome is queued for recording. */
  async function attempt(d: ClaimedDelivery): Promise<void> {
    const now = opts.clock.now();
    let secrets: string[];
    try {
      secrets = secretsOf(d, now);
    } catch (err) {
      // ASSAY_SECRET no longer lists the key this endpoint's secret was sealed with: nothing can be signed.
      opts.log?.error({ endpointId: d.endpointId, err: (err as Error).message }, 'webhook secret cannot be opened');
      secrets = [];
    }
    // The span continues the trace of whatever appended the event (the partner's request, a job).
    const attributes = { 'assay.event.id': d.event.id, 'assay.event.type': d.event.type, 'assay.webhook.endpoint_id': d.endpointId, 'assay.webhook.attempt': d.attempts };
    const result = await inSpanFrom('webhook.deliver', d.event.traceparent, attributes, async (span) => {
      const sent: SendOutcome =
        secrets.length > 0
          ? await client.send({ url: d.url, msgId: d.event.id, body: envelopeBody(d.event), secrets, now })
          : { statusCode: null, errorClass: 'secret_unavailable', durationMs: 0, excerpt: null, retryAfterMs: null };
      span?.setAttributes(sent.statusCode === null ? { 'error.type': sent.errorClass ?? 'unknown' } : { 'http.response.status_code': sent.statusCode });
      return sent;
    });
    if (result.durationMs < FAST_MS && result.errorClass === null) fast.add(d.endpointId);
    else fast.delete(d.endpointId);
    const verdict = judgeAttempt(result, d.attempts, tunables.retryScheduleMs, now, opts.random);
    recordWebhookAttempt(OUTCOME[verdict.kind], result.durationMs, d.event.createdAt, now);
    if (verdict.kind === 'gone') opts.log?.warn({ endpointId: d.endpointId }, 'webhook endpoint answered 410 Gone; disabling it');
    recorder.add({
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
      endpointUnhealthy: d.endpointUnhealthy,
    });
  }

  /** Runs a claimed delivery; its slot frees as soon as the HTTP exchange is over (recording goes on behind). */
  function run(d: ClaimedDelivery): Promise<void> {
    running++;
    bump(runningBy, d.endpointId, 1);
    const p = attempt(d)
      .catch((err) => opts.log?.error({ err: (err as Error).message, deliveryId: d.id }, 'webhook delivery crashed; its lease will run out'))
      .finally(() => {
        running--;
        freedSinceClaim++;
        bump(runningBy, d.endpointId, -1);
        bump(heldBy, d.endpointId, -1);
        inFlight.delete(p);
        startReady();
        if (freedSinceClaim >= claimBatch || ready.length === 0) wakeSoon();
      });
    inFlight.add(p);
    return p;
  }

  function bump(map: Map<string, number>, key: string, by: number): void {
    const n = (map.get(key) ?? 0) + by;
    if (n === 0) map.delete(key);
    else map.set(key, n);
  }

  /** Starts ready deliveries whose endpoint has a free slot, oldest first; hands back those held too long. */
  function startReady(): void {
    const stale: number[] = [];
    const now = performance.now();
    for (let i = 0; i < ready.length && running < tunables.concurrency; ) {
      const d = ready[i]!;
      if (now - d.claimedAt > sendableForMs) {
        ready.splice(i, 1);
        bump(heldBy, d.endpointId, -1);
        stale.push(d.id);
      } else if ((runningBy.get(d.endpointId) ?? 0) < tunables.endpointConcurrency) {
        ready.splice(i, 1);
        void run(d);
      } else {
        i++;
      }
    }
    if (stale.length > 0) {
      releaseClaims(pool, workerId, stale).catch((err) => opts.log?.warn({ err: (err as Error).message }, 'could not hand back claims; their leases will run out'));
    }
  }

  /** How many more deliveries each endpoint may have claimed: its limit, plus some ahead if it answers quickly. */
  function roomByEndpoint(): Map<string, number> {
    const room = new Map<string, number>();
    for (const id of new Set([...heldBy.keys(), ...fast])) {
      room.set(id, tunables.endpointConcurrency + (fast.has(id) ? aheadPerEndpoint : 0) - (heldBy.get(id) ?? 0));
    }
    return room;
  }

  async function claim(limit: number): Promise<ClaimedDelivery[]> {
    freedSinceClaim = 0;
    const claimed = await claimDeliveries(pool, {
      now: opts.clock.now(),
      limit,
      workerId,
      leaseMs: tunables.leaseMs,
      endpointConcurrency: tunables.endpointConcurrency,
      room: roomByEndpoint(),
    });
    for (const d of claimed) bump(heldBy, d.endpointId, 1);
    counters.claims++;
    counters.claimed += claimed.length;
    return claimed;
  }

  function pushReady(claimed: ClaimedDelivery[]): void {
    const at = performance.now();
    for (const d of claimed) ready.push(Object.assign(d, { claimedAt: at }));
  }

  /** Coalesces the wake-ups of attempts that finish in the same turn of the event loop into one claim. */
  function wakeSoon(): void {
    if (wakeScheduled || stopped) return;
    wakeScheduled = true;
    setImmediate(() => {
      wakeScheduled = false;
      wake();
    });
  }

  /** How many more to claim: room for the slots and a little ready ahead; none while recording lags far behind. */
  function wanted(): number {
    backlogged = recorder.unrecorded() >= tunables.concurrency * 4;
    if (backlogged) return 0;
    return tunables.concurrency + prefetch - running - ready.length;
  }

  function wake(): void {
    if (stopped) return;
    if (cycling) {
      wakeAgain = true;
      return;
    }
    // A flag, not `cycle`: when nothing is wanted the cycle ends without awaiting, before its promise is assigned.
    cycling = true;
    cycle = (async () => {
      try {
        do {
          wakeAgain = false;
          for (;;) {
            const want = wanted();
            if (want <= 0 || stopped) break;
            const claimed = await claim(want);
            pushReady(claimed);
            startReady();
            if (claimed.length < want) break;
          }
        } while (wakeAgain && !stopped);
      } catch (err) {
        opts.log?.warn({ err: (err as Error).message }, 'webhook claim failed; will retry');
      } finally {
        cycling = false;
      }
    })();
  }

  /** Stops claiming, hands back unstarted claims, lets running attempts finish (bounded by the timeout) and records them. */
  async function stopNow(): Promise<void> {
    stopped = true;
    recorder.giveUpAfter(5000);
    if (timer) clearInterval(timer);
    timer = null;
    await listener.stop();
    await cycle;
    const unstarted = ready.splice(0);
    for (const d of unstarted) bump(heldBy, d.endpointId, -1);
    if (unstarted.length > 0) await releaseClaims(pool, workerId, unstarted.map((d) => d.id)).catch(() => undefined);
    await Promise.all([...inFlight]);
    await recorder.flush();
    await client.close();
    await pool.end();
  }

  return {
    workerId,
    /** Claim statements made so far, the deliveries they returned, and record statements. */
    counters: () => ({ ...counters, records: recorder.writes() }),
    async start(): Promise<void> {
      stopped = false;
      await listener.start();
      timer = setInterval(wake, pollMs);
      wake();
    },
    /** Delivers everything due now (by the injected clock) and records it; for tests with a manual clock. */
    async drain(): Promise<number> {
      let total = 0;
      for (;;) {
        const claimed = await claim(tunables.concurrency);
        if (claimed.length === 0) return total;
        total += claimed.length;
        pushReady(claimed);
        while (ready.length > 0 || inFlight.size > 0) {
          startReady();
          await Promise.race(inFlight);
        }
        // Recorded before the next claim, so a retry that is already due is seen.
        await recorder.flush();
      }
    },
    /** Idempotent: a second signal waits for the same stop. */
    stop(): Promise<void> {
      stopping ??= stopNow();
      return stopping;
    },
  };
}

export type WebhookDispatcher = ReturnType<typeof createWebhookDispatcher>;
