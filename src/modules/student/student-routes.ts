import { createRequire } from 'node:module';
import path from 'node:path';
import type { Readable } from 'node:stream';
import cookie from '@fastify/cookie';
import formbody from '@fastify/formbody';
import { Type } from '@sinclair/typebox';
import type { FastifyPluginAsyncTypebox, TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { createStudentPostLimit, signedLinkLimit } from '../../platform/http/rate-limit-requests.js';
import { errors } from '../../platform/http/schemas.js';
import type { AssignmentsContext } from '../assignments/context.js';
import { beginAttempt } from '../attempts/begin-attempt.js';
import { isSubmittedStatus } from '../lifecycle/state-machine.js';
import { candidateTranslator, loadStudentPage } from './load-student-page.js';
import { openStartLink } from './open-start-link.js';
import { browserTranslator, installPageErrors } from './page-errors.js';
import { assignmentExpiredPage, invalidLinkPage, linkExpiredPage, withdrawnPage } from './pages/message-pages.js';
import { PAGE_HEADERS } from '../../platform/web/html.js';
import type { AppContext } from '../../platform/context.js';
import { assetRoute, loadAsset, loadAssetBundle } from '../../platform/web/asset-route.js';
import { questionTypeScripts, questionTypeStyles } from '../catalog/question-types/registry.js';
import { renderStudentPage } from './pages/render-student-page.js';
import { saveAnswers } from '../attempts/save-answers.js';
import { SESSION_COOKIE } from '../assignments/student-sessions.js';
import { sessionOf, studentSession } from './student-auth.js';
import { AssignmentParams, AttemptStatusResponse, CsrfForm, CsrfHeader, Html, LanguageForm, SaveAnswersBody, SaveAnswersResponse } from './student-schemas.js';
import { chooseCandidateLocale } from './candidate-locale.js';
import { getAttemptStatus } from '../attempts/attempt-status.js';
import { submitOwnAttempt } from '../marking/submit-attempt.js';
import { proctoringStudentRoutes } from './proctoring-routes.js';
import { answerFileRoutes } from './answer-file-routes.js';
import { answerFileDirectRoutes } from './answer-file-direct-routes.js';
import { createStatusStreams } from './status-streams.js';

const FORM = ['application/x-www-form-urlencoded'];
/** The browser build of intl-messageformat: a single ES module beside the package's entry point (its exports name only the entry). */
const INTL_MESSAGEFORMAT_BROWSER = path.join(path.dirname(createRequire(import.meta.url).resolve('intl-messageformat')), 'intl-messageformat.iife.js');
const hide = { hide: true } as const;

/**
 * The student journey: the start link, the pages at /a/{assignmentId}, the
 * Begin and Submit forms, autosave, and the page's own script and styles.
 * Form parsing and cookies are registered in this scope only: the partner
 * and operator APIs stay JSON-only.
 */
export const studentRoutes: FastifyPluginAsyncTypebox<{ ctx: AssignmentsContext }> = async (app, { ctx }) => {
  await app.register(formbody);
  await app.register(cookie);
  installPageErrors(app, ctx);
  const secure = ctx.config.publicBaseUrl.startsWith('https:');
  const limits = ctx.config.requestLimits;

  const pageAssets = [
    ['student.js', 'text/javascript; charset=utf-8'],
    // The test page's parts that student.js wires together (classic scripts, loaded before it: html.ts `layout`).
    ['test-saving.js', 'text/javascript; charset=utf-8'],
    ['test-timer.js', 'text/javascript; charset=utf-8'],
    ['test-status.js', 'text/javascript; charset=utf-8'],
    ['question-fields.js', 'text/javascript; charset=utf-8'],
    ['i18n.js', 'text/javascript; charset=utf-8'],
    ['student.css', 'text/css; charset=utf-8'],
  ] as const;
  for (const [name, type] of pageAssets) {
    assetRoute(app, `/assets/${name}`, loadAsset(new URL(`./assets/${name}`, import.meta.url), type));
  }
  // The ICU MessageFormat library the page's scripts format their messages with (assets/i18n.js), as its package ships it for browsers.
  assetRoute(app, '/assets/vendor/intl-messageformat.js', loadAsset(INTL_MESSAGEFORMAT_BROWSER, 'text/javascript; charset=utf-8', { gzip: true }));
  // The registered question types' page scripts (each registers itself with window.AssayQuestionTypes), as one file.
  assetRoute(app, '/assets/question-types.js', loadAssetBundle(questionTypeScripts('student'), 'text/javascript; charset=utf-8'));
  assetRoute(app, '/assets/question-types.css', loadAssetBundle(questionTypeStyles('student'), 'text/css; charset=utf-8'));

  // The token travels in the path: a wildcard, since a parametric segment is capped at 100 characters.
  // No HEAD twin: link checkers send HEADs, and only a real GET may sign the student in.
  const linkLimit = signedLinkLimit(app, { perLinkPerMinute: limits.startLinkOpensPerMinute, perAddressPerMinute: limits.startLinksPerMinute });
  app.get('/s/*', { exposeHeadRoute: false, onRequest: linkLimit.onRequest, config: { page: true, ...linkLimit.config }, schema: { ...hide, response: { 303: Type.Null(), 404: Html, 410: Html } } }, async (request, reply) => {
    const opened = await openStartLink(ctx, (request.params as { '*': string })['*']);
    reply.headers(PAGE_HEADERS);
    // No assignment behind the link: the browser's language. Otherwise the candidate's, as on the assignment's pages.
    if (opened.kind === 'invalid') return reply.code(404).send(invalidLinkPage(browserTranslator(ctx, request)));
    if (opened.kind === 'signed_in') {
      reply.setCookie(SESSION_COOKIE, opened.sessionId, { path: '/a/', httpOnly: true, sameSite: 'lax', secure });
      return reply.code(303).header('location', `/a/${opened.assignmentId}`).send(null);
    }
    const t = candidateTranslator(ctx, opened, request.headers['accept-language']);
    if (opened.kind === 'assignment_expired') return reply.code(410).send(assignmentExpiredPage({ ...opened, t }));
    if (opened.kind === 'withdrawn') return reply.code(410).send(withdrawnPage({ ...opened, t }));
    const submitted = isSubmittedStatus(opened.status);
    return reply.code(410).send(linkExpiredPage({ institutionName: opened.institutionName, submitted, returnUrl: opened.returnUrl, testMode: opened.testMode, t }));
  });

  const testPageHeaders = studentPageHeaders(ctx);
  await app.register(async (scope) => {
    const student = scope.withTypeProvider<TypeBoxTypeProvider>();
    // The student POST limit is checked by the session's hook, before the session (student-auth.ts).
    await student.register(studentSession, { ctx, postLimit: createStudentPostLimit(limits.studentPostsPerMinute, SESSION_COOKIE) });

    student.get(
      '/a/:assignmentId',
      { config: { page: true }, schema: { ...hide, params: AssignmentParams, response: { 200: Html, 404: Html, 410: Html } } },
      async (request, reply) => {
        const page = renderStudentPage(await loadStudentPage(ctx, sessionOf(request), request.params.assignmentId, { acceptLanguage: request.headers['accept-language'] }));
        return reply.code(page.status as 200).headers(testPageHeaders).send(page.html);
      },
    );

    student.post(
      '/a/:assignmentId/begin',
      { config: { page: true }, schema: { ...hide, consumes: FORM, params: AssignmentParams, body: CsrfForm, response: { 303: Type.Null(), 403: Html, 404: Html } } },
      async (request, reply) => {
        await beginAttempt(ctx, sessionOf(request), request.params.assignmentId, { acceptLanguage: request.headers['accept-language'] });
        return reply.code(303).header('location', `/a/${request.params.assignmentId}`).send(null);
      },
    );

    // The intro page's Language menu: the candidate's choice, kept on the assignment for every later page, report and mail.
    student.post(
      '/a/:assignmentId/language',
      { config: { page: true }, schema: { ...hide, consumes: FORM, params: AssignmentParams, body: LanguageForm, response: { 303: Type.Null(), 403: Html, 404: Html } } },
      async (request, reply) => {
        await chooseCandidateLocale(ctx, sessionOf(request), request.params.assignmentId, request.body.locale);
        return reply.code(303).header('location', `/a/${request.params.assignmentId}`).send(null);
      },
    );

    student.post(
      '/a/:assignmentId/submit',
      { config: { page: true }, schema: { ...hide, consumes: FORM, params: AssignmentParams, body: CsrfForm, response: { 303: Type.Null(), 403: Html, 404: Html } } },
      async (request, reply) => {
        await submitOwnAttempt(ctx, sessionOf(request), request.params.assignmentId);
        return reply.code(303).header('location', `/a/${request.params.assignmentId}`).send(null);
      },
    );

    student.post(
      '/a/:assignmentId/answers',
      {
        bodyLimit: 1024 * 1024,
        config: { sessionRecheckedByStatement: true },
        schema: {
          ...hide,
          params: AssignmentParams,
          headers: CsrfHeader,
          body: SaveAnswersBody,
          response: { 200: SaveAnswersResponse, ...errors(400, 401, 403, 404, 409, 413, 415, 500, 503) },
        },
      },
      async (request, reply) => {
        reply.header('cache-control', 'no-store');
        return saveAnswers(ctx, sessionOf(request), request.params.assignmentId, request.body.answers);
      },
    );

    // File answers (file_upload questions), as raw bodies in their own scope.
    await student.register(answerFileRoutes, { ctx });
    // Their direct uploads (S3 storage): JSON only, so outside the raw-body scope.
    await student.register(answerFileDirectRoutes, { ctx });
    // The proctored page's uploads and heartbeat, behind the same session and CSRF checks.
    await student.register(proctoringStudentRoutes, { ctx });
    // The open test page's push channel (status-streams.ts): the same status on every change.
    const streams = createStatusStreams(ctx, ctx.config.statusStreams);
    // Before the server waits for open connections to end: a stream would otherwise hold app.close() for ever.
    scope.addHook('preClose', () => streams.close());
    student.get(
      '/a/:assignmentId/events',
      { schema: { ...hide, params: AssignmentParams, response: { 200: Type.Unsafe<Readable>({ type: 'string', description: 'text/event-stream' }), ...errors(401, 404, 500, 503) } } },
      async (request, reply) => {
        const session = sessionOf(request);
        const mark = streams.mark();
        const first = await getAttemptStatus(ctx, session, request.params.assignmentId);
        return reply.send(streams.open(reply, session, request.params.assignmentId, first, mark));
      },
    );
    // The page's fallback when it cannot hold a stream open: polled every 10 s.
    student.get(
      '/a/:assignmentId/status',
      { schema: { ...hide, params: AssignmentParams, response: { 200: AttemptStatusResponse, ...errors(401, 404, 500, 503) } } },
      async (request, reply) => {
        reply.header('cache-control', 'no-store');
        return getAttemptStatus(ctx, sessionOf(request), request.params.assignmentId);
      },
    );
  });
};

/**
 * The test page's headers. With S3 storage the proctored page PUTs its
 * recording straight to the bucket (proctoring/direct-uploads.ts), so
 * connect-src also names the bucket's origin: the configured endpoint, or
 * AWS's virtual-hosted address of the bucket.
 */
export function studentPageHeaders(ctx: AppContext): Record<string, string> {
  const storage = ctx.config.storage;
  if (storage.kind !== 's3') return PAGE_HEADERS;
  const origin = storage.endpoint ? new URL(storage.endpoint).origin : `https://${storage.bucket}.s3.${storage.region}.amazonaws.com`;
  return { ...PAGE_HEADERS, 'content-security-policy': PAGE_HEADERS['content-security-policy']!.replace("connect-src 'self'", `connect-src 'self' ${origin}`) };
}
