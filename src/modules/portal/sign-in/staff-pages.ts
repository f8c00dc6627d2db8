import { Type } from '@sinclair/typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { AppContext } from '../../../platform/context.js';
import { assetRoute, loadAsset } from '../../../platform/web/asset-route.js';
import { FORM, Html, Redirect, redirect } from '../ui/page.js';
import { portalTranslator } from '../ui/portal-text.js';
import { consumeSignInLink, inspectSignInLink } from '../../staff/sign-in-links.js';
import { listPasskeys, removePasskey } from '../../staff/passkeys.js';
import { PORTAL_COOKIE } from '../../staff/portal-sessions.js';
import { formCsrf, portalCookieOptions } from '../portal-session.js';
import { requireStaff, safeNextPath } from '../../staff/principal.js';
import { requestSignIn } from '../../staff/request-sign-in.js';
import { signOut } from '../../staff/sign-out.js';
import { accountFlash, accountMain } from './account-page.js';
import { passkeyRoutes } from './passkey-routes.js';
import { sendPage } from './page-shell.js';
import { checkEmailMain, linkLandingMain, linkRefusedPage, rateLimitedMain, signInMain } from './sign-in-pages.js';

const hide = true;
const script = loadAsset(new URL('./assets/passkeys.js', import.meta.url), 'text/javascript; charset=utf-8');
const TokenParams = Type.Object({ token: Type.String({ maxLength: 100 }) });

/**
 * The staff pages: sign-in (email link, passkey), the link's landing page,
 * sign-out, and the account page with passkeys. Registered in the portal
 * scope, after portalSession; paths are under /portal whether or not
 * the scope carries that prefix.
 */
