import type { FastifyContextConfig, FastifyInstance, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import type { AppContext } from '../../platform/context.js';
import { sentFromAnotherSite } from '../../platform/http/fetch-site.js';
import type { StudentPostLimit } from '../../platform/http/rate-limit-requests.js';
import { AppError } from '../../platform/errors.js';
import { csrfMatches, findSession, recentSession, SESSION_COOKIE, type StudentSession } from '../assignments/student-sessions.js';

declare module 'fastify' {
  interface FastifyRequest {
    studentSession: StudentSession | null;
  }
  interface FastifyContextConfig {
    /** The route answers with HTML pages, also for errors. */
    page?: boolean;
    /** The handler's own statement re-checks the session row, so the session may come from this process's recent ones (sessions.ts). */
    sessionRecheckedByStatement?: boolean;
  }
}

/**
 * The session of the request's cookie, and on a POST the check of its CSRF
 * token (form field `csrf` or header `X-CSRF-Token`). No session: the page
 * says it is not available (404); the autosave answers 401 so the page can
 * tell the student to reopen their link. A missing or wrong token, or a POST
 * the browser marks `Sec-Fetch-Site: cross-site` or `same-site`: 403.
 */
export async function authenticateStudent(ctx: AppContext, request: FastifyRequest): Promise<StudentSession> {
  const config = request.routeOptions.config;
  const now = ctx.clock.now();
  return admit(request, config, recentFor(request, config, now) ?? (await findSession(ctx.pool, request.cookies?.[SESSION_COOKIE], now)));
}

/** The session from this process's recent ones, for a route whose statement re-checks it; undefined means ask the database. */
function recentFor(request: FastifyRequest, config: FastifyContextConfig, now: Date): StudentSession | undefined {
  return config.sessionRecheckedByStatement ? recentSession(request.cookies?.[SESSION_COOKIE], now) : undefined;
}

/** The session found for the request (or null) admitted or refused, as authenticateStudent says. */
function admit(request: FastifyRequest, config: FastifyContextConfig, session: StudentSession | null): StudentSession {
  const found = admitBeforeBody(request, config, session);
  if (request.method === 'POST') checkToken(request, found);
  return found;
}

/**
 * What can be checked before the body: the session, and that the browser does
 * not say the request came from another site (the portal's rule,
 * portal-session.ts: same-origin, or no header from older browsers, goes on).
 */
function admitBeforeBody(request: FastifyRequest, config: FastifyContextConfig, session: StudentSession | null): StudentSession {
  if (!session) {
    if (config.page) throw new AppError('not_found', 'No such page.');
    throw new AppError('unauthenticated', 'Your session has ended. Open the test link again.');
  }
  if (request.method === 'POST' && sentFromAnotherSite(request.headers)) {
    throw new AppError('forbidden', 'This request came from another site and was refused. Reload the test page and try again.');
  }
  return session;
}

function checkToken(request: FastifyRequest, session: StudentSession): void {
  const body = request.body as { csrf?: unknown } | undefined | null;
  const token = body !== null && typeof body === 'object' && typeof body.csrf === 'string' ? body.csrf : request.headers['x-csrf-token'];
  if (!csrfMatches(session, typeof token === 'string' ? token : undefined)) {
    throw new AppError('forbidden', 'The form token is missing or does not match this session. Reload the page and try again.');
  }
}

/** Form posts whose session is found and whose token, in the body, is still to be compared. */
const awaitingToken = new WeakMap<FastifyRequest, StudentSession>();

/** A form post (Begin, Submit) carries its token in the body; every other POST (saves, uploads) in X-CSRF-Token. */
const isForm = (request: FastifyRequest) => /^application\/x-www-form-urlencoded\s*(;|$)/i.test(request.headers['content-type'] ?? '');

/**
 * Resolves the student session before every /a/… route (see authenticateStudent),
 * as `request.studentSession`, in the scope that registers it. Reads the
 * session cookie, so @fastify/cookie must be registered first.
 */
export const studentSession = fp(installStudentSession, { name: 'student-session', dependencies: ['@fastify/cookie'] });

async function installStudentSession(app: FastifyInstance, { ctx, postLimit }: { ctx: AppContext; postLimit?: StudentPostLimit }): Promise<void> {
  app.decorateRequest('studentSession', null);
  // Before the content-type parser: no body (an upload, a segment, a save) is read for a request over the
  // student POST limit, without a session or, outside a form, without its token (review C1). One hook for
  // all three, callback style: a save whose session is among this process's recent ones passes with no promise.
  app.addHook('preParsing', (request, _reply, payload, done) => {
    const refused = postLimit?.(request);
    if (refused) return done(refused);
    const config = request.routeOptions.config;
    const form = request.method === 'POST' && isForm(request);
    const settle = (session: StudentSession | null) => {
      const admitted = admitBeforeBody(request, config, session);
      // A form's session is the request's only once its token matched (page-errors.ts reads a missing one as "not checked yet").
      if (form) return void awaitingToken.set(request, admitted);
      if (request.method === 'POST') checkToken(request, admitted);
      request.studentSession = admitted;
    };
    const recent = recentFor(request, config, ctx.clock.now());
    if (recent) {
      try {
        settle(recent);
      } catch (err) {
        return done(err as Error);
      }
      return done(null, payload);
    }
    findSession(ctx.pool, request.cookies?.[SESSION_COOKIE], ctx.clock.now()).then(
      (found) => {
        try {
          settle(found);
        } catch (err) {
          return done(err as Error);
        }
        done(null, payload);
      },
      (err: Error) => done(err),
    );
  });
  // A form's token is in its body (64 KB at most, the default limit): compared once it is parsed.
  app.addHook('preHandler', (request, _reply, done) => {
    const session = awaitingToken.get(request);
    if (!session) return done();
    try {
      checkToken(request, session);
    } catch (err) {
      return done(err as Error);
    }
    request.studentSession = session;
    done();
  });
}

export function sessionOf(request: FastifyRequest): StudentSession {
  if (!request.studentSession) throw new Error('sessionOf: route is not behind studentSession');
  return request.studentSession;
}
