import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listAudit } from '../../src/modules/staff/audit.js';
import { linksIn } from '../helpers/smtp-sink.js';
import { createStaffRig, csrfOf, type StaffRig } from '../helpers/staff-rig.js';

/**
 * Signing in with an emailed link, end to end: the invitation arrives at a
 * real SMTP server, its link opens a page whose "Sign in" button (a POST)
 * uses it once and opens a session. Used, expired and unknown links get a
 * page that says what to do.
 */
let r: StaffRig;

beforeAll(async () => {
  r = await createStaffRig();
});
afterAll(() => r.close());

const actions = async (institutionId: string | null) => (await listAudit(r.h.pool, { institutionId, limit: 200 })).data.map((e) => e.action);

describe('sign-in with an emailed link', () => {
  it('invite → mail over SMTP → link → session on the account page, with audit entries', async () => {
    const res = await r.h.admin('POST', `/api/admin/v1/institutions/${r.h.a.institutionId}/staff`, { email: 'ann@alpha.example', name: 'Ann Admin', role: 'admin' });
    expect(res.statusCode).toBe(201);
    const staffId = res.json().staffId;
    const [link] = await r.mailedLinks('ann@alpha.example');
    const mail = r.smtp.to('ann@alpha.example')[0]!;
    expect(mail.text).toContain('Hello Ann Admin,');
    expect(mail.text).toContain('as an admin');
    expect(mail.text).toContain('works once and until');

    const ann = r.browser('198.51.100.20');
    const page = await ann.get(new URL(link!).pathname);
    expect(page.statusCode).toBe(200);
    expect(page.headers['content-security-policy']).toContain("script-src 'self'");
    expect(page.body).toMatch(/<button type="submit" class="button primary">Sign in<\/button>/);
    expect(ann.cookies.has('assay_portal')).toBe(false);

    const signedIn = await ann.post(new URL(link!).pathname, { csrf: csrfOf(page.body) });
    expect(signedIn.statusCode).toBe(303);
    expect(signedIn.headers.location).toBe('/portal');
    const setCookie = String(signedIn.headers['set-cookie']);
    expect(setCookie).toMatch(/assay_portal=[0-9A-Za-z]{43}/);
    expect(setCookie).toMatch(/HttpOnly/);
    expect(setCookie).toMatch(/SameSite=Strict/);
    expect(setCookie).toMatch(/Path=\/portal/);
    expect(setCookie).not.toMatch(/Secure/); // PUBLIC_BASE_URL is http here; https turns it on (below)

    const account = await ann.get('/portal/account');
    expect(account.statusCode).toBe(200);
    expect(account.body).toContain('ann@alpha.example');
    expect(account.body).toContain('Alpha College');
    // The session cookie is stored hashed only.
    const stored = await r.h.pool.query('SELECT id_hash FROM portal_sessions');
    expect(JSON.stringify(stored.rows)).not.toContain(ann.cookies.get('assay_portal'));

    const entries = (await listAudit(r.h.pool, { institutionId: r.h.a.institutionId, limit: 50 })).data;
    const signedInEntry = entries.find((e) => e.action === 'staff.signed_in')!;
    expect(signedInEntry).toMatchObject({ actorKind: 'staff', actorId: staffId, actorEmail: 'ann@alpha.example', objectId: staffId, ip: '198.51.100.20', details: { method: 'link' } });
    expect(entries.some((e) => e.action === 'staff.invited' && e.objectId === staffId)).toBe(true);
  });

  it('sign-in from the form mails a fresh link that returns to `next`, a same-origin portal path only', async () => {
    await r.invite(r.h.a.institutionId, 'nina@alpha.example', 'viewer');
    const nina = r.browser();
    const done = await nina.signIn('nina@alpha.example', '/portal/account');
    expect(done.statusCode).toBe(303);
    expect(done.headers.location).toBe('/portal/account');

    for (const evil of ['//evil.example/portal', 'https://evil.example/portal', '/portal\\@evil.example', '/portalx']) {
      const b = r.browser();
      const res = await b.signIn('nina@alpha.example', evil);
      expect(res.statusCode).toBe(303);
      expect(res.headers.location, evil).toBe('/portal');
    }
  });

  it('a signed-out visit to a portal page redirects to sign-in with next', async () => {
    const res = await r.browser().get('/portal/account');
    expect(res.statusCode).toBe(303);
    expect(res.headers.location).toBe('/portal/sign-in?next=%2Fportal%2Faccount');
    const form = await r.browser().get('/portal/sign-in?next=%2Fportal%2Faccount');
    expect(form.body).toContain('<label for="f-email">Email</label>');
    expect(form.body).toContain('Email me a sign-in link');
    expect(form.body).toContain('name="next" value="/portal/account"');
  });

  it('opening the link (GET, as a mail scanner does) does not use it; the button does, once', async () => {
    await r.invite(r.h.a.institutionId, 'sam@alpha.example', 'reviewer');
    const b = r.browser();
    await b.submit('/portal/sign-in', '/portal/sign-in', { email: 'sam@alpha.example' });
    const [link] = await r.mailedLinks('sam@alpha.example');
    const path = new URL(link!).pathname;
    const scanner = r.browser('192.0.2.99');
    for (let i = 0; i < 3; i++) expect((await scanner.get(path)).statusCode).toBe(200);
    expect((await r.h.app.inject({ method: 'HEAD', url: path })).statusCode).toBe(405);

    const first = await b.useLink(link!);
    expect(first.statusCode).toBe(303);
    // The same link again, from the page still open in another tab: refused, with what to do.
    const page = await scanner.get(path);
    expect(page.statusCode).toBe(410);
    expect(page.body).toContain('This sign-in link has already been used');
    expect(page.body).toContain('Request a new sign-in link');
    const again = await scanner.post(path, { csrf: scanner.cookies.get('assay_portal_pre')! });
    expect(again.statusCode).toBe(410);
    expect(again.body).toContain('already been used');
    expect(scanner.cookies.has('assay_portal')).toBe(false);
  });

  it('an expired link (15 minutes) is refused with a page that says to request a new one', async () => {
    await r.invite(r.h.a.institutionId, 'eve@alpha.example', 'viewer');
    const b = r.browser();
    await b.submit('/portal/sign-in', '/portal/sign-in', { email: 'eve@alpha.example' });
    const [link] = await r.mailedLinks('eve@alpha.example');
    const path = new URL(link!).pathname;
    const page = await b.get(path);
    expect(page.statusCode).toBe(200);
    r.clock.advance(15 * 60 * 1000 + 1000);
    const late = await b.post(path, { csrf: csrfOf(page.body) });
    expect(late.statusCode).toBe(410);
    expect(late.body).toContain('This sign-in link has expired');
    expect(late.body).toContain('Request a new sign-in link');
    expect(late.body).toContain('href="/portal/sign-in"');
    expect(b.cookies.has('assay_portal')).toBe(false);
    expect((await b.get(path)).statusCode).toBe(410);
    // A fresh link works.
    expect((await b.signIn('eve@alpha.example')).statusCode).toBe(303);
  });

  it('an unknown or mangled link gets a 404 page that says what to do', async () => {
    for (const token of ['A'.repeat(43), 'short', 'x'.repeat(99)]) {
      const res = await r.browser().get(`/portal/sign-in/link/${token}`);
      expect(res.statusCode).toBe(404);
      expect(res.body).toContain('This sign-in link is not valid');
      expect(res.body).toContain('Request a new sign-in link');
    }
  });

  it('a removed account cannot use its link, and its open sessions end', async () => {
    const staffId = await r.invite(r.h.b.institutionId, 'rob@beta.example', 'viewer');
    await r.invite(r.h.b.institutionId, 'boss@beta.example', 'admin');
    const rob = r.browser();
    expect((await rob.signIn('rob@beta.example')).statusCode).toBe(303);
    const spare = r.browser();
    await spare.submit('/portal/sign-in', '/portal/sign-in', { email: 'rob@beta.example' });
    const [link] = await r.mailedLinks('rob@beta.example');

    const { removeStaff } = await import('../../src/modules/staff/staff-service.js');
    await removeStaff(r.h.ctx, { institutionId: r.h.b.institutionId, staffId }, { actor: { kind: 'cli' }, ip: null });
    expect((await rob.get('/portal/account')).statusCode).toBe(303);
    const res = await spare.useLink(link!);
    expect(res.statusCode).toBe(404);
    expect(spare.cookies.has('assay_portal')).toBe(false);
    expect(await actions(r.h.b.institutionId)).toContain('staff.removed');
  });

  it('an SMTP failure delays the mail (the job retries) and leaves no usable link behind', async () => {
    await r.invite(r.h.a.institutionId, 'fay@alpha.example', 'viewer');
    const b = r.browser();
    await b.submit('/portal/sign-in', '/portal/sign-in', { email: 'fay@alpha.example' });
    const before = r.smtp.to('fay@alpha.example').length;
    const linksBefore = (await r.h.pool.query<{ n: number }>('SELECT count(*)::int AS n FROM sign_in_links')).rows[0]!.n;
    r.smtp.failNext(1);
    await r.h.runJobs();
    expect(r.smtp.to('fay@alpha.example').length).toBe(before);
    const failed = await r.h.pool.query("SELECT attempts, last_error, locked_by FROM jobs WHERE kind = 'staff.sign_in_mail'");
    expect(failed.rows).toHaveLength(1);
    expect(failed.rows[0]).toMatchObject({ attempts: 1, locked_by: null, last_error: expect.stringMatching(/^sign-in mail not sent: .*451/) });
    expect((await r.h.pool.query<{ n: number }>('SELECT count(*)::int AS n FROM sign_in_links')).rows[0]!.n).toBe(linksBefore);

    r.clock.advance(2000); // past the retry backoff
    const [link] = await r.mailedLinks('fay@alpha.example');
    expect((await b.useLink(link!)).statusCode).toBe(303);
  });

  it('one address with accounts at two institutions gets one mail with a link for each', async () => {
    await r.invite(r.h.a.institutionId, 'two@both.example', 'viewer');
    await r.invite(r.h.b.institutionId, 'two@both.example', 'reviewer');
    const b = r.browser();
    await b.submit('/portal/sign-in', '/portal/sign-in', { email: 'Two@Both.example' });
    const links = await r.mailedLinks('two@both.example');
    expect(links).toHaveLength(2);
    const mail = r.smtp.to('two@both.example').at(-1)!;
    expect(mail.text).toContain('Alpha College (viewer):');
    expect(mail.text).toContain('Beta Academy (reviewer):');
    expect(linksIn(mail)).toEqual(links);
    expect((await b.useLink(links[0]!)).statusCode).toBe(303);
    expect((await b.get('/portal/account')).body).toContain('Alpha College');
    const first = b.cookies.get('assay_portal')!;
    // Signing in to the other account in the same browser ends the first session.
    expect((await b.useLink(links[1]!)).statusCode).toBe(303);
    expect((await b.get('/portal/account')).body).toContain('Beta Academy');
    expect(b.cookies.get('assay_portal')).not.toBe(first);
    const stale = await r.h.app.inject({ method: 'GET', url: '/portal/account', headers: { cookie: `assay_portal=${first}` } });
    expect(stale.statusCode).toBe(303);
  });

  it('sets the Secure attribute when the portal is served over https', async () => {
    const { createStaffRig: make } = await import('../helpers/staff-rig.js');
    const https = await make({ config: { publicBaseUrl: 'https://assay.test' } });
    try {
      await https.invite(https.h.a.institutionId, 'sec@alpha.example', 'viewer');
      const b = https.browser();
      const res = await b.signIn('sec@alpha.example');
      expect(res.statusCode).toBe(303);
      expect(String(res.headers['set-cookie'])).toMatch(/assay_portal=.*Secure/);
    } finally {
      await https.close();
    }
  });
});