export const staffPages: FastifyPluginAsyncTypebox<{ ctx: AppContext }> = async (app, { ctx }) => {
  const base = app.prefix.endsWith('/portal') ? '' : '/portal';
  // No SMTP: the mailer writes sign-in links to the log, and the pages say so.
  const mailToLog = ctx.config.mail.smtpUrl === null;
  const t = portalTranslator();

  assetRoute(app, `${base}/assets/passkeys.js`, script);

  app.get(
    `${base}/sign-in`,
    { schema: { hide, querystring: Type.Object({ next: Type.Optional(Type.String({ maxLength: 2000 })), signed_out: Type.Optional(Type.String({ maxLength: 5 })) }), response: { 200: Html, 303: Redirect } } },
    async (request, reply) => {
      const next = safeNextPath(request.query.next);
      if (request.staff) return redirect(reply, next ?? '/portal');
      const main = signInMain({ csrf: formCsrf(ctx, request, reply), next, signedOut: request.query.signed_out === '1', mailToLog, t });
      return sendPage(request, reply, { title: t.t('portal.signIn.title'), main, t });
    },
  );

  app.post(
    `${base}/sign-in`,
    {
      schema: {
        hide,
        consumes: FORM,
        body: Type.Object({ csrf: Type.Optional(Type.String({ maxLength: 200 })), email: Type.String({ maxLength: 1000 }), next: Type.Optional(Type.String({ maxLength: 2000 })) }),
        response: { 303: Redirect, 400: Html, 429: Html },
      },
    },
    async (request, reply) => {
      const result = await requestSignIn(ctx, { email: request.body.email, next: request.body.next, ip: request.ip, acceptLanguage: request.headers['accept-language'] });
      if (result.kind === 'accepted') return redirect(reply, '/portal/sign-in/sent');
      if (result.kind === 'rate_limited') {
        reply.header('retry-after', String(result.retryAfterSeconds));
        return sendPage(request, reply, { status: 429, title: t.t('portal.signInLimited.title'), main: rateLimitedMain(result.retryAfterSeconds, t), t });
      }
      const main = signInMain({
        csrf: formCsrf(ctx, request, reply),
        next: safeNextPath(request.body.next),
        email: request.body.email,
        error: t.t('portal.signIn.emailInvalid'),
        mailToLog,
        t,
      });
      return sendPage(request, reply, { status: 400, title: t.t('portal.signIn.errorTitle'), main, t });
    },
  );

  app.get(`${base}/sign-in/sent`, { schema: { hide, response: { 200: Html } } }, async (request, reply) =>
    sendPage(request, reply, { title: t.t('portal.checkEmail.heading'), main: checkEmailMain({ mailToLog, t }), t }),
  );

  // Opening the link only shows the button: mail scanners and link previews fetch links, and must not use them up.
  app.get(`${base}/sign-in/link/:token`, { exposeHeadRoute: false, schema: { hide, params: TokenParams, response: { 200: Html, 404: Html, 410: Html } } }, async (request, reply) => {
    const state = await inspectSignInLink(ctx.pool, request.params.token, ctx.clock.now());
    if (state !== 'valid') return sendPage(request, reply, linkRefusedPage(state, t));
    reply.header('referrer-policy', 'no-referrer');
    const main = linkLandingMain({ csrf: formCsrf(ctx, request, reply), action: `/portal/sign-in/link/${request.params.token}`, t });
    return sendPage(request, reply, { title: t.t('portal.signIn.title'), main, t });
  });

  app.post(
    `${base}/sign-in/link/:token`,
    { schema: { hide, consumes: FORM, params: TokenParams, body: Type.Object({ csrf: Type.Optional(Type.String({ maxLength: 200 })) }), response: { 303: Redirect, 404: Html, 410: Html } } },
    async (request, reply) => {
      const result = await consumeSignInLink(ctx, request.params.token, request.ip, request.cookies?.[PORTAL_COOKIE]);
      if (!result.ok) return sendPage(request, reply, linkRefusedPage(result.state, t));
      // A new session id at every sign-in (never one chosen before it): no session fixation.
      reply.setCookie(PORTAL_COOKIE, result.sessionId, portalCookieOptions(ctx));
      return redirect(reply, safeNextPath(result.next) ?? '/portal');
    },
  );

  app.post(
    `${base}/sign-out`,
    { config: { signOut: true }, schema: { hide, consumes: FORM, body: Type.Object({ csrf: Type.Optional(Type.String({ maxLength: 200 })) }), response: { 303: Redirect } } },
    async (request, reply) => {
      await signOut(ctx, request.cookies?.[PORTAL_COOKIE], request.staff, request.ip);
      reply.clearCookie(PORTAL_COOKIE, { path: '/portal' });
      return redirect(reply, '/portal/sign-in?signed_out=1');
    },
  );

  app.get(
    `${base}/account`,
    { schema: { hide, querystring: Type.Object({ done: Type.Optional(Type.String({ maxLength: 40 })) }), response: { 200: Html, 303: Redirect } } },
    async (request, reply) => {
      const p = requireStaff(request);
      const main = accountMain({ principal: p, passkeys: await listPasskeys(ctx.pool, p.staffId), flash: accountFlash(request.query.done, t), t });
      return sendPage(request, reply, { title: t.t('portal.account.title'), main, current: 'account', t });
    },
  );

  app.post(
    `${base}/account/passkeys/:credentialId/remove`,
    {
      schema: {
        hide,
        consumes: FORM,
        params: Type.Object({ credentialId: Type.String({ maxLength: 1400 }) }),
        body: Type.Object({ csrf: Type.Optional(Type.String({ maxLength: 200 })) }),
        response: { 303: Redirect, 404: Html },
      },
    },
    async (request, reply) => {
      const p = requireStaff(request);
      await removePasskey(ctx, p, request.params.credentialId, { actor: { kind: 'staff', staffId: p.staffId, email: p.email }, ip: request.ip });
      return redirect(reply, '/portal/account?done=passkey-removed');
    },
  );

  await app.register(passkeyRoutes, { ctx, base });
};
