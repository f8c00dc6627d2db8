import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AppError } from '../../src/platform/errors.js';
import { checkCallbackUrl } from '../../src/modules/assignments/callback-url.js';
import { normaliseDomain } from '../../src/modules/institutions/institutions.js';
import { assignmentBody, createHarness, type Harness, type Tenant } from '../helpers/harness.js';
import { detailFields, expectError } from '../helpers/expect-error.js';

const ALLOW = ['partner.example', '*.lms.example', 'xn--bcher-kva.example'];

function refusal(raw: string, allowInsecure = false): { code: string; field: string } | null {
  try {
    checkCallbackUrl(raw, ALLOW, allowInsecure);
    return null;
  } catch (err) {
    expect(err).toBeInstanceOf(AppError);
    const e = err as AppError;
    return { code: e.code, field: e.details?.[0]?.field ?? '' };
  }
}

describe('checkCallbackUrl (pure)', () => {
  it.each([
    ['the exact allowlisted host', 'https://partner.example/return?x=1'],
    ['a port', 'https://partner.example:8443/return'],
    ['a subdomain under a *. entry', 'https://app.lms.example/cb'],
    ['a deeper subdomain under a *. entry', 'https://a.b.lms.example/cb'],
    ['an upper-case host', 'https://PARTNER.Example/Return'],
    ['an IDN host written in Unicode against a punycode entry', 'https://bücher.example/cb'],
    ['an IDN host written in punycode', 'https://xn--bcher-kva.example/cb'],
  ])('accepts %s', (_label, raw) => {
    expect(refusal(raw)).toBeNull();
  });

  it('returns the URL as the WHATWG parser serialises it: lower-case host, path case kept, IDN in punycode', () => {
    expect(checkCallbackUrl('https://PARTNER.Example/Return?A=B', ALLOW, false)).toBe('https://partner.example/Return?A=B');
    expect(checkCallbackUrl('https://bücher.example/cb', ALLOW, false)).toBe('https://xn--bcher-kva.example/cb');
  });

  it.each([
    ['http:', 'http://partner.example/return'],
    ['another scheme', 'ftp://partner.example/return'],
    ['javascript:', 'javascript:alert(1)'],
    ['userinfo that looks like the allowed host', 'https://partner.example@evil.example/'],
    ['userinfo before the allowed host', 'https://user:pass@partner.example/'],
    ['an empty userinfo', 'https://@partner.example/'],
    ['another domain', 'https://evil.example/return'],
    ['a subdomain without a *. entry', 'https://sub.partner.example/return'],
    ['the bare domain of a *. entry', 'https://lms.example/return'],
    ['a host that only ends with the *. entry’s text', 'https://evillms.example/return'],
    ['the allowed host as a prefix of another host', 'https://partner.example.evil.example/'],
    ['a percent-encoded dot smuggling another host', 'https://partner.example%2eevil.example/'],
    ['a backslash trick', 'https://evil.example\\@partner.example/'],
    ['a fragment', 'https://partner.example/return#section'],
    ['an empty fragment', 'https://partner.example/return#'],
    ['an IP address', 'https://127.0.0.1/return'],
    ['a trailing-dot host', 'https://partner.example./return'],
  ])('refuses %s with 422 callback_url_not_allowed naming callbackUrl', (_label, raw) => {
    expect(refusal(raw)).toEqual({ code: 'callback_url_not_allowed', field: 'callbackUrl' });
  });

  it.each([
    ['a path only', '/return'],
    ['a scheme-relative URL', '//partner.example/return'],
    ['a host without scheme', 'partner.example/return'],
    ['an empty string', ''],
  ])('refuses a relative or non-URL value (%s) with 400 invalid_request naming callbackUrl', (_label, raw) => {
    expect(refusal(raw)).toEqual({ code: 'invalid_request', field: 'callbackUrl' });
  });

  it('admits http: only with the development switch, and still checks the host', () => {
    expect(refusal('http://partner.example/return', true)).toBeNull();
    expect(refusal('http://evil.example/return', true)).toEqual({ code: 'callback_url_not_allowed', field: 'callbackUrl' });
    expect(refusal('ftp://partner.example/return', true)).toEqual({ code: 'callback_url_not_allowed', field: 'callbackUrl' });
  });

  it('refuses everything when the allowlist is empty', () => {
    expect(() => checkCallbackUrl('https://partner.example/', [], false)).toThrow(AppError);
  });

  it('normalises allowlist entries the way URLs are parsed (IDN to punycode, lower case)', () => {
    expect(normaliseDomain('Bücher.Example')).toBe('xn--bcher-kva.example');
    expect(normaliseDomain('*.LMS.example')).toBe('*.lms.example');
  });
});

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
