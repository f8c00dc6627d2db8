import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_TOKEN, assignmentBody, createHarness, type Harness } from '../helpers/harness.js';
import { expectError } from '../helpers/expect-error.js';

const TESTS = '/api/partner/v1/tests';
let h: Harness;

beforeAll(async () => {
  h = await createHarness();
});
afterAll(() => h.close());

function expect401(res: Awaited<ReturnType<Harness['partner']>>) {
  const body = expectError(res, 401, 'unauthenticated');
  expect(res.headers['www-authenticate']).toBe('Bearer');
  return body;
}

const rawAuth = (authorization?: string) =>
  h.app.inject({ method: 'GET', url: TESTS, headers: authorization === undefined ? {} : { authorization } });

describe('partner authentication', () => {
  it('a request without Authorization gets 401 unauthenticated with WWW-Authenticate: Bearer', async () => {
    expect401(await rawAuth());
  });

  it.each([
    ['Basic credentials', () => `Basic ${Buffer.from(`x:${h.a.apiKey}`).toString('base64')}`],
    ['a Token scheme', () => `Token ${h.a.apiKey}`],
    ['the key without a scheme', () => h.a.apiKey],
    ['Bearer with nothing after it', () => 'Bearer'],
    ['Bearer with only spaces', () => 'Bearer    '],
    ['two tokens', () => `Bearer ${h.a.apiKey} ${h.a.apiKey}`],
  ])('%s gets 401', async (_label, header) => {
    expect401(await rawAuth(header()));
  });

  it.each([
    ['a short random string', 'abc'],
    ['a key with the wrong prefix', `ak_test_${'A'.repeat(40)}`],
    ['a key with a too-short secret', 'ak_live_abc'],
    ['a key with characters outside base62', `ak_live_${'A'.repeat(39)}!`],
    ['a very long string', `ak_live_${'A'.repeat(5000)}`],
  ])('a malformed key (%s) gets 401', async (_label, key) => {
    expect401(await h.partner(key, 'GET', TESTS));
  });

  it('a well-formed key that does not exist gets 401 and its value is not echoed', async () => {
    const unknown = `ak_live_${'Z'.repeat(40)}`;
    const res = await h.partner(unknown, 'GET', TESTS);
    expect401(res);
    expect(res.body).not.toContain(unknown);
  });

  it('the operator token is not a partner key', async () => {
    expect401(await h.partner(ADMIN_TOKEN, 'GET', TESTS));
  });

  it('accepts the scheme case-insensitively (RFC 9110) and extra spaces after it', async () => {
    expect((await rawAuth(`bearer ${h.a.apiKey}`)).statusCode).toBe(200);
    expect((await rawAuth(`BEARER   ${h.a.apiKey}`)).statusCode).toBe(200);
  });

  it('over a real connection: the header name in any case, and of a repeated Authorization the first counts', async () => {
    const url = await h.app.listen({ port: 0, host: '127.0.0.1' });
    const send = (lines: string[]) =>
      new Promise<string>((resolve, reject) => {
        const socket = net.connect(Number(new URL(url).port), '127.0.0.1', () =>
          socket.write(`GET ${TESTS} HTTP/1.1\r\nHost: x\r\n${lines.map((l) => `${l}\r\n`).join('')}Connection: close\r\n\r\n`),
        );
        let out = '';
        socket.on('data', (d) => (out += d.toString()));
        socket.on('error', reject);
        socket.on('close', () => resolve(out.slice(0, 12)));
      });
    expect(await send([`AUTHORIZATION: Bearer ${h.a.apiKey}`])).toBe('HTTP/1.1 200');
    expect(await send([`aUtHoRiZaTiOn: Bearer ${h.a.apiKey}`])).toBe('HTTP/1.1 200');
    expect(await send([`Authorization: Bearer ${h.a.apiKey}`, 'Authorization: Bearer nonsense'])).toBe('HTTP/1.1 200');
    expect(await send(['Authorization: Bearer nonsense', `Authorization: Bearer ${h.a.apiKey}`])).toBe('HTTP/1.1 401');
    expect(await send([`X-Authorization: Bearer ${h.a.apiKey}`])).toBe('HTTP/1.1 401');
    // The harness's close stops the listener.
  });

  it('a revoked key gets 401 on the very next request while another key of the institution keeps working', async () => {
    const t = await h.createTenant('Revoking School');
    const second = (await h.admin('POST', `/api/admin/v1/institutions/${t.institutionId}/api-keys`, { label: 'rotation' })).json();
    expect((await h.partner(t, 'GET', TESTS)).statusCode).toBe(200);
    expect((await h.partner(second.apiKey, 'GET', TESTS)).statusCode).toBe(200);
    expect((await h.admin('DELETE', `/api/admin/v1/institutions/${t.institutionId}/api-keys/${t.keyId}`)).statusCode).toBe(204);
    expect401(await h.partner(t, 'GET', TESTS));
    expect401(await h.partner(t, 'POST', '/api/partner/v1/assignments', assignmentBody(t)));
    expect((await h.partner(second.apiKey, 'GET', TESTS)).statusCode).toBe(200);
  });

  it('a key of a suspended institution gets 403 forbidden on every route; reactivation restores access', async () => {
    const t = await h.createTenant('Suspended School');
    const created = (await h.partner(t, 'POST', '/api/partner/v1/assignments', assignmentBody(t))).json();
    const suspend = await h.admin('PUT', `/api/admin/v1/institutions/${t.institutionId}/status`, { status: 'suspended' });
    expect(suspend.statusCode).toBe(200);
    expect(suspend.json().status).toBe('suspended');
    expectError(await h.partner(t, 'GET', TESTS), 403, 'forbidden');
    expectError(await h.partner(t, 'POST', '/api/partner/v1/assignments', assignmentBody(t)), 403, 'forbidden');
    expectError(await h.partner(t, 'GET', `/api/partner/v1/assignments/${created.assignmentId}`), 403, 'forbidden');
    const res = await h.partner(t, 'GET', TESTS);
    expect(res.headers['www-authenticate']).toBeUndefined();
    await h.admin('PUT', `/api/admin/v1/institutions/${t.institutionId}/status`, { status: 'active' });
    expect((await h.partner(t, 'GET', TESTS)).statusCode).toBe(200);
  });

  it('records when a key was last used, without exposing anything secret in the key list', async () => {
    const t = await h.createTenant('Usage School');
    expect((await h.partner(t, 'GET', TESTS)).statusCode).toBe(200);
    const list = await h.admin('GET', `/api/admin/v1/institutions/${t.institutionId}/api-keys`);
    const key = list.json().data.find((k: { keyId: string }) => k.keyId === t.keyId);
    expect(key.lastUsedAt).not.toBeNull();
    expect(list.body).not.toContain(t.apiKey);
  });
});

describe('operator authentication', () => {
  const adminRaw = (authorization?: string) =>
    h.app.inject({ method: 'GET', url: '/api/admin/v1/institutions', headers: authorization === undefined ? {} : { authorization } });

  it('no token gets 401 with WWW-Authenticate: Bearer', async () => {
    expect401(await adminRaw());
  });

  it.each([
    ['a wrong token', () => 'Bearer wrong-token-wrong-token-wrong-token'],
    ['the token one character short', () => `Bearer ${ADMIN_TOKEN.slice(0, -1)}`],
    ['the token with a character more', () => `Bearer ${ADMIN_TOKEN}x`],
    ['the right token under another scheme', () => `Basic ${ADMIN_TOKEN}`],
    ['a partner API key', () => `Bearer ${h.a.apiKey}`],
  ])('%s gets 401', async (_label, header) => {
    expect401(await adminRaw(header()));
  });

  it('the right token is accepted', async () => {
    expect((await adminRaw(`Bearer ${ADMIN_TOKEN}`)).statusCode).toBe(200);
  });
});
