import type { IncomingHttpHeaders } from 'node:http';

/**
 * The rule every browser-facing form and script post keeps (the portal, the
 * student pages, LTI's picker): a browser that says the request came from
 * another site (`Sec-Fetch-Site: cross-site` or `same-site`) is refused, even
 * with the right token; `same-origin`, `none` or no header (an older browser)
 * goes on to the token check.
 */
export function sentFromAnotherSite(headers: IncomingHttpHeaders): boolean {
  const site = headers['sec-fetch-site'];
  return site === 'cross-site' || site === 'same-site';
}
