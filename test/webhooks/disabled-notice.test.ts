import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { manualClock } from '../helpers/harness.js';
import { newAssignment, registerEndpoint, transition, openWebhookRig, type WebhookRig } from '../helpers/webhook-setup.js';

/**
 * When Assay disables an endpoint by itself (410 Gone, or 5 days of
 * failures) the institution is told: a `webhook_endpoint.disabled` event,
 * listed by the events API and delivered to its other enabled endpoints that
 * subscribe to it.
 */
const P = '/api/partner/v1';
const NOTICE = 'webhook_endpoint.disabled';

describe('webhook_endpoint.disabled after a 410', () => {
  let rig: WebhookRig;
  beforeAll(async () => {
    rig = await openWebhookRig({ respond: ({ path }) => (path === '/gone' ? { status: 410, body: 'gone for good' } : { status: 200 }) });
  });
  afterAll(() => rig?.close());

  it('is delivered, signed, to the other endpoints subscribed to it, listed in the events API, and to no one else', async () => {
    const { h, rx } = rig;
    const t = await h.createTenant('Notice College');
    const gone = await registerEndpoint(h, t, rx, '/gone');
    await registerEndpoint(h, t, rx, '/watch-all');
    await registerEndpoint(h, t, rx, '/watch-notices', { eventTypes: [NOTICE] });
    await registerEndpoint(h, t, rx, '/started-only', { eventTypes: ['exam.started'] });
    const other = await h.createTenant('Bystander Academy');
    await registerEndpoint(h, other, rx, '/bystander');

    const [started] = await transition(h, await newAssignment(h, t), [{ type: 'start' }]);
    const notices = () => rx.received.filter((r) => r.json.type === NOTICE);
    await rx.waitFor(() => notices().length >= 2, 10_000, 'the notices');
    await new Promise((r) => setTimeout(r, 300)); // nothing else is on its way

    const got = notices();
    expect(got.map((r) => r.path).sort()).toEqual(['/watch-all', '/watch-notices']);
    for (const r of got) expect(r.verifiedWith).toEqual([true]);
    const notice = got[0]!.json;
    expect(notice.data).toEqual({
      endpointId: gone.endpointId,
      url: rx.url('/gone'),
      reason: 'gone',
      disabledAt: expect.any(String),
      failingSince: expect.any(String),
    });
    expect(Date.parse(notice.data.disabledAt)).toBe(Date.parse(notice.timestamp));
    // The run of failures began with the 410 itself (the endpoint had no failure before).
    expect(Date.parse(notice.data.failingSince)).toBeLessThanOrEqual(Date.parse(notice.data.disabledAt));
    expect(Date.parse(notice.data.failingSince)).toBeGreaterThan(Date.parse(notice.data.disabledAt) - 10_000);
    // The endpoint it is about got the event that made it answer 410, and nothing after.
    expect(rx.received.filter((r) => r.path === '/gone').map((r) => r.webhookId)).toEqual([started!.id]);

    const listed = (await h.partner(t, 'GET', `${P}/events?type=${NOTICE}`)).json();
    expect(listed.data).toEqual([notice]);
    const detail = (await h.partner(t, 'GET', `${P}/events/${notice.id}`)).json();
    expect(detail.deliveries.map((d: { url: string }) => d.url).sort()).toEqual([rx.url('/watch-all'), rx.url('/watch-notices')]);
    expect((await h.partner(other, 'GET', `${P}/events?type=${NOTICE}`)).json().data).toEqual([]);
    expect((await h.partner(other, 'GET', `${P}/events/${notice.id}`)).statusCode).toBe(404);
  });

  it('is not sent when the partner disables an endpoint itself', async () => {
    const { h, rx } = rig;
    const t = await h.createTenant('Quiet College');
    const mine = await registerEndpoint(h, t, rx, '/mine');
    await registerEndpoint(h, t, rx, '/quiet-watch');
    expect((await h.partner(t, 'PATCH', `${P}/webhook-endpoints/${mine.endpointId}`, { status: 'disabled' })).statusCode).toBe(200);
    await new Promise((r) => setTimeout(r, 300));
    expect((await h.partner(t, 'GET', `${P}/events?type=${NOTICE}`)).json().data).toEqual([]);
    expect(rx.received.filter((r) => r.path === '/quiet-watch')).toEqual([]);
  });

  it('can be chosen as a subscription, and an unknown type still cannot', async () => {
    const { h, rx } = rig;
    const created = await h.partner(h.b, 'POST', `${P}/webhook-endpoints`, { url: rx.url('/sub'), eventTypes: [NOTICE, 'exam.completed'] });
    expect(created.statusCode).toBe(201);
    expect(created.json().eventTypes).toEqual([NOTICE, 'exam.completed']);
    expect((await h.partner(h.b, 'POST', `${P}/webhook-endpoints`, { url: rx.url('/sub2'), eventTypes: ['webhook_endpoint.deleted'] })).statusCode).toBe(400);
  });
});

describe('webhook_endpoint.disabled after 5 days of failures', () => {
  const DAY = 24 * 3600_000;
  const clock = manualClock(new Date());
  let rig: WebhookRig;
  beforeAll(async () => {
    rig = await openWebhookRig({ clock, start: false, respond: ({ path }) => (path === '/down' ? { status: 503 } : { status: 200 }) });
  });
  afterAll(() => rig?.close());

  it('says why and since when', async () => {
    const { h, rx, dispatcher } = rig;
    const t = await h.createTenant('Patient School');
    const down = await registerEndpoint(h, t, rx, '/down');
    await registerEndpoint(h, t, rx, '/ops', { eventTypes: [NOTICE] });
    const start = clock.now().getTime();
    await transition(h, await newAssignment(h, t), [{ type: 'start' }]);
    await dispatcher.drain();

    clock.set(new Date(start + 5 * DAY));
    await transition(h, await newAssignment(h, t), [{ type: 'start' }]);
    await dispatcher.drain(); // the attempt that disables it, then the notice
    await dispatcher.drain();

    const got = rx.received.filter((r) => r.path === '/ops');
    expect(got).toHaveLength(1);
    expect(got[0]!.json).toMatchObject({
      type: NOTICE,
      data: { endpointId: down.endpointId, reason: 'failing', failingSince: new Date(start).toISOString(), disabledAt: new Date(start + 5 * DAY).toISOString() },
    });
    expect((await h.partner(t, 'GET', `${P}/webhook-endpoints/${down.endpointId}`)).json()).toMatchObject({ status: 'disabled', disabledReason: 'failing' });
  });
});
