import type { FastifyError, FastifyInstance } from 'fastify';
import { AppError, errorBody } from '../../platform/errors.js';
import { html } from '../../platform/web/html.js';
import { portalTranslator, richText } from './ui/portal-text.js';
import { sendPage } from './sign-in/page-shell.js';
import { SignInRequired } from '../staff/principal.js';

/** A state-changing request without the right form token, or sent from another site. */
export class CsrfRefused extends AppError {
  constructor() {
    super('forbidden', 'The form token is missing or does not match your session. Reload the page and try again.');
  }
}

/**
 * Errors in the portal scope become pages in plain words (the log has the
 * cause, under the request id); routes marked `config.json` get the error
 * envelope. Signed out → 303 to the sign-in page with `next`.
 */
export function installPortalErrors(app: FastifyInstance): void {
  app.setErrorHandler((err: FastifyError | AppError | SignInRequired, request, reply) => {
    const json = request.routeOptions.config?.json === true;
    if (err instanceof SignInRequired) {
      if (json) return reply.code(401).send(errorBody(new AppError('unauthenticated', 'Sign in to the portal first.'), request.id));
      return reply.code(303).header('location', `/portal/sign-in?next=${encodeURIComponent(err.next)}`).header('cache-control', 'no-store').send(null);
    }
    if (json) throw err; // the shared handler: envelope, logging
    const status = err instanceof AppError ? err.status : (err as FastifyError).statusCode ?? 500;
    const t = portalTranslator();
    if (err instanceof AppError && err.code === 'unavailable') {
      // A full worker pool (or work past its time): the page says when to try again, with the Retry-After it carries.
      request.log.warn({ code: err.code, status }, 'portal request refused: busy');
      const seconds = Number(err.headers?.['Retry-After'] ?? 5);
      reply.header('Retry-After', String(seconds));
      return sendPage(request, reply, {
        status: 503,
        title: t.t('portal.error.busy.title'),
        main: html`<h1>${t.t('portal.error.busy.title')}</h1>
<p>${t.t('portal.error.busy.text', { seconds })}</p>
${request.method === 'GET' ? html`<p><a href="${request.url}">${t.t('portal.error.busy.retry')}</a></p>` : ''}`,
        t,
      });
    }
    if (status >= 500) {
      request.log.error({ err }, 'portal request failed');
      return sendPage(request, reply, {
        status: 500,
        title: t.t('portal.error.failed.title'),
        main: html`<h1>${t.t('portal.error.failed.title')}</h1>
<p>${richText(t, 'portal.error.failed.text', { reference: html`<strong>${request.id}</strong>` })}</p>`,
        t,
      });
    }
    request.log.info({ code: err instanceof AppError ? err.code : (err as FastifyError).code, status }, 'portal request refused');
    if (err instanceof AppError && err.headers) reply.headers(err.headers);
    if (err instanceof CsrfRefused) {
      return sendPage(request, reply, {
        status: 403,
        title: t.t('portal.error.csrf.title'),
        main: html`<h1>${t.t('portal.error.csrf.title')}</h1>
<p>${t.t('portal.error.csrf.text')}</p>
<p><a href="/portal">${t.t('portal.error.goToPortal')}</a></p>`,
        t,
      });
    }
    if (status === 403) {
      return sendPage(request, reply, {
        status: 403,
        title: t.t('portal.error.forbidden.title'),
        main: html`<h1>${t.t('portal.error.forbidden.title')}</h1>
<p>${t.t('portal.error.forbidden.text')}</p>
<p><a href="/portal">${t.t('portal.error.goToOverview')}</a></p>`,
        t,
      });
    }
    if (status === 404) {
      return sendPage(request, reply, {
        status: 404,
        title: t.t('portal.error.notFound.title'),
        main: html`<h1>${t.t('portal.error.notFound.title')}</h1><p>${t.t('portal.error.notFound.text')}</p><p><a href="/portal">${t.t('portal.error.goToOverview')}</a></p>`,
        t,
      });
    }
    if (status === 429) {
      return sendPage(request, reply, {
        status: 429,
        title: t.t('portal.error.tooMany.title'),
        main: html`<h1>${t.t('portal.error.tooMany.title')}</h1><p>${err.message}</p>`,
        t,
      });
    }
    return sendPage(request, reply, {
      status: 400,
      title: t.t('portal.error.badRequest.title'),
      main: html`<h1>${t.t('portal.error.badRequest.title')}</h1><p>${err instanceof AppError ? err.message : t.t('portal.error.badRequest.text')}</p>`,
      t,
    });
  });
}
