import cookie from '@fastify/cookie';
import formbody from '@fastify/formbody';
import { Type } from '@sinclair/typebox';
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { AppError } from '../../platform/errors.js';
import { startLinkLimit } from '../../platform/http/rate-limit-requests.js';
import { assetRoute, loadAsset } from '../../platform/web/asset-route.js';
import type { AssignmentsContext } from '../assignments/context.js';
import { SESSION_COOKIE } from '../assignments/student-sessions.js';
import { getInstitution } from '../institutions/institutions.js';
import { isSubmittedStatus } from '../lifecycle/state-machine.js';
import { assignmentExpiredPage, errorPage, invalidLinkPage, linkExpiredPage, tooManyPage, withdrawnPage } from '../student/pages/message-pages.js';
import { deepLinkingResponse, findPickerRequest, PICKER_TTL_MS, pickerCookieName, pickerTests, startDeepLinking } from './deep-linking.js';
import { listLinkLearners } from './links-repo.js';
import { deepLinkReturnPage, instructorPage, launchRefusedPage, ltiPageHeaders, newWindowPage, noTestChosenPage, observerPage, pickerPage, registrationPage, returnPage } from './pages.js';
import { openStartLink } from '../student/open-start-link.js';
import { CLAIM } from './lti-context.js';
import { RegistrationFailed, registerDynamically } from './dynamic-registration.js';
import { resourceLinkLaunch } from './resource-link-launch.js';
import { DeepLinkChoice, Html, LaunchForm, LoginRequest } from './schemas.js';
import { toolJwks } from './tool-keys.js';
import { LaunchRefused, startLogin, stateCookieName, verifyLaunch } from './verify-launch.js';
import { bindingCookie, postedFromThisOrigin } from './browser-binding.js';
import { sentFromAnotherSite } from '../../platform/http/fetch-site.js';
import { launchStoragePage, loginStoragePage, storageToRead } from './platform-storage.js';
import { launchLocale, ltiTranslator, requestTranslator } from './lti-locale.js';

const FORM = ['application/x-www-form-urlencoded'];
const hide = { hide: true } as const;

/**
 * The tool's endpoints for learning platforms and browsers: /lti/login (OIDC
 * third-party login initiation), /lti/launch (the id_token form post),
 * /lti/jwks (the tool's public keys), the deep-linking picker, and the page
 * a finished test returns to when the launch gave no return URL. A launch
 * refused for any reason gets one page that says it could not be verified;
 * the reason goes to the log (never a token or a secret). A learner's pages
 * speak the launch's locale, else the browser's language (lti-locale.ts).
 */
