import type { CookieSerializeOptions } from '@fastify/cookie';
import type { IncomingHttpHeaders } from 'node:http';

/**
 * Binding an LTI step to the browser that started it: a random value whose
 * hash the server keeps, held by the browser in a cookie (or, for a login
 * whose cookie the browser drops in the course's frame, in the platform's
 * storage: platform-storage.ts).
 *
 * The cookie travels in the course's frame, where the tool is a third party:
 * behind https it is `SameSite=None; Secure; Partitioned` (CHIPS), so a
 * browser that blocks third-party cookies but allows partitioned ones
 * (Chrome, Edge, Firefox) keeps it for this course's site; over plain http
 * (development) it is `SameSite=Lax`.
 */
export function bindingCookie(secure: boolean, maxAgeSeconds: number): CookieSerializeOptions {
  return {
    path: '/lti/',
    httpOnly: true,
    ...(secure ? { sameSite: 'none' as const, secure: true, partitioned: true } : { sameSite: 'lax' as const }),
    maxAge: maxAgeSeconds,
  };
}

/**
 * Whether a form post surely came from a page of this tool: `Sec-Fetch-Site:
 * same-origin`, or, from a browser without Fetch Metadata, an `Origin` equal
 * to the tool's. Stricter than sentFromAnotherSite (platform/http/fetch-site.ts): a value read from the
 * platform's storage is accepted only from the tool's own launch page.
 */
export function postedFromThisOrigin(headers: IncomingHttpHeaders, publicBaseUrl: string): boolean {
  const site = headers['sec-fetch-site'];
  if (site !== undefined) return site === 'same-origin';
  return headers.origin === new URL(publicBaseUrl).origin;
}
