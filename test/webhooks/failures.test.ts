import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createWebhookClient } from '../../src/modules/webhooks/send-webhook.js';
import { generateEndpointSecret } from '../../src/modules/webhooks/secret-box.js';
import { systemResolver, type Resolver } from '../../src/modules/webhooks/url-guard.js';
import { type Harness } from '../helpers/harness.js';
import { type Answer, type Receiver } from '../helpers/webhook-receiver.js';
import { newAssignment, registerEndpoint, transition, openWebhookRig, type WebhookRig } from '../helpers/webhook-setup.js';

/**
 * How delivery handles a partner that fails: retries on the (compressed)
 * schedule, Retry-After and back-off, 410, redirects, timeouts, exhaustion
 * and redelivery, per-endpoint concurrency, and addresses refused at
 * connection time. Real clock, live dispatcher.
 */
let h: Harness;
let rx: Receiver;
let rig: WebhookRig;
/** Host names the dispatcher resolves to chosen addresses (other names go to the system resolver). */
const dns = new Map<string, string[][]>();
const resolver: Resolver = async (host) => {
  const queue = dns.get(host);
  if (!queue) return systemResolver(host);
  const next = queue.length > 1 ? queue.shift()! : queue[0]!;
  return next.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
};
const answers = new Map<string, (count: number) => Answer | Promise<Answer>>();

beforeAll(async () => {
  rig = await openWebhookRig({
    webhooks: { concurrency: 8, endpointConcurrency: 3 },
    respond: ({ path, count }) => answers.get(path)?.(count) ?? { status: 200, body: 'ok' },
    dispatcher: { resolver },
  });
  ({ h, rx } = rig);
});
afterAll(() => rig.close());

const P = '/api/partner/v1';
const eventView = async (id: string) => (await h.partner(h.a, 'GET', `${P}/events/${id}`)).json();

async function startedEvent(tenant = h.a): Promise<string> {
  const [event] = await transition(h, await newAssignment(h, tenant), [{ type: 'start' }]);
  return event!.id;
}

