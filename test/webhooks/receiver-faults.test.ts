import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Harness } from '../helpers/harness.js';
import { type Receiver } from '../helpers/webhook-receiver.js';
import { newAssignment, registerEndpoint, transition, openWebhookRig, type WebhookRig } from '../helpers/webhook-setup.js';

/**
 * The partner's endpoint fails in every way in turn (500s, then no answer,
 * then not listening at all) while events keep coming, then recovers. With a
 * compressed retry schedule every event must arrive, none may be given up.
 */
let h: Harness;
let rx: Receiver;
let rig: WebhookRig;

beforeAll(async () => {
  rig = await openWebhookRig({ webhooks: { retryScheduleMs: [0, 100, 200, 400, 800, 1000, 1500, 2000], timeoutMs: 300, leaseMs: 1500 } });
  ({ h, rx } = rig);
});
afterAll(() => rig.close());

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('a failing receiver that recovers', () => {
  it('gets every event at least once after answering 500, timing out and being down', async () => {
    const { endpointId } = await registerEndpoint(h, h.a, rx, '/unreliable');
    let mode: 'error' | 'hang' | 'ok' = 'error';
    rx.respond = () => (mode === 'error' ? { status: 500, body: 'internal error' } : mode === 'hang' ? { hang: true } : { status: 200 });
    const events: string[] = [];
    const produce = async (n: number) => {
      for (let i = 0; i < n; i++) events.push((await transition(h, await newAssignment(h, h.a), [{ type: 'start' }]))[0]!.id);
    };

    await produce(8);
    await sleep(400);
    mode = 'hang';
    await produce(8);
    await sleep(600);
    await rx.down();
    await produce(8);
    await sleep(600);
    mode = 'ok';
    await rx.up();
    await produce(8);

    await rx.waitFor(() => events.every((id) => rx.deliveredIds('/unreliable').has(id)), 20_000, 'every event after recovery');
    const until = Date.now() + 5000;
    let rows: Array<{ status: string; n: number }> = [];
    while (Date.now() < until) {
      rows = (await h.pool.query("SELECT status, count(*)::int AS n FROM webhook_deliveries WHERE endpoint_id = $1 GROUP BY status", [endpointId])).rows;
      if (rows.length === 1 && rows[0]!.status === 'succeeded') break;
      await sleep(50);
    }
    expect(rows).toEqual([{ status: 'succeeded', n: 32 }]);

    const { rows: failures } = await h.pool.query(
      `SELECT DISTINCT coalesce(a.status_code::text, a.error_class) AS what FROM webhook_attempts a
         JOIN webhook_deliveries d ON d.id = a.delivery_id WHERE d.endpoint_id = $1`,
      [endpointId],
    );
    const seen = failures.map((f) => f.what);
    expect(seen).toEqual(expect.arrayContaining(['200', '500', 'timeout', 'connection_refused']));
    // Requests in flight when the receiver went down are cut off: connection_reset.
    for (const what of seen) expect(['200', '500', 'timeout', 'connection_refused', 'connection_reset']).toContain(what);
    expect((await h.partner(h.a, 'GET', `/api/partner/v1/webhook-endpoints/${endpointId}`)).json()).toMatchObject({ status: 'enabled', failingSince: null });
  }, 40_000);
});
