import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Harness } from '../helpers/harness.js';
import { type Answer, type Receiver } from '../helpers/webhook-receiver.js';
import { newAssignment, openWebhookRig, registerEndpoint, startDispatcher, transition, type Dispatcher, type WebhookRig } from '../helpers/webhook-setup.js';

/**
 * The per-endpoint limit holds across dispatcher processes: three
 * dispatchers, each with its own pool as separate processes would have,
 * share one backlog. One endpoint answers in 60 ms (quick: its deliveries
 * are claimed ahead), one in 300 ms; neither ever has more than
 * endpointConcurrency requests open at once, and every event reaches each
 * exactly once.
 */
const LIMIT = 3;
const EVENTS = 45;
const DELAY: Record<string, number> = { '/quick': 60, '/slow': 300 };

let h: Harness;
let rx: Receiver;
let rig: WebhookRig;
const others: Dispatcher[] = [];
const open = new Map<string, number>();
const maxOpen = new Map<string, number>();

beforeAll(async () => {
  rig = await openWebhookRig({
    start: false,
    // A timeout far above the answers: a loaded machine must not turn a slow answer into a retry (the receiver would still hold the first).
    webhooks: { concurrency: 16, endpointConcurrency: LIMIT, timeoutMs: 5000, leaseMs: 20_000 },
    respond: ({ path }) => {
      open.set(path, (open.get(path) ?? 0) + 1);
      maxOpen.set(path, Math.max(maxOpen.get(path) ?? 0, open.get(path)!));
      return new Promise<Answer>((r) =>
        setTimeout(() => {
          open.set(path, open.get(path)! - 1);
          r({ status: 200 });
        }, DELAY[path]),
      );
    },
  });
  ({ h, rx } = rig);
  others.push(startDispatcher(h), startDispatcher(h));
});
afterAll(async () => {
  await Promise.all(others.map((d) => d.stop()));
  await rig?.close();
});

describe('the per-endpoint limit with three dispatcher processes', () => {
  it('keeps each endpoint at endpointConcurrency requests at once in total, and delivers every event exactly once', async () => {
    await registerEndpoint(h, h.a, rx, '/quick');
    await registerEndpoint(h, h.a, rx, '/slow');
    const events: string[] = [];
    // A backlog first, so that all three start by competing for the same rows; then more while they run.
    for (let i = 0; i < 30; i++) events.push((await transition(h, await newAssignment(h, h.a), [{ type: 'start' }]))[0]!.id);
    await Promise.all([rig.dispatcher, ...others].map((d) => d.start()));
    for (let i = 30; i < EVENTS; i++) {
      events.push((await transition(h, await newAssignment(h, h.a), [{ type: 'start' }]))[0]!.id);
      await new Promise((r) => setTimeout(r, 20));
    }
    await rx.waitFor(() => events.every((id) => rx.deliveredIds('/quick').has(id) && rx.deliveredIds('/slow').has(id)), 30_000, 'every event at both endpoints');

    expect(maxOpen.get('/quick')).toBe(LIMIT);
    expect(maxOpen.get('/slow')).toBe(LIMIT);
    for (const path of ['/quick', '/slow']) {
      const ids = rx.received.filter((r) => r.path === path).map((r) => r.webhookId);
      expect(ids).toHaveLength(EVENTS);
      expect(new Set(ids).size).toBe(EVENTS);
    }
  });
});
