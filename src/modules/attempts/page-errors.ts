import type { FastifyError, FastifyInstance } from 'fastify';
import { AppError } from '../../platform/errors.js';
import { PAGE_HEADERS } from './pages/html.js';
import { errorPage, formExpiredPage, messagePage, notAvailablePage } from './pages/message-pages.js';

/**
 * Errors on page routes become pages, in plain words and without any detail
 * of the cause (the log has it, under the request id). Errors on the JSON
 * routes of this scope go on to the shared handler and its envelope.
 */
export function installPageErrors(app: FastifyInstance): void {
  app.setErrorHandler((err: FastifyError | AppError, request, reply) => {
    if (!request.routeOptions.config?.page) throw err;
    reply.headers(PAGE_HEADERS);
    if (err instanceof AppError && err.status === 404) return reply.code(404).send(notAvailablePage());
    if (err instanceof AppError && err.status === 403) return reply.code(403).send(formExpiredPage());
    const status = err instanceof AppError ? err.status : err.statusCode;
    if (status !== undefined && status < 500) {
      request.log.info({ code: err.code, status }, 'page request refused');
      const page = messagePage({ title: 'This request could not be processed', paragraphs: ['Go back, reload the page and try again.'] });
      return reply.code(400).send(page);
    }
    request.log.error({ err }, 'page request failed');
    return reply.code(500).send(errorPage(request.id));
  });
}
