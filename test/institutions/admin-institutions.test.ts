import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sha256Hex } from '../../src/platform/crypto.js';
import { ADMIN_TOKEN, createHarness, type Harness } from '../helpers/harness.js';
import { detailFields, expectError } from '../helpers/expect-error.js';

const A = '/api/admin/v1';
let h: Harness;

beforeAll(async () => {
  h = await createHarness();
});
afterAll(() => h.close());

const BAD_DOMAINS = [
  'https://partner.example',
  'partner.example/path',
  'partner.example:443',
  'user@partner.example',
  '*.',
  '*',
  '*.*.example',
  'part ner.example',
  '127.0.0.1',
  '[::1]',
  'nodot',
  '*.com',
  'partner.example.',
  'a..b.example',
  '.partner.example',
  '',
];

describe('institutions', () => {
  it('POST creates an institution with normalised callback domains and returns 201', async () => {
    const res = await h.admin('POST', `${A}/institutions`, {
      name: 'Gamma University',
      callbackDomains: ['LMS.Gamma.example', '*.Apps.Gamma.example', 'lms.gamma.example', 'bücher.example'],
    });
    expect(res.statusCode).toBe(201);
    const body = res.json();
    expect(Object.keys(body).sort()).toEqual(['callbackDomains', 'createdAt', 'institutionId', 'name', 'status']);
    expect(body).toMatchObject({
      name: 'Gamma University',
      status: 'active',
      callbackDomains: ['*.apps.gamma.example', 'lms.gamma.example', 'xn--bcher-kva.example'],
    });
    expect(body.institutionId).toMatch(/^ins_[0-9A-Za-z]{22}$/);
    expect(new Date(body.createdAt).toISOString()).toBe(body.createdAt);
    const read = await h.admin('GET', `${A}/institutions/${body.institutionId}`);
    expect(read.statusCode).toBe(200);
    expect(read.json()).toEqual(body);
  });

  it('POST without callbackDomains creates an institution with none', async () => {
    const res = await h.admin('POST', `${A}/institutions`, { name: 'No Domains College' });
    expect(res.statusCode).toBe(201);
    expect(res.json().callbackDomains).toEqual([]);
  });

  it.each([
    ['no name', {}, 'name'],
    ['an empty name', { name: '' }, 'name'],
    ['a 201-character name', { name: 'n'.repeat(201) }, 'name'],
    ['an unknown field', { name: 'X', plan: 'gold' }, 'plan'],
    ['domains that are not a list', { name: 'X', callbackDomains: 'partner.example' }, 'callbackDomains'],
  ])('POST with %s is 400 naming the field', async (_label, body, field) => {
    const res = await h.admin('POST', `${A}/institutions`, body);
    expectError(res, 400, 'invalid_request');
    expect(detailFields(res)).toContain(field);
  });

  it('POST with bad callback domains is 400 naming each bad entry under callbackDomains, and creates nothing', async () => {
    const before = (await h.pool.query('SELECT count(*)::int AS n FROM institutions')).rows[0].n;
    const res = await h.admin('POST', `${A}/institutions`, { name: 'Bad Domains', callbackDomains: ['ok.example', 'https://bad.example'] });
    expectError(res, 400, 'invalid_request');
    expect(detailFields(res)).toEqual(['callbackDomains.1']);
    expect((await h.pool.query('SELECT count(*)::int AS n FROM institutions')).rows[0].n).toBe(before);
  });

  it('GET lists institutions in creation order, paged, with the total', async () => {
    for (let i = 0; i < 3; i++) await h.admin('POST', `${A}/institutions`, { name: `Paged ${i}` });
    const all = (await h.admin('GET', `${A}/institutions?limit=100`)).json();
    expect(all.total).toBe(all.data.length);
    expect(all.data.length).toBeGreaterThanOrEqual(5);
    const page = (await h.admin('GET', `${A}/institutions?limit=2&offset=1`)).json();
    expect(page).toMatchObject({ total: all.total, limit: 2, offset: 1 });
    expect(page.data).toEqual(all.data.slice(1, 3));
    expect((await h.admin('GET', `${A}/institutions?offset=${all.total}`)).json()).toEqual({ data: [], total: all.total, limit: 20, offset: all.total });
  });

  it.each(['limit=0', 'limit=101', 'offset=-1', 'limit=x'])('GET with ?%s is 400', async (q) => {
    expectError(await h.admin('GET', `${A}/institutions?${q}`), 400, 'invalid_request');
  });

  it('PUT status suspends and reactivates; an unknown status is 400 and an unknown institution 404', async () => {
    const t = await h.createTenant('Status School');
    const url = `${A}/institutions/${t.institutionId}/status`;
    expect((await h.admin('PUT', url, { status: 'suspended' })).json()).toMatchObject({ institutionId: t.institutionId, status: 'suspended' });
    expect((await h.admin('PUT', url, { status: 'active' })).json().status).toBe('active');
    expectError(await h.admin('PUT', url, { status: 'closed' }), 400, 'invalid_request');
    expectError(await h.admin('PUT', `${A}/institutions/ins_0000000000000000000000/status`, { status: 'active' }), 404, 'not_found');
  });

  it('a POST whose body is not JSON is 415, malformed JSON 400, as on the partner API', async () => {
    const post = (type: string, payload: string) =>
      h.app.inject({ method: 'POST', url: `${A}/institutions`, headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': type }, payload });
    expectError(await post('text/plain', '{"name":"X"}'), 415, 'unsupported_media_type');
    expectError(await post('application/json', '{"name":'), 400, 'invalid_request');
  });

  it('GET of an unknown institution is 404', async () => {
    expectError(await h.admin('GET', `${A}/institutions/ins_0000000000000000000000`), 404, 'not_found');
  });
});

describe('callback domains', () => {
  it('PUT replaces the allowlist with normalised, de-duplicated, sorted entries', async () => {
    const url = `${A}/institutions/${h.a.institutionId}/callback-domains`;
    const res = await h.admin('PUT', url, { domains: ['Partner.Example', '*.LMS.example', 'partner.example', 'bücher.example', 'localhost'] });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ domains: ['*.lms.example', 'localhost', 'partner.example', 'xn--bcher-kva.example'] });
    expect((await h.admin('GET', `${A}/institutions/${h.a.institutionId}`)).json().callbackDomains).toEqual(res.json().domains);
    const replaced = await h.admin('PUT', url, { domains: ['alpha-college.example'] });
    expect(replaced.json()).toEqual({ domains: ['alpha-college.example'] });
  });

  it('PUT with an empty list clears the allowlist', async () => {
    const t = await h.createTenant('Clearing School');
    const res = await h.admin('PUT', `${A}/institutions/${t.institutionId}/callback-domains`, { domains: [] });
    expect(res.json()).toEqual({ domains: [] });
  });

  it('PUT with bad entries is 400 with a detail for each, and leaves the allowlist unchanged', async () => {
    const url = `${A}/institutions/${h.b.institutionId}/callback-domains`;
    const before = (await h.admin('GET', `${A}/institutions/${h.b.institutionId}`)).json().callbackDomains;
    // The empty string is refused by the schema before any entry is looked at, so it is left out here.
    const bad = BAD_DOMAINS.filter((d) => d !== '');
    const res = await h.admin('PUT', url, { domains: ['fine.example', ...bad] });
    expectError(res, 400, 'invalid_request');
    expect(detailFields(res)).toEqual(bad.map((_d, i) => `domains.${i + 1}`));
    expect((await h.admin('GET', `${A}/institutions/${h.b.institutionId}`)).json().callbackDomains).toEqual(before);
  });

  it.each(BAD_DOMAINS)('refuses the entry %j', async (entry) => {
    const res = await h.admin('PUT', `${A}/institutions/${h.b.institutionId}/callback-domains`, { domains: [entry] });
    expectError(res, 400, 'invalid_request');
  });

  it('PUT for an unknown institution is 404; an unknown body field is 400', async () => {
    expectError(await h.admin('PUT', `${A}/institutions/ins_0000000000000000000000/callback-domains`, { domains: ['x.example'] }), 404, 'not_found');
    const res = await h.admin('PUT', `${A}/institutions/${h.a.institutionId}/callback-domains`, { domains: [], extra: 1 });
    expectError(res, 400, 'invalid_request');
    expect(detailFields(res)).toEqual(['extra']);
  });
});

