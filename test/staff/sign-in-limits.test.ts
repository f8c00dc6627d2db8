import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PER_ADDRESS_LIMIT, PER_IP_LIMIT } from '../../src/modules/staff/sign-in-throttle.js';
import { freezeConfig } from '../../src/platform/config.js';
import { buildServer, serverContext } from '../../src/server.js';
import { createStaffRig, csrfOf, type PortalBrowser, type StaffRig } from '../helpers/staff-rig.js';

/**
 * "Email me a sign-in link" never reveals whether an address has an
 * account (same answer, same work, similar time), and is limited per
 * address and per IP address, with a 429 page that says how long to wait.
 */
let r: StaffRig;
const MIN = 60 * 1000;

beforeAll(async () => {
  r = await createStaffRig();
  await r.invite(r.h.a.institutionId, 'known@alpha.example', 'viewer');
});
afterAll(() => r.close());

async function ask(b: PortalBrowser, email: string, headers: Record<string, string> = {}) {
  const page = await b.get('/portal/sign-in', headers);
  return b.post('/portal/sign-in', { csrf: csrfOf(page.body), email }, headers);
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)]!;
}

describe('no account enumeration', () => {
  it('answers an address with an account and one without identically, and only the first gets mail', async () => {
    const mails = r.smtp.messages.length;
    const known = await ask(r.browser('192.0.2.1'), 'known@alpha.example');
    const unknown = await ask(r.browser('192.0.2.2'), 'nobody@alpha.example');
    for (const res of [known, unknown]) {
      expect(res.statusCode).toBe(303);
      expect(res.headers.location).toBe('/portal/sign-in/sent');
    }
    expect(known.body).toBe(unknown.body);
    const sent = await r.browser().get('/portal/sign-in/sent');
    expect(sent.body.replace(/&#39;/g, "'")).toContain("If that address has an account, we've emailed a sign-in link");
    // The same work was queued for both; the worker finds out.
    const queued = await r.h.pool.query("SELECT payload->>'email' AS email FROM jobs WHERE kind = 'staff.sign_in_mail' ORDER BY id");
    expect(queued.rows.map((q) => q.email)).toEqual(['known@alpha.example', 'nobody@alpha.example']);
    await r.h.runJobs();
    await r.smtp.waitFor(mails + 1);
    await new Promise((res) => setTimeout(res, 200));
    expect(r.smtp.messages.slice(mails).map((m) => m.to)).toEqual([['known@alpha.example']]);
  });

  it('takes a similar time for both (medians within 15 ms over interleaved requests)', async () => {
    const times = { known: [] as number[], unknown: [] as number[] };
    r.clock.advance(16 * MIN);
    for (let i = 0; i < 12; i++) {
      for (const [kind, email] of [
        ['known', 'known@alpha.example'],
        ['unknown', `nobody${i}@alpha.example`],
      ] as const) {
        const b = r.browser(`198.51.100.${i + 10}`);
        const page = await b.get('/portal/sign-in');
        const t0 = performance.now();
        const res = await b.post('/portal/sign-in', { csrf: csrfOf(page.body), email });
        times[kind].push(performance.now() - t0);
        // Past the per-address limit the answer is a 429 for both alike; keep to allowed requests here.
        if (kind === 'known' && (i + 1) % PER_ADDRESS_LIMIT === 0) r.clock.advance(16 * MIN);
        expect(res.statusCode).toBe(303);
      }
    }
    expect(Math.abs(median(times.known) - median(times.unknown))).toBeLessThan(15);
  });
});

describe('sign-in limits', () => {
  it(`allows ${PER_ADDRESS_LIMIT} link requests per address in 15 minutes, from any IP, then answers 429 with a page`, async () => {
    r.clock.advance(16 * MIN);
    for (let i = 0; i < PER_ADDRESS_LIMIT; i++) {
      expect((await ask(r.browser(`203.0.113.${i + 1}`), 'Limited@Alpha.example')).statusCode).toBe(303);
    }
    const refused = await ask(r.browser('203.0.113.99'), 'limited@alpha.example');
    expect(refused.statusCode).toBe(429);
    expect(refused.headers['content-type']).toMatch(/^text\/html/);
    expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
    expect(Number(refused.headers['retry-after'])).toBeLessThanOrEqual(15 * 60);
    expect(refused.body).toContain('Too many sign-in attempts');
    expect(refused.body).toMatch(/Wait \d+ minutes?, then try again/);
    // Another address from the same IP is not affected; the limited one recovers after the window.
    expect((await ask(r.browser('203.0.113.99'), 'other@alpha.example')).statusCode).toBe(303);
    r.clock.advance(15 * MIN);
    expect((await ask(r.browser('203.0.113.99'), 'limited@alpha.example')).statusCode).toBe(303);
  });

  it(`allows ${PER_IP_LIMIT} link requests per IP address in 15 minutes, whatever the addresses, then answers 429`, async () => {
    r.clock.advance(16 * MIN);
    const jobs = async () => (await r.h.pool.query<{ n: number }>("SELECT count(*)::int AS n FROM jobs WHERE kind = 'staff.sign_in_mail'")).rows[0]!.n;
    const b = r.browser('198.18.0.1');
    for (let i = 0; i < PER_IP_LIMIT; i++) expect((await ask(b, `spray${i}@alpha.example`)).statusCode).toBe(303);
    const queued = await jobs();
    const refused = await ask(b, 'spray-last@alpha.example');
    expect(refused.statusCode).toBe(429);
    expect(await jobs()).toBe(queued); // nothing queued when refused
    // Another IP is not affected.
    expect((await ask(r.browser('198.18.0.2'), 'spray-last@alpha.example')).statusCode).toBe(303);
  });

  it('behind a trusted proxy (ASSAY_TRUST_PROXY), counts the client address from X-Forwarded-For, not the proxy', async () => {
    r.clock.advance(16 * MIN);
    const config = freezeConfig({ ...r.h.ctx.config, trustProxy: ['127.0.0.1'] });
    const proxied = await buildServer(serverContext({ config, pool: r.h.pool, clock: r.clock }), { logger: false });
    try {
      const viaProxy = r.browser('127.0.0.1', proxied);
      const clientA = { 'x-forwarded-for': '203.0.113.200' };
      for (let i = 0; i < PER_IP_LIMIT; i++) expect((await ask(viaProxy, `a${i}@alpha.example`, clientA)).statusCode).toBe(303);
      expect((await ask(viaProxy, 'a-last@alpha.example', clientA)).statusCode).toBe(429);
      expect((await ask(viaProxy, 'b@alpha.example', { 'x-forwarded-for': '203.0.113.201' })).statusCode).toBe(303);
      // An untrusted peer's X-Forwarded-For is ignored: it cannot pick a fresh address per request.
      const direct = r.browser('198.18.5.5');
      for (let i = 0; i < PER_IP_LIMIT; i++) await ask(direct, `c${i}@alpha.example`, { 'x-forwarded-for': `203.0.113.${i}` });
      expect((await ask(direct, 'c-last@alpha.example', { 'x-forwarded-for': '203.0.113.250' })).statusCode).toBe(429);
    } finally {
      await proxied.close();
    }
  });

  it('limits passkey sign-in attempts per IP the same way (the JSON envelope, 429)', async () => {
    r.clock.advance(16 * MIN);
    const b = r.browser('198.18.1.1');
    const page = await b.get('/portal/sign-in');
    const csrf = csrfOf(page.body);
    for (let i = 0; i < PER_IP_LIMIT; i++) {
      expect((await b.postJson('/portal/sign-in/passkey/options', {}, { 'x-csrf-token': csrf })).statusCode).toBe(200);
    }
    const refused = await b.postJson('/portal/sign-in/passkey/options', {}, { 'x-csrf-token': csrf });
    expect(refused.statusCode).toBe(429);
    expect(refused.json().error.code).toBe('rate_limited');
    expect(refused.headers['retry-after']).toBeDefined();
  });
});
