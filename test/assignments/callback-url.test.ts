import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { assignmentBody, createHarness, type Harness, type Tenant } from '../helpers/harness.js';
import { detailFields, expectError } from '../helpers/expect-error.js';

// checkCallbackUrl itself (every refusal, IDN, wildcards) is checked in src/modules/assignments/callback-url.test.ts.
describe('callbackUrl through POST /assignments', () => {
  let h: Harness;
  let t: Tenant;
  beforeAll(async () => {
    h = await createHarness();
    t = await h.createTenant('Callback School', ['partner.example', '*.lms.example', 'bücher.example']);
  });
  afterAll(() => h.close());

  const post = (callbackUrl: string) => h.partner(t, 'POST', '/api/partner/v1/assignments', assignmentBody(t, { callbackUrl }));

  it.each([
    'http://partner.example/return',
    'https://partner.example@evil.example/',
    'https://evil.example/return',
    'https://sub.partner.example/return',
    'https://lms.example/return',
    'https://partner.example/return#frag',
  ])('refuses %s with 422 callback_url_not_allowed', async (url) => {
    const res = await post(url);
    expectError(res, 422, 'callback_url_not_allowed');
    expect(detailFields(res)).toEqual(['callbackUrl']);
  });

  it('refuses a relative URL with 400 invalid_request', async () => {
    expectError(await post('/return'), 400, 'invalid_request');
  });

  it.each([
    ['a subdomain under the *. entry', 'https://moodle.lms.example/cb', 'https://moodle.lms.example/cb'],
    ['an upper-case host', 'https://PARTNER.EXAMPLE/Back', 'https://partner.example/Back'],
    ['an IDN URL in Unicode against an entry written in Unicode', 'https://bücher.example/cb', 'https://xn--bcher-kva.example/cb'],
    ['an IDN URL in punycode against an entry written in Unicode', 'https://xn--bcher-kva.example/cb', 'https://xn--bcher-kva.example/cb'],
  ])('accepts %s and stores the normalised URL', async (_label, url, stored) => {
    const res = await post(url);
    expect(res.statusCode).toBe(201);
    const row = await h.pool.query('SELECT callback_url FROM assignments WHERE id = $1', [res.json().assignmentId]);
    expect(row.rows[0].callback_url).toBe(stored);
  });

  it('accepts a Unicode IDN URL against an allowlist entry written in punycode', async () => {
    const p = await h.createTenant('Punycode School', ['xn--bcher-kva.example']);
    const res = await h.partner(p, 'POST', '/api/partner/v1/assignments', assignmentBody(p, { callbackUrl: 'https://bücher.example/x' }));
    expect(res.statusCode).toBe(201);
  });

  it('refuses another institution’s allowlisted domain', async () => {
    const res = await h.partner(h.b, 'POST', '/api/partner/v1/assignments', assignmentBody(h.b, { callbackUrl: h.a.callbackUrl }));
    expectError(res, 422, 'callback_url_not_allowed');
  });

  it('a changed allowlist applies to the next request', async () => {
    const c = await h.createTenant('Moving School', ['old.example']);
    expect((await h.partner(c, 'POST', '/api/partner/v1/assignments', assignmentBody(c, { callbackUrl: 'https://new.example/' }))).statusCode).toBe(422);
    await h.admin('PUT', `/api/admin/v1/institutions/${c.institutionId}/callback-domains`, { domains: ['new.example'] });
    expect((await h.partner(c, 'POST', '/api/partner/v1/assignments', assignmentBody(c, { callbackUrl: 'https://new.example/' }))).statusCode).toBe(201);
    expect((await h.partner(c, 'POST', '/api/partner/v1/assignments', assignmentBody(c, { callbackUrl: 'https://old.example/' }))).statusCode).toBe(422);
  });
});