describe('API keys', () => {
  it('POST creates a key shown once, stored only as a hash; the list never shows the secret or the hash', async () => {
    const t = await h.createTenant('Keys School');
    const res = await h.admin('POST', `${A}/institutions/${t.institutionId}/api-keys`, { label: 'LMS production' });
    expect(res.statusCode).toBe(201);
    const created = res.json();
    expect(Object.keys(created).sort()).toEqual(['apiKey', 'createdAt', 'keyId', 'label', 'mode']);
    expect(created.keyId).toMatch(/^key_[0-9A-Za-z]{22}$/);
    expect(created.apiKey).toMatch(/^ak_live_[0-9A-Za-z]{32,}$/);
    expect(created.label).toBe('LMS production');

    const row = await h.pool.query('SELECT * FROM api_keys WHERE id = $1', [created.keyId]);
    expect(row.rows[0].key_hash).toBe(sha256Hex(created.apiKey));
    expect(Object.values(row.rows[0])).not.toContain(created.apiKey);

    const list = await h.admin('GET', `${A}/institutions/${t.institutionId}/api-keys`);
    expect(list.statusCode).toBe(200);
    expect(list.body).not.toContain(created.apiKey);
    expect(list.body).not.toContain(sha256Hex(created.apiKey));
    const listed = list.json().data.find((k: { keyId: string }) => k.keyId === created.keyId);
    expect(Object.keys(listed).sort()).toEqual(['createdAt', 'keyId', 'label', 'lastUsedAt', 'mode', 'prefix', 'revokedAt']);
    expect(listed).toMatchObject({ label: 'LMS production', lastUsedAt: null, revokedAt: null, mode: 'live' });
    expect(created.apiKey.startsWith(listed.prefix)).toBe(true);
    expect(listed.prefix.length).toBeLessThanOrEqual(12);
    expect((await h.partner(created.apiKey, 'GET', '/api/partner/v1/tests')).statusCode).toBe(200);
  });

  it('POST without a body creates an unlabelled key', async () => {
    const res = await h.app.inject({
      method: 'POST',
      url: `${A}/institutions/${h.a.institutionId}/api-keys`,
      headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
    });
    expect(res.statusCode).toBe(201);
    expect(res.json().label).toBeNull();
  });

  it('a JSON null body is refused with 400 and creates nothing (the body may be left out, not be null)', async () => {
    const before = (await h.admin('GET', `${A}/institutions/${h.a.institutionId}/api-keys`)).json().data.length;
    const res = await h.app.inject({
      method: 'POST',
      url: `${A}/institutions/${h.a.institutionId}/api-keys`,
      headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
      payload: 'null',
    });
    expect(expectError(res, 400, 'invalid_request').error.details).toEqual([{ field: 'body', message: 'must be object' }]);
    expect((await h.admin('GET', `${A}/institutions/${h.a.institutionId}/api-keys`)).json().data.length).toBe(before);
  });

  it('every key is different', async () => {
    const keys = await Promise.all(
      Array.from({ length: 5 }, () => h.admin('POST', `${A}/institutions/${h.a.institutionId}/api-keys`, {})),
    );
    expect(new Set(keys.map((k) => k.json().apiKey)).size).toBe(5);
  });

  it('POST for an unknown institution is 404; a label over 200 characters is 400', async () => {
    expectError(await h.admin('POST', `${A}/institutions/ins_0000000000000000000000/api-keys`, {}), 404, 'not_found');
    expectError(await h.admin('POST', `${A}/institutions/${h.a.institutionId}/api-keys`, { label: 'l'.repeat(201) }), 400, 'invalid_request');
  });

  it('DELETE revokes with 204, the list shows revokedAt, and revoking again is still 204', async () => {
    const t = await h.createTenant('Revoke School');
    const url = `${A}/institutions/${t.institutionId}/api-keys/${t.keyId}`;
    const res = await h.admin('DELETE', url);
    expect(res.statusCode).toBe(204);
    expect(res.body).toBe('');
    const listed = (await h.admin('GET', `${A}/institutions/${t.institutionId}/api-keys`)).json().data[0];
    expect(listed.revokedAt).not.toBeNull();
    expect((await h.admin('DELETE', url)).statusCode).toBe(204);
    expect((await h.admin('GET', `${A}/institutions/${t.institutionId}/api-keys`)).json().data[0].revokedAt).toBe(listed.revokedAt);
  });

  it('DELETE of an unknown key, or of another institution’s key, is 404 and revokes nothing', async () => {
    expectError(await h.admin('DELETE', `${A}/institutions/${h.a.institutionId}/api-keys/key_0000000000000000000000`), 404, 'not_found');
    expectError(await h.admin('DELETE', `${A}/institutions/${h.a.institutionId}/api-keys/${h.b.keyId}`), 404, 'not_found');
    expect((await h.partner(h.b, 'GET', '/api/partner/v1/tests')).statusCode).toBe(200);
  });

  it('GET of an unknown institution’s keys is 404', async () => {
    expectError(await h.admin('GET', `${A}/institutions/ins_0000000000000000000000/api-keys`), 404, 'not_found');
  });
});
