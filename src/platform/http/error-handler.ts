import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { AppError, errorBody } from '../errors.js';
import { isConnectionError } from '../db.js';
import { headline, validationDetails } from './validation.js';

/** The default JSON body limit (docs/api-rules.md "Errors": 64 KB); a route may set its own (the autosave takes 1 MB). */
export const BODY_LIMIT = 64 * 1024;

/** nginx's "client closed request": what the access log says of a request its client abandoned. */
const CLIENT_CLOSED = 499;

/**
 * A request its client abandoned (connection closed while the body was
 * still arriving): Node reports `aborted` with ECONNRESET, which would
 * otherwise look like a lost database connection (503, error log).
 */
export function isClientAbort(err: unknown, request: FastifyRequest): boolean {
  const e = err as { code?: string; message?: string };
  if (request.raw.aborted) return true;
  return request.raw.destroyed && (e.code === 'ECONNRESET' || e.code === 'ERR_STREAM_PREMATURE_CLOSE' || e.message === 'aborted');
}

/** The methods a route can have, in the order an Allow header lists them. */
const METHODS = ['DELETE', 'GET', 'HEAD', 'OPTIONS', 'PATCH', 'POST', 'PUT'] as const;

/** Maps every failure to the error envelope. 5xx bodies never carry the cause; the log does. */
export function installErrorHandling(app: FastifyInstance): void {
  app.setErrorHandler((err: FastifyError | AppError | Error, request: FastifyRequest, reply: FastifyReply) => {
    if (isClientAbort(err, request)) {
      // Nobody is left to answer; not a fault of ours (nor the database's): a debug line, no error.
      request.log.debug({ code: (err as FastifyError).code }, 'client aborted the request');
      return reply.status(CLIENT_CLOSED).send();
    }
    const appError = toAppError(err, request.routeOptions.bodyLimit);
    if (appError.status >= 500) {
      request.log.error({ err }, 'request failed');
    } else {
      request.log.info({ code: appError.code, status: appError.status }, 'request refused');
    }
    if (appError.headers) reply.headers(appError.headers);
    if (appError.status === 401) reply.header('WWW-Authenticate', 'Bearer');
    return reply.status(appError.status).send(errorBody(appError, request.id));
  });

  // A path that exists with other methods is 405 with Allow (RFC 9110 15.5.6), not 404.
  app.setNotFoundHandler((request, reply) => {
    const path = request.url.split('?')[0]!;
    const allowed = METHODS.filter((method) => method !== request.method && app.findRoute({ method, url: path }) !== null);
    if (allowed.length > 0) {
      const allow = allowed.join(', ');
      const e = new AppError('method_not_allowed', `${request.method} is not supported on ${path}; use ${allow}.`);
      request.log.info({ code: e.code, status: e.status }, 'request refused');
      return reply.status(405).header('Allow', allow).send(errorBody(e, request.id));
    }
    const e = new AppError('not_found', `No route ${request.method} ${path}.`);
    return reply.status(404).send(errorBody(e, request.id));
  });
}

/** "64 KB", "1 MB": the body limit of the route, in the words of its 413. */
export function formatBytes(bytes: number): string {
  if (bytes % (1024 * 1024) === 0) return `${bytes / (1024 * 1024)} MB`;
  if (bytes % 1024 === 0) return `${bytes / 1024} KB`;
  return `${bytes} bytes`;
}

function toAppError(err: FastifyError | AppError | Error, bodyLimit: number | undefined): AppError {
  const tooLarge = () => new AppError('payload_too_large', `The request body is larger than ${formatBytes(bodyLimit ?? BODY_LIMIT)}.`);
  if (err instanceof AppError) return err;
  const fe = err as FastifyError & { validationContext?: string };
  if (fe.validation) {
    const details = validationDetails(fe.validation as never, fe.validationContext);
    return new AppError('invalid_request', headline(details), details);
  }
  switch (fe.code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return tooLarge();
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return fe.code === 'FST_ERR_CTP_INVALID_MEDIA_TYPE'
        ? new AppError('unsupported_media_type', 'Send the body as application/json.')
        : new AppError('invalid_request', 'The Content-Length header does not match the body.');
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return new AppError('invalid_request', 'The JSON body is empty.', [{ field: 'body', message: 'is empty' }]);
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
      return new AppError('invalid_request', 'The body is not valid JSON.', [{ field: 'body', message: 'is not valid JSON' }]);
  }
  if (err instanceof SyntaxError || (fe.statusCode === 400 && /JSON|proto/i.test(fe.message))) {
    return new AppError('invalid_request', 'The body is not valid JSON.', [{ field: 'body', message: 'is not valid JSON' }]);
  }
  // A connection that could not be had in time, or a statement cancelled by statement_timeout (57014): the
  // database is saturated, not the request wrong. Either is retried by a client, so 503, not 500.
  if (isConnectionError(err) || (err as { code?: string }).code === '57014') {
    return new AppError('unavailable', 'The service is temporarily unavailable. Retry shortly.', undefined, { 'Retry-After': '5' });
  }
  if (fe.statusCode === 413) return tooLarge();
  if (fe.statusCode === 415) return new AppError('unsupported_media_type', 'Send the body as application/json.');
  if (fe.statusCode && fe.statusCode >= 400 && fe.statusCode < 500) {
    return new AppError('invalid_request', 'The request is not valid.');
  }
  return new AppError('internal_error', 'Something went wrong on our side. Quote the request id if you contact support.');
}
