import { describe, expect, it } from 'vitest';
import { AppError } from '../../platform/errors.js';
import { checkCallbackUrl } from './callback-url.js';
import { normaliseDomain } from '../institutions/institutions.js';

// checkCallbackUrl on its own. Through POST /assignments (allowlists per institution): test/assignments/callback-url.test.ts.
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
