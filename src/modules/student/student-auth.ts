import type { FastifyContextConfig, FastifyInstance, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import type { AppContext } from '../../platform/context.js';
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
  if (!session) {
    if (config.page) throw new AppError('not_found', 'No such page.');
    throw new AppError('unauthenticated', 'Your session has ended. Open the test link again.');
  }
  if (request.method === 'POST') {
    // The portal's rule (portal-session.ts): a browser that says the request came from another site
    // is refused even with the right token; same-origin, or no header (older browsers), goes on to the token check.
    const site = request.headers['sec-fetch-site'];
    if (site === 'cross-site' || site === 'same-site') {
      throw new AppError('forbidden', 'This request came from another site and was refused. Reload the test page and try again.');
    }
    const body = request.body as { csrf?: unknown } | undefined | null;
    const token = typeof body?.csrf === 'string' ? body.csrf : request.headers['x-csrf-token'];
    if (!csrfMatches(session, typeof token === 'string' ? token : undefined)) {
      throw new AppError('forbidden', 'The form token is missing or does not match this session. Reload the page and try again.');
    }
  }
  return session;
}

/**
 * Resolves the student session before every /a/… route (see authenticateStudent),
 * as `request.studentSession`, in the scope that registers it. Reads the
 * session cookie, so @fastify/cookie must be registered first.
 */
export const studentSession = fp(installStudentSession, { name: 'student-session', dependencies: ['@fastify/cookie'] });

async function installStudentSession(app: FastifyInstance, { ctx }: { ctx: AppContext }): Promise<void> {
  app.decorateRequest('studentSession', null);
  // Callback style: a session from this process's recent ones (the autosave's) is admitted with no promise.
  app.addHook('preHandler', (request, _reply, done) => {
    const config = request.routeOptions.config;
    const now = ctx.clock.now();
    const recent = recentFor(request, config, now);
    if (recent) {
      try {
        request.studentSession = admit(request, config, recent);
      } catch (err) {
        return done(err as Error);
      }
      return done();
    }
    findSession(ctx.pool, request.cookies?.[SESSION_COOKIE], now)
      .then((found) => admit(request, config, found))
      .then((session) => {
        request.studentSession = session;
        done();
      }, done);
  });
}

export function sessionOf(request: FastifyRequest): StudentSession {
  if (!request.studentSession) throw new Error('sessionOf: route is not behind studentSession');
  return request.studentSession;
}
