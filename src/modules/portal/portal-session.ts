import cookie from '@fastify/cookie';
import formbody from '@fastify/formbody';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import type { AppContext } from '../../platform/context.js';
import { safeEqual } from '../../platform/crypto.js';
import { sentFromAnotherSite } from '../../platform/http/fetch-site.js';
import { randomBase62 } from '../../platform/ids.js';
import { installPortalErrors, CsrfRefused } from './portal-errors.js';
import { installReadYourWrites } from './portal-reads.js';
import { PORTAL_COOKIE, SESSION_ABSOLUTE_MS, resolvePortalSession } from '../staff/portal-sessions.js';
import { requirePermission, type Permission } from '../staff/principal.js';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** A portal route that answers JSON (errors in the envelope) rather than a page. */
    json?: boolean;
    /** Sign-out: with no live session there is nothing to protect, so no token is needed. */
    signOut?: boolean;
    /**
     * A route whose body is a file (the Import form, an image): the session,
     * this permission and the CSRF token (header `X-CSRF-Token` or query
     * `csrf`, never the body) are checked before a byte of the body is read.
     */
    upload?: { permission: Permission };
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
  return headerOrQueryToken(request);
}

/** The token an upload carries outside its body: a script's header, or a form's action URL (`?csrf=`; redacted in logs). */
function headerOrQueryToken(request: FastifyRequest): string | undefined {
  const header = request.headers['x-csrf-token'];
  if (typeof header === 'string') return header;
  const query = (request.query as { csrf?: unknown } | undefined)?.csrf;
  return typeof query === 'string' ? query : undefined;
}

/**
 * Before the body: everything that can be known without it. A browser that
 * says the request is from another site, or a visitor with neither a session
 * nor a pre-session cookie (no token could match), is refused here; an upload
 * route also checks sign-in, permission and its token here. A form's own
 * token field is compared after its (64 KB-bounded) body is parsed.
 */
function checkBeforeBody(request: FastifyRequest): void {
  if (!STATE_CHANGING.has(request.method)) return;
  if (!request.staff && request.routeOptions.config?.signOut) return;
  if (sentFromAnotherSite(request.headers)) throw new CsrfRefused();
  const upload = request.routeOptions.config?.upload;
  if (upload) {
    // Signed out: no session token can match (a 403, as for every portal form), then the role, then the token.
    if (!request.staff) throw new CsrfRefused();
    const p = requirePermission(request, upload.permission);
    const token = headerOrQueryToken(request);
    if (!token || !safeEqual(token, p.sessionCsrf)) throw new CsrfRefused();
    return;
  }
  if (!request.staff && !request.cookies?.[PRE_SESSION_COOKIE]) throw new CsrfRefused();
}

/**
 * Installs the portal's session handling in the calling scope: cookies and
 * form bodies, `request.staff` from the `assay_portal` cookie (null when
 * signed out or the session ended), the CSRF check on every state-changing
 * request (form field `csrf` or header `X-CSRF-Token`; an upload's in the
 * header or the query, before its body; also refused when the browser says
 * the request comes from another site), and the portal's error
 * pages (see portal-errors.ts). Registered with fastify-plugin, so all of it
 * belongs to the scope that registers it (the portal's).
 */
export const portalSession = fp(installPortalSession, { name: 'portal-session' });

async function installPortalSession(app: FastifyInstance, { ctx }: { ctx: AppContext }): Promise<void> {
  await app.register(formbody);
  await app.register(cookie);
  app.decorateRequest('staff', null);
  installPortalErrors(app);
  installReadYourWrites(app, ctx);

  app.addHook('onRequest', async (request) => {
    request.staff = await resolvePortalSession(ctx.pool, request.cookies?.[PORTAL_COOKIE], ctx.clock.now());
  });

  // Before the content-type parser runs: nobody's body is read before they are known (review C1).
  app.addHook('preParsing', async (request, _reply, payload) => {
    checkBeforeBody(request);
    return payload;
  });

  // After body parsing (the token may be a form field), before validation: a forged post is a 403, never a 400.
  app.addHook('preValidation', async (request) => {
    if (!STATE_CHANGING.has(request.method)) return;
    if (!request.staff && request.routeOptions.config?.signOut) return;
    // Another site's post, and an upload's token, were refused before the body (checkBeforeBody).
    if (request.routeOptions.config?.upload) return;
    const expected = request.staff?.sessionCsrf ?? request.cookies?.[PRE_SESSION_COOKIE];
    const token = submittedToken(request);
    if (!expected || !token || !safeEqual(token, expected)) throw new CsrfRefused();
  });
}
