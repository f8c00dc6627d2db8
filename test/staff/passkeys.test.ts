import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listAudit } from '../../src/modules/staff/audit.js';
import { createSoftAuthenticator, type SoftAuthenticator } from '../helpers/soft-authenticator.js';
import { createStaffRig, csrfOf, type PortalBrowser, type StaffRig } from '../helpers/staff-rig.js';

/**
 * Passkeys as the second way in, over HTTP with a software authenticator
 * (ES256, built to the WebAuthn byte layout) verified by
 * @simplewebauthn/server: registration from the account page, sign-in,
 * and the refusals (replayed challenge, wrong key, cloned counter, removed
 * passkey or account, wrong origin).
 */
let r: StaffRig;
const ORIGIN = 'http://assay.test';

beforeAll(async () => {
  r = await createStaffRig();
  await r.invite(r.h.a.institutionId, 'pia@alpha.example', 'reviewer');
});
afterAll(() => r.close());

async function signedIn(email = 'pia@alpha.example'): Promise<{ b: PortalBrowser; csrf: string }> {
  const b = r.browser();
  expect((await b.signIn(email)).statusCode).toBe(303);
  const page = await b.get('/portal/account');
  return { b, csrf: csrfOf(page.body) };
}

async function register(auth: SoftAuthenticator, name = 'Work laptop', origin = ORIGIN) {
  const { b, csrf } = await signedIn();
  const options = await b.postJson('/portal/account/passkeys/options', {}, { 'x-csrf-token': csrf });
  expect(options.statusCode, options.body).toBe(200);
  const o = options.json();
  expect(o).toMatchObject({ rp: { id: 'assay.test', name: 'Assay portal' }, user: { name: 'pia@alpha.example' }, authenticatorSelection: { residentKey: 'required', userVerification: 'required' } });
  return { b, csrf, res: await b.postJson('/portal/account/passkeys', { name, response: auth.register(o, origin) }, { 'x-csrf-token': csrf }) };
}

async function passkeySignIn(auth: SoftAuthenticator, opts: { counter?: number; origin?: string; next?: string } = {}) {
  const b = r.browser();
  const page = await b.get('/portal/sign-in');
  const csrf = csrfOf(page.body);
  const options = await b.postJson('/portal/sign-in/passkey/options', {}, { 'x-csrf-token': csrf });
  expect(options.statusCode, options.body).toBe(200);
  const o = options.json();
  expect(o).toMatchObject({ rpId: 'assay.test', userVerification: 'required' });
  const credential = auth.assert(o, opts.origin ?? ORIGIN, opts.counter === undefined ? {} : { counter: opts.counter });
  const res = await b.postJson('/portal/sign-in/passkey', { response: credential, ...(opts.next ? { next: opts.next } : {}) }, { 'x-csrf-token': csrf });
  return { b, res, credential, csrf };
}

