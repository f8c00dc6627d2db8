import type { FastifyError, FastifyInstance } from 'fastify';
import { AppError, errorBody } from '../../platform/errors.js';
import { html } from '../../platform/web/html.js';
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
    if (status >= 500) {
      request.log.error({ err }, 'portal request failed');
      return sendPage(request, reply, {
        status: 500,
        title: 'Something went wrong',
        main: html`<h1>Something went wrong</h1>
<p>Please try again in a moment. If it keeps happening, quote reference <strong>${request.id}</strong> when you ask for help.</p>`,
      });
    }
    request.log.info({ code: err instanceof AppError ? err.code : (err as FastifyError).code, status }, 'portal request refused');
    if (err instanceof AppError && err.headers) reply.headers(err.headers);
    if (err instanceof CsrfRefused) {
      return sendPage(request, reply, {
        status: 403,
        title: 'This form has expired',
        main: html`<h1>This form has expired</h1>
<p>The page you sent it from is out of date, or it came from another site. Go back, reload the page and try again.</p>
<p><a href="/portal">Go to the portal</a></p>`,
      });
    }
    if (status === 403) {
      return sendPage(request, reply, {
        status: 403,
        title: 'You do not have access to this page',
        main: html`<h1>You do not have access to this page</h1>
<p>Your role does not allow this. Ask an administrator of your institution if you need access.</p>
<p><a href="/portal">Go to the overview</a></p>`,
      });
    }
    if (status === 404) {
      return sendPage(request, reply, {
        status: 404,
        title: 'Page not found',
        main: html`<h1>Page not found</h1><p>There is nothing at this address, or you cannot see it.</p><p><a href="/portal">Go to the overview</a></p>`,
      });
    }
    if (status === 429) {
      return sendPage(request, reply, {
        status: 429,
        title: 'Too many attempts',
        main: html`<h1>Too many attempts</h1><p>${err.message}</p>`,
      });
    }
    return sendPage(request, reply, {
      status: 400,
      title: 'This request could not be processed',
      main: html`<h1>This request could not be processed</h1><p>${err instanceof AppError ? err.message : 'Go back, check the form and try again.'}</p>`,
    });
  });
}
