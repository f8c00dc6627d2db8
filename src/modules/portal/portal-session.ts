import cookie from '@fastify/cookie';
import formbody from '@fastify/formbody';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import type { AppContext } from '../../platform/context.js';
import { safeEqual } from '../../platform/crypto.js';
import { randomBase62 } from '../../platform/ids.js';
import { installPortalErrors, CsrfRefused } from './portal-errors.js';
import { PORTAL_COOKIE, SESSION_ABSOLUTE_MS, resolvePortalSession } from '../staff/portal-sessions.js';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** A portal route that answers JSON (errors in the envelope) rather than a page. */
    json?: boolean;
    /** Sign-out: with no live session there is nothing to protect, so no token is needed. */
    signOut?: boolean;
  }
}

/**
 * Signed-out forms (the sign-in form, the link's "Sign in" button) carry a
 * token that must match this cookie (double submit). A cross-site page can
 * neither read the cookie nor, with SameSite=Strict, make the browser send
 * it: so nobody can sign a visitor in to an account of their choosing.
 */
export const PRE_SESSION_COOKIE = 'assay_portal_pre';
const COOKIE_PATH = '/portal';

export function portalCookieOptions(ctx: AppContext, maxAgeMs = SESSION_ABSOLUTE_MS) {
  return {
    path: COOKIE_PATH,
    httpOnly: true,
    sameSite: 'strict' as const,
    secure: ctx.config.publicBaseUrl.startsWith('https:'),
    maxAge: Math.floor(maxAgeMs / 1000),
  };
}

const STATE_CHANGING = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

/**
 * The token a form on this page must carry in its `csrf` field: the
 * session's when signed in, otherwise the pre-session cookie's (set here
 * when the visitor has none yet).
 */
export function formCsrf(ctx: AppContext, request: FastifyRequest, reply: FastifyReply): string {
  if (request.staff) return request.staff.sessionCsrf;
  const existing = request.cookies?.[PRE_SESSION_COOKIE];
  if (existing && /^[0-9A-Za-z]{32}$/.test(existing)) return existing;
  const token = randomBase62(32);
  reply.setCookie(PRE_SESSION_COOKIE, token, portalCookieOptions(ctx));
  return token;
}

function submittedToken(request: FastifyRequest): string | undefined {
  const body = request.body as { csrf?: unknown } | undefined;
  if (body && typeof body === 'object' && typeof body.csrf === 'string') return body.csrf;
  const header = request.headers['x-csrf-token'];
  return typeof header === 'string' ? header : undefined;
}

/**
 * Installs the portal's session handling in the calling scope: cookies and
 * form bodies, `request.staff` from the `assay_portal` cookie (null when
 * signed out or the session ended), the CSRF check on every state-changing
 * request (form field `csrf` or header `X-CSRF-Token`; also refused when the
 * browser says the request comes from another site), and the portal's error
 * pages (see portal-errors.ts). Registered with fastify-plugin, so all of it
 * belongs to the scope that registers it (the portal's).
 */
export const portalSession = fp(installPortalSession, { name: 'portal-session' });

async function installPortalSession(app: FastifyInstance, { ctx }: { ctx: AppContext }): Promise<void> {
  await app.register(formbody);
  await app.register(cookie);
  app.decorateRequest('staff', null);
  installPortalErrors(app);

  app.addHook('onRequest', async (request) => {
    request.staff = await resolvePortalSession(ctx.pool, request.cookies?.[PORTAL_COOKIE], ctx.clock.now());
  });

  // After body parsing (the token may be a form field), before validation: a forged post is a 403, never a 400.
  app.addHook('preValidation', async (request) => {
    if (!STATE_CHANGING.has(request.method)) return;
    if (!request.staff && request.routeOptions.config?.signOut) return;
    if (request.headers['sec-fetch-site'] === 'cross-site' || request.headers['sec-fetch-site'] === 'same-site') {
      throw new CsrfRefused();
    }
    const expected = request.staff?.sessionCsrf ?? request.cookies?.[PRE_SESSION_COOKIE];
    const token = submittedToken(request);
    if (!expected || !token || !safeEqual(token, expected)) throw new CsrfRefused();
  });
}
