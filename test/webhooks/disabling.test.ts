import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { manualClock, type Harness } from '../helpers/harness.js';
import { type Receiver } from '../helpers/webhook-receiver.js';
import { newAssignment, registerEndpoint, transition, openWebhookRig, type Dispatcher, type WebhookRig } from '../helpers/webhook-setup.js';

/**
 * An endpoint whose attempts all fail for 5 days is disabled. Time comes from
 * the injected clock: the test moves it by days and lets the dispatcher send
 * what is due at each step (drain), instead of waiting.
 */
const DAY = 24 * 3600_000;
const clock = manualClock(new Date());
let h: Harness;
let rx: Receiver;
let dispatcher: Dispatcher;
let rig: WebhookRig;
const healthy = new Set<string>();

beforeAll(async () => {
  rig = await openWebhookRig({ clock, start: false, respond: ({ path }) => (healthy.has(path) ? { status: 200 } : { status: 500, body: 'down' }) });
  ({ h, rx, dispatcher } = rig);
});
afterAll(() => rig.close());

const endpoint = async (tenant: Harness['a'], id: string) => (await h.partner(tenant, 'GET', `/api/partner/v1/webhook-endpoints/${id}`)).json();

/** One event, then every retry of the compressed schedule (if it fails), each sent when the clock reaches it. */
async function sendOneEvent(tenant: Harness['a']): Promise<string> {
  const [event] = await transition(h, await newAssignment(h, tenant), [{ type: 'start' }]);
  for (let i = 0; i < 10; i++) {
    await dispatcher.drain();
    clock.advance(1000);
  }
  return event!.id;
}

describe('disabling after 5 days of failures', () => {
  it('disables an endpoint whose attempts have all failed for 5 days, records it and fails its pending deliveries', async () => {
    const t = await h.createTenant('Failing School');
    const { endpointId } = await registerEndpoint(h, t, rx, '/failing');
    const start = clock.now().getTime();

    const first = await sendOneEvent(t);
    const e1 = await endpoint(t, endpointId);
    expect(e1).toMatchObject({ status: 'enabled', disabledReason: null });
    expect(Date.parse(e1.failingSince)).toBe(start);
    const v1 = (await h.partner(t, 'GET', `/api/partner/v1/events/${first}`)).json();
    expect(v1.deliveries[0].status).toBe('failed');
    expect(v1.deliveries[0].attempts).toHaveLength(8);

    clock.set(new Date(start + 4 * DAY));
    await sendOneEvent(t);
    expect(await endpoint(t, endpointId)).toMatchObject({ status: 'enabled' });

    clock.set(new Date(start + 5 * DAY));
    const [late] = await transition(h, await newAssignment(h, t), [{ type: 'start' }]);
    await dispatcher.drain();
    const e3 = await endpoint(t, endpointId);
    expect(e3).toMatchObject({ status: 'disabled', disabledReason: 'failing' });
    expect(Date.parse(e3.disabledAt)).toBe(start + 5 * DAY);
    // The retry that was scheduled is not made: the delivery failed with the disabling.
    const v3 = (await h.partner(t, 'GET', `/api/partner/v1/events/${late!.id}`)).json();
    expect(v3.deliveries[0]).toMatchObject({ status: 'failed', nextAttemptAt: null });
    expect(v3.deliveries[0].attempts).toHaveLength(1);

    const ops = (await h.admin('GET', `/api/admin/v1/webhook-endpoints?institutionId=${t.institutionId}&status=disabled`)).json();
    expect(ops.data).toMatchObject([{ endpointId, disabledReason: 'failing' }]);

    // Nothing more is sent to it; the events stay listable for recovery.
    const before = rx.received.filter((r) => r.path === '/failing').length;
    const [after] = await transition(h, await newAssignment(h, t), [{ type: 'start' }]);
    clock.advance(1000);
    await dispatcher.drain();
    expect(rx.received.filter((r) => r.path === '/failing').length).toBe(before);
    const listed = (await h.partner(t, 'GET', '/api/partner/v1/events?limit=100')).json().data.map((e: { id: string }) => e.id);
    expect(listed).toContain(after!.id);

    // Enabling again starts a clean record.
    const enabled = await h.partner(t, 'PATCH', `/api/partner/v1/webhook-endpoints/${endpointId}`, { status: 'enabled' });
    expect(enabled.json()).toMatchObject({ status: 'enabled', disabledReason: null, failingSince: null });
  });

  it('starts the 5 days again after any successful delivery', async () => {
    const t = await h.createTenant('Recovering School');
    const { endpointId } = await registerEndpoint(h, t, rx, '/recovering');
    const start = clock.now().getTime();
    await sendOneEvent(t);

    clock.set(new Date(start + 3 * DAY));
    healthy.add('/recovering');
    await sendOneEvent(t); // succeeds at the first attempt
    expect((await endpoint(t, endpointId)).failingSince).toBeNull();
    healthy.delete('/recovering');

    clock.set(new Date(start + 5 * DAY));
    await sendOneEvent(t);
    const e = await endpoint(t, endpointId);
    expect(e).toMatchObject({ status: 'enabled', disabledReason: null });
    expect(Date.parse(e.failingSince)).toBe(start + 5 * DAY);
  });
});
