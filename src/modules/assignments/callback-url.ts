import { AppError } from '../../platform/errors.js';

/**
 * callbackUrl rules (docs/api-rules.md "Assignments"): an absolute https: URL,
 * parsed with the WHATWG URL parser (so IDN hosts compare in punycode), no
 * userinfo, no fragment, and a host equal to an allowlisted domain or, for
 * an entry `*.example.com`, a subdomain of example.com (not example.com itself).
 * `allowInsecure` (ASSAY_ALLOW_INSECURE_URLS, development only) also admits http:.
 */
export function checkCallbackUrl(raw: string, allowlist: string[], allowInsecure: boolean): string {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new AppError('invalid_request', 'callbackUrl: must be an absolute URL', [{ field: 'callbackUrl', message: 'must be an absolute URL' }]);
  }
  const refuse = (why: string) =>
    new AppError('callback_url_not_allowed', `callbackUrl ${why}.`, [{ field: 'callbackUrl', message: why }]);
  if (url.protocol !== 'https:' && !(allowInsecure && url.protocol === 'http:')) throw refuse('must use https');
  if (url.username || url.password || /^[a-z][a-z0-9+.-]*:\/\/[^/?#]*@/i.test(raw)) throw refuse('must not contain credentials (user@host)');
  if (url.hash || raw.includes('#')) throw refuse('must not contain a fragment');
  const host = url.hostname.toLowerCase();
  const allowed = allowlist.some((entry) =>
    entry.startsWith('*.') ? host.endsWith(entry.slice(1)) && host.length > entry.length - 1 : host === entry,
  );
  if (!allowed) throw refuse(`host "${host}" is not on your institution's allowlisted callback domains`);
  return url.toString();
}
