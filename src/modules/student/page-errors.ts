import type { FastifyError, FastifyInstance, FastifyRequest } from 'fastify';
import type { AppContext } from '../../platform/context.js';
import { AppError } from '../../platform/errors.js';
import { isClientAbort } from '../../platform/http/error-handler.js';
import { PAGE_HEADERS } from '../../platform/web/html.js';
import { badRequestPage, errorPage, formExpiredPage, notAvailablePage, tooManyPage } from './pages/message-pages.js';
import { translator, type Translator } from '../../platform/i18n/catalogue.js';
import { chooseLocale } from '../../platform/i18n/locales.js';
import { authenticateStudent } from './student-auth.js';

/**
 * Errors on page routes become pages, in plain words and without any detail
 * of the cause (the log has it, under the request id). Errors on the JSON
 * routes of this scope go on to the shared handler and its envelope.
 *
 * A POST refused for its body or media type (400, 415) before the session
 * and CSRF check ran is checked now: without the session's token it is a
 * 403 (or 401/404 without a session), as every POST lacking the token is,
 * whatever else is wrong with it. Nothing was changed either way.
 */
export function installPageErrors(app: FastifyInstance, ctx: AppContext): void {
  app.setErrorHandler(async (err: FastifyError | AppError, request, reply) => {
    if (isClientAbort(err, request)) throw err; // nobody to show a page to: the shared handler notes it
    const refusal = await csrfRefusal(ctx, request, err);
    const e = refusal ?? err;
    if (!request.routeOptions.config?.page) throw e;
    reply.headers(PAGE_HEADERS);
    const t = browserTranslator(ctx, request);
    if (e instanceof AppError && e.status === 404) return reply.code(404).send(notAvailablePage(t));
    if (e instanceof AppError && e.status === 403) return reply.code(403).send(formExpiredPage(t));
    if (e instanceof AppError && e.status === 429) return reply.headers(e.headers ?? {}).code(429).send(tooManyPage(t));
    const status = e instanceof AppError ? e.status : e.statusCode;
    if (status !== undefined && status < 500) {
      request.log.info({ code: e.code, status }, 'page request refused');
      return reply.code(400).send(badRequestPage(t));
    }
    request.log.error({ err: e }, 'page request failed');
    return reply.code(500).send(errorPage(request.id, t));
  });
}

/**
 * The language of a page shown before (or without) the assignment being known: the browser's
 * `Accept-Language`, else English. These pages never read the database, so a failing one still speaks
 * the candidate's language.
 */
export function browserTranslator(ctx: AppContext, request: FastifyRequest): Translator {
  return translator(chooseLocale({ acceptLanguage: request.headers['accept-language'] }, { pseudo: ctx.config.pseudoLocale }));
}

async function csrfRefusal(ctx: AppContext, request: FastifyRequest, err: FastifyError | AppError): Promise<AppError | null> {
  const status = err instanceof AppError ? err.status : err.statusCode;
  if (request.method !== 'POST' || request.studentSession || (status !== 400 && status !== 415)) return null;
  if (!request.url.startsWith('/a/')) return null;
  try {
    await authenticateStudent(ctx, request);
    return null;
  } catch (refusal) {
    return refusal instanceof AppError ? refusal : null;
  }
}