async function settled(eventId: string, endpointId: string, status: 'succeeded' | 'failed', timeoutMs = 8000) {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const d = (await eventView(eventId)).deliveries.find((x: { endpointId: string }) => x.endpointId === endpointId);
    if (d?.status === status) return d;
    if (Date.now() > until) throw new Error(`delivery not ${status}: ${JSON.stringify(d)}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

describe('retries', () => {
  it('retries failures on the schedule and records every attempt with its status, duration, excerpt and next time', async () => {
    answers.set('/flaky', (n) => (n <= 2 ? { status: 500, body: 'x'.repeat(3000) } : { status: 204 }));
    const { endpointId } = await registerEndpoint(h, h.a, rx, '/flaky');
    const eventId = await startedEvent();
    const d = await settled(eventId, endpointId, 'succeeded');
    expect(d.attempts.map((a: { statusCode: number }) => a.statusCode)).toEqual([500, 500, 204]);
    const [first, second, third] = d.attempts;
    expect(first.responseExcerpt).toBe('x'.repeat(1024));
    expect(first.errorClass).toBeNull();
    expect(first.durationMs).toBeGreaterThanOrEqual(0);
    expect(Date.parse(first.nextAttemptAt) - Date.parse(first.attemptedAt)).toBeGreaterThanOrEqual(45); // 50 ms ± 10 %
    expect(Date.parse(second.attemptedAt)).toBeGreaterThanOrEqual(Date.parse(first.nextAttemptAt));
    expect(Date.parse(second.nextAttemptAt) - Date.parse(second.attemptedAt)).toBeGreaterThanOrEqual(90); // 100 ms ± 10 %
    expect(third.nextAttemptAt).toBeNull();
    expect(d.nextAttemptAt).toBeNull();
    const receipts = rx.received.filter((r) => r.path === '/flaky' && r.webhookId === eventId);
    expect(receipts).toHaveLength(3);
    expect(new Set(receipts.map((r) => r.body)).size).toBe(1); // the same body and webhook-id on every retry
    expect(receipts.every((r) => r.verifiedWith[0])).toBe(true);
  });

  it('records a timeout when the partner does not answer in time, and retries', async () => {
    answers.set('/slow', (n) => (n === 1 ? { hang: true } : { status: 200 }));
    const { endpointId } = await registerEndpoint(h, h.a, rx, '/slow');
    const eventId = await startedEvent();
    const d = await settled(eventId, endpointId, 'succeeded');
    expect(d.attempts[0]).toMatchObject({ statusCode: null, errorClass: 'timeout' });
    expect(d.attempts[0].durationMs).toBeGreaterThanOrEqual(450); // the 500 ms timeout of fastWebhooks()
    expect(d.attempts[1]).toMatchObject({ statusCode: 200, errorClass: null });
  });

  it('does not follow redirects: a 302 is a failed attempt and the target is never requested', async () => {
    answers.set('/moved', (n) => (n === 1 ? { status: 302, headers: { location: '/moved-target' } } : { status: 200 }));
    const { endpointId } = await registerEndpoint(h, h.a, rx, '/moved');
    const eventId = await startedEvent();
    const d = await settled(eventId, endpointId, 'succeeded');
    expect(d.attempts.map((a: { statusCode: number }) => a.statusCode)).toEqual([302, 200]);
    expect(rx.received.some((r) => r.path === '/moved-target')).toBe(false);
  });

  it('gives up after the last attempt of the schedule; the event stays listed and redelivery sends it again', async () => {
    let failing = true;
    answers.set('/down-for-long', () => (failing ? { status: 503 } : { status: 200 }));
    const { endpointId } = await registerEndpoint(h, h.a, rx, '/down-for-long');
    const eventId = await startedEvent();
    const failed = await settled(eventId, endpointId, 'failed', 15_000);
    expect(failed.attempts).toHaveLength(8);
    expect(failed.attempts.every((a: { statusCode: number }) => a.statusCode === 503)).toBe(true);
    expect(failed.attempts[7].nextAttemptAt).toBeNull();
    const listed = (await h.partner(h.a, 'GET', `${P}/events?limit=100`)).json().data.map((e: { id: string }) => e.id);
    expect(listed).toContain(eventId);

    failing = false;
    const redo = await h.partner(h.a, 'POST', `${P}/events/${eventId}/redeliver`, { endpointId });
    expect(redo.statusCode).toBe(202);
    expect(redo.json()).toEqual({ eventId, endpointIds: [endpointId] });
    const done = await settled(eventId, endpointId, 'succeeded');
    expect(done.attempts).toHaveLength(9);
    expect(rx.deliveredIds('/down-for-long').has(eventId)).toBe(true);
  }, 30_000);
});

describe('Retry-After and back-off', () => {
  it('waits at least Retry-After before the next attempt, and holds the endpoint’s other deliveries meanwhile', async () => {
    answers.set('/busy', (n) => (n === 1 ? { status: 429, headers: { 'retry-after': '1' } } : { status: 200 }));
    const { endpointId } = await registerEndpoint(h, h.a, rx, '/busy');
    const first = await startedEvent();
    await rx.waitFor(() => rx.received.some((r) => r.path === '/busy' && r.answered === 429), 5000, 'the 429');
    const pausedAt = Date.now();
    // The dispatcher records the pause once it has the answer: the next event is made after that, as one made
    // between the two (a loaded machine) would rightly be claimed before the pause exists.
    for (let i = 0; i < 100 && !(await h.pool.query('SELECT paused_until FROM webhook_endpoints WHERE id = $1', [endpointId])).rows[0]?.paused_until; i++) {
      await new Promise((r) => setTimeout(r, 10));
    }
    const second = await startedEvent();
    const d1 = await settled(first, endpointId, 'succeeded');
    const [a1, a2] = d1.attempts;
    expect(a1.statusCode).toBe(429);
    expect(Date.parse(a2.attemptedAt) - Date.parse(a1.attemptedAt)).toBeGreaterThanOrEqual(1000);
    await settled(second, endpointId, 'succeeded');
    const secondArrival = rx.received.find((r) => r.path === '/busy' && r.webhookId === second)!.at;
    expect(secondArrival - pausedAt).toBeGreaterThanOrEqual(700); // held by the pause, not sent at once
  });
});

describe('410 Gone', () => {
  it('disables the endpoint, records why, and stops sending to it; other endpoints carry on', async () => {
    answers.set('/gone', () => ({ status: 410, body: 'no such hook' }));
    const gone = await registerEndpoint(h, h.b, rx, '/gone');
    const alive = await registerEndpoint(h, h.b, rx, '/alive');
    const first = await startedEvent(h.b);
    const until = Date.now() + 5000;
    let endpoint;
    do {
      endpoint = (await h.partner(h.b, 'GET', `${P}/webhook-endpoints/${gone.endpointId}`)).json();
      if (endpoint.status === 'disabled') break;
      await new Promise((r) => setTimeout(r, 25));
    } while (Date.now() < until);
    expect(endpoint).toMatchObject({ status: 'disabled', disabledReason: 'gone' });
    expect(endpoint.disabledAt).not.toBeNull();
    const view = (await h.partner(h.b, 'GET', `${P}/events/${first}`)).json();
    expect(view.deliveries.find((d: { endpointId: string }) => d.endpointId === gone.endpointId)).toMatchObject({
      status: 'failed',
      attempts: [{ statusCode: 410, responseExcerpt: 'no such hook' }],
    });

    const second = await startedEvent(h.b);
    await rx.waitFor(() => rx.deliveredIds('/alive').has(second), 5000, 'the next event at the live endpoint');
    expect(rx.received.filter((r) => r.path === '/gone').map((r) => r.webhookId)).toEqual([first]);
    expect(alive.endpointId).toMatch(/^whep_/);
  });
});

describe('per-endpoint concurrency', () => {
  it('keeps a slow endpoint to its limit while another endpoint’s events go through', async () => {
    let open = 0;
    let maxOpen = 0;
    answers.set('/tarpit', () => {
      open++;
      maxOpen = Math.max(maxOpen, open);
      return new Promise<Answer>((r) => setTimeout(() => (open--, r({ status: 200 })), 300));
    });
    const t = await h.createTenant('Concurrency School');
    await registerEndpoint(h, t, rx, '/tarpit');
    const u = await h.createTenant('Quick School');
    await registerEndpoint(h, u, rx, '/quick');
    const slow = await Promise.all(Array.from({ length: 12 }, () => startedEvent(t)));
    const quick = await Promise.all(Array.from({ length: 12 }, () => startedEvent(u)));
    await rx.waitFor(() => quick.every((id) => rx.deliveredIds('/quick').has(id)), 5000, 'the quick endpoint’s events');
    const slowDone = slow.filter((id) => rx.deliveredIds('/tarpit').has(id)).length;
    expect(slowDone).toBeLessThan(12); // the quick endpoint did not wait for the slow one
    await rx.waitFor(() => slow.every((id) => rx.deliveredIds('/tarpit').has(id)), 10_000, 'the slow endpoint’s events');
    expect(maxOpen).toBeLessThanOrEqual(3);
    expect(maxOpen).toBeGreaterThanOrEqual(2);
  });
});

describe('addresses checked at connection time', () => {
  it('refuses a host name that resolves to a private address, and records why', async () => {
    dns.set('hooks.private-partner.example', [['10.0.0.5']]);
    const res = await h.partner(h.a, 'POST', `${P}/webhook-endpoints`, { url: `http://hooks.private-partner.example:${rx.port}/private` });
    expect(res.statusCode).toBe(201);
    const endpointId = res.json().endpointId;
    const eventId = await startedEvent();
    const until = Date.now() + 5000;
    let d;
    do {
      d = (await eventView(eventId)).deliveries.find((x: { endpointId: string }) => x.endpointId === endpointId);
      if (d?.attempts.length) break;
      await new Promise((r) => setTimeout(r, 25));
    } while (Date.now() < until);
    expect(d.attempts[0]).toMatchObject({ statusCode: null, errorClass: 'address_not_allowed' });
  });

  it('checks every new connection, so a name re-pointed at a private address (DNS rebinding) is refused', async () => {
    dns.set('rebind.partner.example', [['127.0.0.1'], ['10.0.0.9']]);
    answers.set('/rebind', () => ({ status: 200, headers: { connection: 'close' } }));
    const res = await h.partner(h.a, 'POST', `${P}/webhook-endpoints`, { url: `http://rebind.partner.example:${rx.port}/rebind`, eventTypes: ['exam.started'] });
    const endpointId = res.json().endpointId;
    const first = await startedEvent();
    await settled(first, endpointId, 'succeeded');
    const second = await startedEvent();
    const until = Date.now() + 5000;
    let d;
    do {
      d = (await eventView(second)).deliveries.find((x: { endpointId: string }) => x.endpointId === endpointId);
      if (d?.attempts.length) break;
      await new Promise((r) => setTimeout(r, 25));
    } while (Date.now() < until);
    expect(d.attempts[0]).toMatchObject({ statusCode: null, errorClass: 'address_not_allowed' });
    expect(rx.received.filter((r) => r.path === '/rebind').map((r) => r.webhookId)).toEqual([first]);
  });

  it('without the development switch, refuses loopback, link-local, metadata and unique-local addresses before any byte is sent', async () => {
    const names = new Map([
      ['loopback.partner.example', '127.0.0.1'],
      ['v6-loopback.partner.example', '::1'],
      ['ula.partner.example', 'fc00::1'],
      ['metadata.partner.example', '169.254.169.254'],
      ['lan.partner.example', '192.168.1.20'],
    ]);
    const strictResolver: Resolver = async (host) => [{ address: names.get(host) ?? '127.0.0.1', family: (names.get(host) ?? '').includes(':') ? 6 : 4 }];
    const strict = createWebhookClient({ policy: { allowInsecure: false }, timeoutMs: 500, connectionsPerOrigin: 2, userAgent: 'test', resolver: strictResolver });
    const dev = createWebhookClient({ policy: { allowInsecure: true }, timeoutMs: 500, connectionsPerOrigin: 2, userAgent: 'test', resolver: strictResolver });
    const msg = (url: string) => ({ url, msgId: 'evt_ssrf', body: '{}', secrets: [generateEndpointSecret()], now: new Date() });
    const urls = [
      ...[...names.keys()].map((n) => `http://${n}:${rx.port}/ssrf`),
      `http://127.0.0.1:${rx.port}/ssrf`,
      `http://[::1]:${rx.port}/ssrf`,
      'http://169.254.169.254/latest/meta-data',
      'http://[fd00:ec2::254]/latest/meta-data',
      'http://10.0.0.1/',
    ];
    for (const url of urls) expect((await strict.send(msg(url))).errorClass, url).toBe('address_not_allowed');
    expect(rx.received.some((r) => r.path === '/ssrf')).toBe(false);
    // The control: the same loopback receiver is reached when loopback is allowed.
    expect((await dev.send(msg(`http://loopback.partner.example:${rx.port}/ssrf`))).statusCode).toBe(200);
    await strict.close();
    await dev.close();
  });
});
