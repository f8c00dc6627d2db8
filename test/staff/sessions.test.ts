import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listAudit } from '../../src/modules/staff/audit.js';
import { createStaffRig, csrfOf, type PortalBrowser, type StaffRig } from '../helpers/staff-rig.js';

/**
 * Portal sessions: idle (30 minutes) and absolute (12 hours) timeouts on
 * the manual clock, sign-out, and CSRF: a form post without the session's
 * token, with a wrong one, or sent cross-site is refused with 403.
 */
let r: StaffRig;
const MIN = 60 * 1000;

beforeAll(async () => {
  r = await createStaffRig();
  await r.invite(r.h.a.institutionId, 'ida@alpha.example', 'admin');
});
afterAll(() => r.close());

async function signedIn(): Promise<PortalBrowser> {
  const b = r.browser();
  expect((await b.signIn('ida@alpha.example')).statusCode).toBe(303);
  expect((await b.get('/portal/account')).statusCode).toBe(200);
  return b;
}

const isSignedOut = (res: { statusCode: number; headers: Record<string, unknown> }) =>
  res.statusCode === 303 && String(res.headers.location).startsWith('/portal/sign-in?next=');

describe('session timeouts', () => {
  it('ends after 30 minutes without a request, and each request restarts that clock', async () => {
    const b = await signedIn();
    r.clock.advance(29 * MIN);
    expect((await b.get('/portal/account')).statusCode).toBe(200);
    r.clock.advance(29 * MIN);
    expect((await b.get('/portal/account')).statusCode).toBe(200);
    r.clock.advance(30 * MIN + 1000);
    expect(isSignedOut(await b.get('/portal/account'))).toBe(true);
    // It stays ended, however active the browser is afterwards.
    expect(isSignedOut(await b.get('/portal/account'))).toBe(true);
  });

  it('ends 12 hours after sign-in even when used every few minutes', async () => {
    const b = await signedIn();
    for (let elapsed = 0; elapsed < 12 * 60 - 20; elapsed += 20) {
      r.clock.advance(20 * MIN);
      expect((await b.get('/portal/account')).statusCode, `after ${elapsed + 20} minutes`).toBe(200);
    }
    r.clock.advance(21 * MIN);
    expect(isSignedOut(await b.get('/portal/account'))).toBe(true);
  });
});

describe('sign-out', () => {
  it('ends the session, clears the cookie, says so, and the old cookie no longer works', async () => {
    const b = await signedIn();
    const oldCookie = b.cookies.get('assay_portal')!;
    const page = await b.get('/portal/account');
    const res = await b.post('/portal/sign-out', { csrf: csrfOf(page.body) });
    expect(res.statusCode).toBe(303);
    expect(res.headers.location).toBe('/portal/sign-in?signed_out=1');
    expect(String(res.headers['set-cookie'])).toMatch(/assay_portal=;/);
    expect(b.cookies.has('assay_portal')).toBe(false);
    expect((await b.get('/portal/sign-in?signed_out=1')).body).toContain('You have signed out.');

    const replay = await r.h.app.inject({ method: 'GET', url: '/portal/account', headers: { cookie: `assay_portal=${oldCookie}` } });
    expect(isSignedOut(replay)).toBe(true);
    const entries = (await listAudit(r.h.pool, { institutionId: r.h.a.institutionId, limit: 100 })).data;
    expect(entries.filter((e) => e.action === 'staff.signed_out')).toHaveLength(1);
  });

  it('with a session that already ended, signing out just returns to the sign-in page', async () => {
    const b = await signedIn();
    const page = await b.get('/portal/account');
    r.clock.advance(31 * MIN);
    const res = await b.post('/portal/sign-out', { csrf: csrfOf(page.body) });
    expect(res.statusCode).toBe(303);
    expect(res.headers.location).toBe('/portal/sign-in?signed_out=1');
  });
});

describe('CSRF', () => {
  it('refuses a cross-site form post (no token, a wrong one, another site) with 403 and changes nothing', async () => {
    const b = await signedIn();
    const page = await b.get('/portal/account');
    const csrf = csrfOf(page.body);
    const attempts = [
      b.post('/portal/sign-out', {}),
      b.post('/portal/sign-out', { csrf: 'x'.repeat(32) }),
      b.post('/portal/sign-out', { csrf: `${csrf}x` }),
      b.post('/portal/sign-out', { csrf }, { 'sec-fetch-site': 'cross-site', origin: 'https://evil.example' }),
      b.post('/portal/sign-out', { csrf }, { 'sec-fetch-site': 'same-site' }),
      b.postJson('/portal/account/passkeys/options', {}),
    ];
    for (const res of await Promise.all(attempts)) {
      expect(res.statusCode, res.body).toBe(403);
    }
    const refused = await b.post('/portal/sign-out', {});
    expect(refused.headers['content-type']).toMatch(/^text\/html/);
    expect(refused.body).toContain('This form has expired');
    // Still signed in: none of them signed the browser out.
    expect((await b.get('/portal/account')).statusCode).toBe(200);
    expect((await b.post('/portal/sign-out', { csrf }, { 'sec-fetch-site': 'same-origin' })).statusCode).toBe(303);
  });

  it('refuses a sign-in form post without the pre-session token (no signing a visitor in to an account of someone else\'s choosing)', async () => {
    const visitor = r.browser();
    const jobs = async () => (await r.h.pool.query<{ n: number }>("SELECT count(*)::int AS n FROM jobs WHERE kind = 'staff.sign_in_mail'")).rows[0]!.n;
    const before = await jobs();
    expect((await visitor.post('/portal/sign-in', { email: 'ida@alpha.example' })).statusCode).toBe(403);
    expect((await visitor.post('/portal/sign-in', { email: 'ida@alpha.example', csrf: 'y'.repeat(32) })).statusCode).toBe(403);
    expect(await jobs()).toBe(before);

    // A link's Sign in button, posted from another site, does not consume it.
    const other = r.browser();
    await other.submit('/portal/sign-in', '/portal/sign-in', { email: 'ida@alpha.example' });
    const [link] = await r.mailedLinks('ida@alpha.example');
    const path = new URL(link!).pathname;
    const victim = r.browser();
    expect((await victim.post(path, { csrf: 'z'.repeat(32) })).statusCode).toBe(403);
    expect((await victim.get(path)).statusCode).toBe(200); // still unused
  });
});