describe('passkeys', () => {
  it('registers a passkey from the account page, then signs in with it and no mail', async () => {
    const auth = createSoftAuthenticator();
    const { b, res } = await register(auth);
    expect(res.statusCode, res.body).toBe(201);
    expect(res.json()).toEqual({ credentialId: auth.credentialId, name: 'Work laptop' });
    const account = await b.get('/portal/account?done=passkey-added');
    expect(account.body).toContain('The passkey was added.');
    expect(account.body).toContain('Work laptop');

    const mails = r.smtp.messages.length;
    const { b: fresh, res: signed } = await passkeySignIn(auth, { next: '/portal/account' });
    expect(signed.statusCode, signed.body).toBe(200);
    expect(signed.json()).toEqual({ redirect: '/portal/account' });
    expect(String(signed.headers['set-cookie'])).toMatch(/assay_portal=[0-9A-Za-z]{43};.*HttpOnly.*SameSite=Strict/);
    const page = await fresh.get('/portal/account');
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain('pia@alpha.example');
    expect(r.smtp.messages.length).toBe(mails);

    const entries = (await listAudit(r.h.pool, { institutionId: r.h.a.institutionId, limit: 100 })).data;
    expect(entries.find((e) => e.action === 'staff.passkey_added')).toMatchObject({ actorEmail: 'pia@alpha.example', objectId: auth.credentialId, details: { name: 'Work laptop' } });
    expect(entries.find((e) => e.action === 'staff.signed_in' && e.details.method === 'passkey')).toMatchObject({ actorEmail: 'pia@alpha.example' });
  });

  it('refuses a replayed assertion, a wrong key, an unknown passkey and another origin', async () => {
    const auth = createSoftAuthenticator();
    expect((await register(auth)).res.statusCode).toBe(201);
    const ok = await passkeySignIn(auth);
    expect(ok.res.statusCode).toBe(200);
    // The same signed answer again: its challenge was used up.
    const attacker = r.browser('192.0.2.66');
    const form = await attacker.get('/portal/sign-in');
    const replay = await attacker.postJson('/portal/sign-in/passkey', { response: ok.credential }, { 'x-csrf-token': csrfOf(form.body) });
    expect(replay.statusCode).toBe(400);
    expect(replay.json().error.code).toBe('invalid_request');

    const impostor = createSoftAuthenticator({ credentialId: Buffer.from(auth.credentialId, 'base64url') });
    impostor.userHandle = auth.userHandle;
    expect((await passkeySignIn(impostor)).res.statusCode).toBe(400);
    expect((await passkeySignIn(createSoftAuthenticator())).res.statusCode).toBe(400);
    const phished = await passkeySignIn(auth, { origin: 'http://assay-test.evil.example' });
    expect(phished.res.statusCode).toBe(400);
    expect(phished.b.cookies.has('assay_portal')).toBe(false);
  });

  it('refuses an assertion whose signature counter did not move on (a cloned authenticator)', async () => {
    const auth = createSoftAuthenticator({ counter: 10 });
    expect((await register(auth)).res.statusCode).toBe(201);
    expect((await passkeySignIn(auth)).res.statusCode).toBe(200); // counter 11
    expect((await passkeySignIn(auth, { counter: 11 })).res.statusCode).toBe(400);
    expect((await passkeySignIn(auth, { counter: 12 })).res.statusCode).toBe(200);
  });

  it('refuses a registration with a reused challenge or from another origin, and without a session', async () => {
    const auth = createSoftAuthenticator();
    const { b, csrf } = await signedIn();
    const o = (await b.postJson('/portal/account/passkeys/options', {}, { 'x-csrf-token': csrf })).json();
    const wrongOrigin = await b.postJson('/portal/account/passkeys', { name: 'x', response: auth.register(o, 'http://evil.example') }, { 'x-csrf-token': csrf });
    expect(wrongOrigin.statusCode).toBe(400);
    // That challenge is spent even though the answer was refused.
    const reused = await b.postJson('/portal/account/passkeys', { name: 'x', response: auth.register(o, ORIGIN) }, { 'x-csrf-token': csrf });
    expect(reused.statusCode).toBe(400);

    const anonymous = r.browser();
    const form = await anonymous.get('/portal/sign-in');
    const res = await anonymous.postJson('/portal/account/passkeys/options', {}, { 'x-csrf-token': csrfOf(form.body) });
    expect(res.statusCode).toBe(401);
    expect(res.json().error.code).toBe('unauthenticated');
  });

  it('a removed passkey, or a removed account, no longer signs in', async () => {
    const auth = createSoftAuthenticator();
    const { b, csrf } = await register(auth, 'Phone');
    const removed = await b.post(`/portal/account/passkeys/${auth.credentialId}/remove`, { csrf });
    expect(removed.statusCode).toBe(303);
    expect(removed.headers.location).toBe('/portal/account?done=passkey-removed');
    expect((await passkeySignIn(auth)).res.statusCode).toBe(400);
    // Another person's passkey cannot be removed from this account (404).
    expect((await b.post(`/portal/account/passkeys/${createSoftAuthenticator().credentialId}/remove`, { csrf })).statusCode).toBe(404);

    const staffId = await r.invite(r.h.a.institutionId, 'leaver@alpha.example', 'viewer');
    const leaverAuth = createSoftAuthenticator();
    const leaver = r.browser();
    expect((await leaver.signIn('leaver@alpha.example')).statusCode).toBe(303);
    const lcsrf = csrfOf((await leaver.get('/portal/account')).body);
    const o = (await leaver.postJson('/portal/account/passkeys/options', {}, { 'x-csrf-token': lcsrf })).json();
    expect((await leaver.postJson('/portal/account/passkeys', { name: 'Key', response: leaverAuth.register(o, ORIGIN) }, { 'x-csrf-token': lcsrf })).statusCode).toBe(201);
    const { removeStaff } = await import('../../src/modules/staff/staff-service.js');
    await removeStaff(r.h.ctx, { institutionId: r.h.a.institutionId, staffId }, { actor: { kind: 'cli' }, ip: null });
    expect((await passkeySignIn(leaverAuth)).res.statusCode).toBe(400);

    const actions = (await listAudit(r.h.pool, { institutionId: r.h.a.institutionId, limit: 100 })).data.map((e) => e.action);
    expect(actions).toContain('staff.passkey_removed');
  });
});