export const ltiRoutes: FastifyPluginAsyncTypebox<{ ctx: AssignmentsContext }> = async (app, { ctx }) => {
  await app.register(formbody);
  await app.register(cookie);
  const secure = ctx.config.publicBaseUrl.startsWith('https:');
  const headers = ltiPageHeaders({ allowInsecure: ctx.config.allowInsecureUrls });
  const limit = startLinkLimit(ctx.config.requestLimits.startLinksPerMinute);

  assetRoute(app, '/lti/assets/lti.css', loadAsset(new URL('./assets/lti.css', import.meta.url), 'text/css; charset=utf-8'));
  assetRoute(app, '/lti/assets/registration-close.js', loadAsset(new URL('./assets/registration-close.js', import.meta.url), 'text/javascript; charset=utf-8'));
  assetRoute(app, '/lti/assets/auto-post.js', loadAsset(new URL('./assets/auto-post.js', import.meta.url), 'text/javascript; charset=utf-8'));
  assetRoute(app, '/lti/assets/platform-storage.js', loadAsset(new URL('./assets/platform-storage.js', import.meta.url), 'text/javascript; charset=utf-8'));

  app.setErrorHandler(async (err: FastifyError | AppError, request, reply) => {
    reply.headers(headers);
    const t = requestTranslator(ctx, request);
    if (err instanceof LaunchRefused) {
      request.log.warn({ reason: err.message }, 'LTI launch refused');
      return reply.code(err.status).send(launchRefusedPage(t));
    }
    const status = err instanceof AppError ? err.status : err.statusCode;
    if (status === 429) return reply.headers((err as AppError).headers ?? {}).code(429).send(tooManyPage(t));
    if (status !== undefined && status < 500) {
      // A malformed login or launch (a missing or oversized parameter) is a launch that cannot be verified.
      request.log.warn({ reason: err.message, status }, 'LTI request refused');
      return reply.code(400).send(launchRefusedPage(t));
    }
    request.log.error({ err }, 'LTI request failed');
    return reply.code(500).send(errorPage(request.id, t));
  });

  app.get('/lti/jwks', { schema: { ...hide, response: { 200: Type.Object({ keys: Type.Array(Type.Object({}, { additionalProperties: true })) }) } } }, async (_request, reply) => {
    reply.header('cache-control', 'public, max-age=300');
    return toolJwks(ctx);
  });

  async function login(params: LoginRequest, request: FastifyRequest, reply: FastifyReply) {
    const redirect = await startLogin(ctx, params);
    // The id_token comes back as a cross-site form post, often in the course's frame: see bindingCookie.
    reply.setCookie(redirect.cookie.name, redirect.cookie.value, bindingCookie(secure, redirect.cookie.maxAgeSeconds));
    if (redirect.storage) {
      // The platform offers its storage: the page keeps the binding there too, then goes on to the platform.
      const { name: key, value } = redirect.cookie;
      // The login carries no locale: the browser's language.
      const t = requestTranslator(ctx, request);
      return reply.code(200).headers(headers).send(loginStoragePage({ t, ...redirect.storage, key, value, next: redirect.location }));
    }
    return reply.code(302).header('location', redirect.location).header('cache-control', 'no-store').send(null);
  }
  const loginResponses = { 200: Html, 302: Type.Null(), 400: Html, 401: Html };
  app.get('/lti/login', { config: limit, schema: { ...hide, querystring: LoginRequest, response: loginResponses } }, (request, reply) => login(request.query, request, reply));
  app.post('/lti/login', { config: limit, schema: { ...hide, consumes: FORM, body: LoginRequest, response: loginResponses } }, (request, reply) => login(request.body, request, reply));

  app.post(
    '/lti/launch',
    { config: limit, schema: { ...hide, consumes: FORM, body: LaunchForm, response: { 200: Html, 303: Type.Null(), 400: Html, 401: Html, 404: Html, 410: Html, 422: Html } } },
    async (request, reply) => {
      const { id_token: idToken, state, browser_binding: stored } = request.body;
      const cookie = state ? request.cookies[stateCookieName(state)] : undefined;
      // A value read from the platform's storage counts only when the tool's own launch page posted it.
      const binding = cookie ?? (stored && postedFromThisOrigin(request.headers, ctx.config.publicBaseUrl) ? stored : undefined);
      if (!binding && idToken && state && stored === undefined) {
        const storage = await storageToRead(ctx, state);
        if (storage) return reply.code(200).headers(headers).send(launchStoragePage({ t: requestTranslator(ctx, request), ...storage, idToken, state }));
      }
      const launch = await verifyLaunch(ctx, { idToken, state, binding });
      // The state's cookie has served its purpose.
      if (state) reply.clearCookie(stateCookieName(state), bindingCookie(secure, 0));
      reply.headers(headers);
      const institutionName = (await getInstitution(ctx.pool, launch.platform.institutionId))?.name ?? '';
      const acceptLanguage = request.headers['accept-language'];
      const t = ltiTranslator(ctx, { launchLocale: launchLocale(launch.claims), acceptLanguage });

      if (launch.messageType === 'LtiDeepLinkingRequest') {
        const { requestId, binding } = await startDeepLinking(ctx, launch);
        reply.setCookie(pickerCookieName(requestId), binding, bindingCookie(secure, PICKER_TTL_MS / 1000));
        const { tests, total } = await pickerTests(ctx, launch.platform.institutionId, '');
        return reply.code(200).send(pickerPage({ institutionName, requestId, tests, total, query: '' }));
      }

      const outcome = await resourceLinkLaunch(ctx, launch);
      if (outcome.kind === 'no_test') {
        return reply.code(422).send(noTestChosenPage({ t, institutionName, staff: outcome.audience === 'staff', linkTitle: outcome.linkTitle }));
      }
      if (outcome.kind === 'observer') return reply.code(200).send(observerPage({ t, institutionName, testTitle: outcome.testTitle, contextTitle: outcome.contextTitle }));
      if (outcome.kind === 'instructor') {
        const learners = await listLinkLearners(ctx.pool, outcome.platformId, outcome.resourceLinkId);
        return reply.code(200).send(instructorPage({ institutionName, test: outcome.test, linkTitle: outcome.linkTitle, contextTitle: outcome.contextTitle, learners }));
      }
      // In a frame the student pages cannot run (they refuse framing, and a browser blocking third-party cookies
      // would drop the session): the page offers the start link in a new window, where it signs in at the top level.
      // The learner's own choice on the assignment's Language menu goes first, as on its pages.
      const learnerT = ltiTranslator(ctx, { launchLocale: launchLocale(launch.claims), acceptLanguage, candidateLocale: outcome.candidateLocale, assignmentLocale: outcome.assignmentLocale });
      if (isFramed(request.headers['sec-fetch-dest'], launch.claims)) {
        return reply.code(200).send(newWindowPage({ t: learnerT, institutionName, testTitle: outcome.testTitle, href: `/s/${outcome.token}` }));
      }
      const opened = await openStartLink(ctx, outcome.token);
      if (opened.kind === 'invalid') return reply.code(404).send(invalidLinkPage(learnerT));
      if (opened.kind === 'assignment_expired') return reply.code(410).send(assignmentExpiredPage({ ...opened, t: learnerT }));
      if (opened.kind === 'withdrawn') return reply.code(410).send(withdrawnPage({ ...opened, t: learnerT }));
      if (opened.kind === 'link_expired') {
        return reply.code(410).send(linkExpiredPage({ institutionName: opened.institutionName, submitted: isSubmittedStatus(opened.status), returnUrl: opened.returnUrl, testMode: opened.testMode, t: learnerT }));
      }
      // The student app's own session cookie, exactly as the start link sets it (student-routes.ts).
      reply.setCookie(SESSION_COOKIE, opened.sessionId, { path: '/a/', httpOnly: true, sameSite: 'lax', secure });
      return reply.code(303).header('location', `/a/${opened.assignmentId}`).send(null);
    },
  );

  app.get(
    '/lti/deep-link',
    {
      schema: {
        ...hide,
        querystring: Type.Object({ picker_token: Type.String({ minLength: 1, maxLength: 128 }), q: Type.Optional(Type.String({ maxLength: 200 })) }, { additionalProperties: false }),
        response: { 200: Html, 400: Html, 401: Html },
      },
    },
    async (request, reply) => {
      const token = request.query.picker_token;
      const picker = await findPickerRequest(ctx, token, request.cookies[pickerCookieName(token)]);
      if (!picker) throw new LaunchRefused('deep linking: unknown, used or expired picker request, or another browser\'s');
      const institutionName = (await getInstitution(ctx.pool, picker.platform.institutionId))?.name ?? '';
      const query = request.query.q ?? '';
      const { tests, total } = await pickerTests(ctx, picker.platform.institutionId, query);
      return reply.code(200).headers(headers).send(pickerPage({ institutionName, requestId: request.query.picker_token, tests, total, query }));
    },
  );

  app.post(
    '/lti/deep-link',
    { schema: { ...hide, consumes: FORM, body: DeepLinkChoice, response: { 200: Html, 400: Html, 401: Html, 403: Html } } },
    async (request, reply) => {
      if (sentFromAnotherSite(request.headers)) throw new LaunchRefused(`deep linking: a choice posted from another site (${request.headers['sec-fetch-site']})`, 403);
      const token = request.body.picker_token;
      const picker = await findPickerRequest(ctx, token, request.cookies[pickerCookieName(token)]);
      if (!picker) throw new LaunchRefused('deep linking: unknown, used or expired picker request, or another browser\'s');
      const answer = await deepLinkingResponse(ctx, picker, request.body.testId);
      if (!answer) throw new LaunchRefused('deep linking: the chosen test is not published to the institution');
      const institutionName = (await getInstitution(ctx.pool, picker.platform.institutionId))?.name ?? '';
      const formAction = new URL(picker.returnUrl).origin;
      reply.clearCookie(pickerCookieName(token), bindingCookie(secure, 0));
      return reply
        .code(200)
        .headers(ltiPageHeaders({ allowInsecure: ctx.config.allowInsecureUrls, formAction }))
        .send(deepLinkReturnPage({ institutionName, returnUrl: picker.returnUrl, jwt: answer.jwt, testTitle: answer.test.title }));
    },
  );

  app.get(
    '/lti/register',
    {
      config: limit,
      schema: {
        ...hide,
        querystring: Type.Object(
          {
            invite: Type.String({ minLength: 1, maxLength: 128 }),
            openid_configuration: Type.String({ minLength: 1, maxLength: 2048 }),
            registration_token: Type.Optional(Type.String({ maxLength: 8192 })),
          },
          { additionalProperties: true },
        ),
        response: { 200: Html, 400: Html },
      },
    },
    async (request, reply) => {
      reply.headers(headers);
      try {
        const platform = await registerDynamically(ctx, {
          invite: request.query.invite,
          openidConfiguration: request.query.openid_configuration,
          registrationToken: request.query.registration_token,
        });
        request.log.info({ ltiPlatformId: platform.id, institutionId: platform.institutionId }, 'LTI platform registered (dynamic registration)');
        const institutionName = (await getInstitution(ctx.pool, platform.institutionId))?.name ?? '';
        return reply.code(200).send(registrationPage({ ok: true, institutionName, issuer: platform.issuer }));
      } catch (err) {
        if (!(err instanceof RegistrationFailed)) throw err;
        request.log.warn({ reason: err.message }, 'LTI dynamic registration refused');
        return reply.code(400).send(registrationPage({ ok: false, said: err.said }));
      }
    },
  );

  app.get('/lti/return', { schema: { ...hide, response: { 200: Html } } }, async (request, reply) =>
    reply.code(200).headers(headers).send(returnPage(requestTranslator(ctx, request))),
  );
};

/**
 * Whether the launch arrived in a frame: the browser's Sec-Fetch-Dest when it
 * sends one (every current browser does), else the platform's
 * launch_presentation.document_target.
 */
export function isFramed(dest: string | string[] | undefined, claims: Record<string, unknown>): boolean {
  if (typeof dest === 'string' && dest !== '') return dest === 'iframe' || dest === 'frame';
  const presentation = claims[CLAIM.launchPresentation];
  return typeof presentation === 'object' && presentation !== null && (presentation as { document_target?: unknown }).document_target === 'iframe';
}
