import { expect } from 'vitest';
import type { Config, WebhookTunables } from '../../src/platform/config.js';
import { withTransaction } from '../../src/platform/db.js';
import { applyTransition } from '../../src/modules/lifecycle/apply-transition.js';
import type { LifecycleAction } from '../../src/modules/lifecycle/state-machine.js';
import { createWebhookDispatcher, type DispatcherOptions } from '../../src/modules/webhooks/dispatcher.js';
import type { Clock } from '../../src/platform/clock.js';
import { assignmentBody, createHarness, type Harness, type Tenant } from './harness.js';
import { startReceiver, type Receiver } from './webhook-receiver.js';

/** Shared set-up for webhook tests: a compressed schedule, endpoints on the receiver, a dispatcher. */

/** The product's schedule shrunk from hours to milliseconds, with a short timeout and lease. */
export function fastWebhooks(overrides: Partial<WebhookTunables> = {}): WebhookTunables {
  return {
    retryScheduleMs: [0, 50, 100, 150, 200, 300, 400, 500],
    timeoutMs: 500,
    leaseMs: 2000,
    concurrency: 16,
    endpointConcurrency: 8,
    ...overrides,
  };
}

export async function registerEndpoint(
  h: Harness,
  tenant: Tenant,
  receiver: Receiver,
  path: string,
  extra: Record<string, unknown> = {},
): Promise<{ endpointId: string; secret: string }> {
  const res = await h.partner(tenant, 'POST', '/api/partner/v1/webhook-endpoints', { url: receiver.url(path), ...extra });
  expect(res.statusCode, res.body).toBe(201);
  const { endpointId, secret } = res.json();
  receiver.setSecrets(path, [secret]);
  return { endpointId, secret };
}

export function startDispatcher(h: Harness, extra: Partial<DispatcherOptions> = {}) {
  const d = createWebhookDispatcher({ connectionString: h.databaseUrl, clock: h.clock, config: h.ctx.config, ...extra });
  return d;
}

export async function newAssignment(h: Harness, tenant: Tenant, overrides: Record<string, unknown> = {}): Promise<string> {
  const res = await h.partner(tenant, 'POST', '/api/partner/v1/assignments', assignmentBody(tenant, overrides));
  expect(res.statusCode, res.body).toBe(201);
  return res.json().assignmentId;
}

/** Drives the lifecycle directly (the transition writer appends the events and their deliveries). */
export async function transition(h: Harness, assignmentId: string, actions: LifecycleAction[]) {
  const outcome = await withTransaction(h.pool, (tx) => applyTransition(tx, assignmentId, actions, h.clock.now()));
  expect(outcome.ok).toBe(true);
  return outcome.ok ? outcome.events : [];
}

export type Dispatcher = ReturnType<typeof startDispatcher>;

export interface WebhookRig {
  h: Harness;
  rx: Receiver;
  dispatcher: Dispatcher;
  /** Stops the dispatcher, then the receiver, then the harness. */
  close(): Promise<void>;
}

/**
 * The set-up most webhook test files share: a harness admitting loopback
 * endpoints with the compressed schedule, a receiver on loopback (answering
 * with `respond` when given), and a dispatcher, started unless `start` is false
 * (tests on a manual clock drain it themselves).
 */
export async function openWebhookRig(
  opts: {
    webhooks?: Partial<WebhookTunables>;
    clock?: Clock;
    respond?: Receiver['respond'];
    dispatcher?: Partial<DispatcherOptions>;
    start?: boolean;
    /** More configuration (e.g. `mail` to an SMTP sink). */
    config?: Partial<Config>;
  } = {},
): Promise<WebhookRig> {
  const h = await createHarness({ ...(opts.clock ? { clock: opts.clock } : {}), config: { allowInsecureUrls: true, webhooks: fastWebhooks(opts.webhooks), ...opts.config } });
  const rx = await startReceiver();
  if (opts.respond) rx.respond = opts.respond;
  const dispatcher = startDispatcher(h, opts.dispatcher);
  if (opts.start !== false) await dispatcher.start();
  return {
    h,
    rx,
    dispatcher,
    async close() {
      await dispatcher.stop();
      await rx.close();
      await h.close();
    },
  };
}
