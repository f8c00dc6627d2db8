import Fastify, { LogController, type FastifyBaseLogger, type FastifyReply } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { newId } from '../ids.js';
import { createLogger, type Logger } from '../log/log.js';
import { lazyChildLogger } from '../log/lazy-child.js';
import { AppError, errorBody } from '../errors.js';
import { BODY_LIMIT, installErrorHandling } from './error-handler.js';
import { jsonBody } from './json-body.js';
import { redactUrl } from '../log/redact-url.js';
import { createClientErrorHandler } from './client-errors.js';
import { rejectUnstorableInput } from './storable-input.js';
import { validatorCompiler } from './validation.js';
import { armRequestTime, REQUEST_TIME, REQUEST_TIME_CEILING_MS, type RequestTime } from './request-time.js';

export { BODY_LIMIT };

export { redactUrl };

/**
 * The Fastify instance every process serves from: request ids on every
 * response and log line, JSON body limit, strict validation, the error
 * envelope, and log serialisers that carry no secret (no headers, no tokens).
 */
export function createHttp(opts: {
  logLevel: string;
  /** The process's logger; false for none (tests). */
  logger?: false | Logger;
  /** Where log lines go (default stdout); tests pass a capturing stream to check what is logged. */
  logStream?: { write(line: string): void };
  /** ASSAY_TRUST_PROXY: which reverse proxies' X-Forwarded-For gives request.ip (per-address limits, audit, logs). */
  trustProxy?: boolean | number | string[];
  /** How long a body may take to arrive (request-time.ts); tests scale it down. */
  requestTime?: RequestTime;
}) {
  const requestTime = opts.requestTime ?? REQUEST_TIME;
  let logger: FastifyBaseLogger | undefined;
  const app = Fastify({
    bodyLimit: BODY_LIMIT,
    // A number is the count of proxy hops to trust, a list the proxies' addresses (Fastify's types list fewer forms).
    trustProxy: (opts.trustProxy ?? false) as boolean,
    clientErrorHandler: createClientErrorHandler(() => logger),
    // A slow client cannot hold a connection for ever (each ends in the 408 envelope of client-errors.ts):
    // its headers within 10 s, checked every 2 s; its body within 30 s, or on an upload route a time that
    // grows with its declared size (request-time.ts, armed in onRequest below), Node's own whole-request
    // timeout kept as a backstop above every route's time; an idle kept-alive
    // connection closes after 72 s, longer than the 60 s idle timeout of common load balancers, so the
    // balancer, not Assay, closes first and never sends onto a closing connection.
    requestTimeout: REQUEST_TIME_CEILING_MS,
    keepAliveTimeout: 72_000,
    http: { headersTimeout: 10_000, connectionsCheckingInterval: 2_000 },
    genReqId: () => newId('req'),
    logController: new LogController({ requestIdLogLabel: 'requestId' }),
    // A request's logger is made when it first writes a line that is logged (log/lazy-child.ts).
    childLoggerFactory: (logger, bindings, childOptions) => lazyChildLogger(logger, bindings, childOptions),
    // Requests that still arrive while closing (pipelined or on a busy kept-alive connection) are
    // refused by the onRequest hook below, with the envelope and Retry-After that Fastify's own
    // 503 fast path would leave out.
    return503OnClosing: false,
    forceCloseConnections: 'idle',
    // Failures the router meets before any hook runs (bad percent-encoding, a path parameter over
    // maxParamLength) get the same envelope and request id as every other error.
    frameworkErrors: (err, request, reply) => {
      const e =
        err.code === 'FST_ERR_BAD_URL'
          ? new AppError('invalid_request', 'The URL is not valid: a path segment has broken percent-encoding.')
          : err.code === 'FST_ERR_MAX_PARAM_LENGTH'
            ? new AppError('invalid_request', 'The URL is not valid: a path segment is too long.')
            : new AppError('internal_error', 'Something went wrong on our side. Quote the request id if you contact support.');
      request.log.info({ code: e.code, frameworkError: err.code }, 'request refused');
      void (reply as FastifyReply)
        .status(e.status)
        .headers({ 'X-Request-Id': request.id, 'X-Content-Type-Options': 'nosniff', 'Cache-Control': 'no-store' })
        .send(errorBody(e, request.id));
    },
    // The process's one logger (platform/log.ts), or a new one on the given level and stream.
    ...(opts.logger === false ? { logger: false } : { loggerInstance: processLogger(opts) }),
  }).withTypeProvider<TypeBoxTypeProvider>();

  logger = app.log;
  app.setValidatorCompiler(validatorCompiler);
  // Loaded with the first plugin the caller awaits (or at ready), before any route of theirs.
  void app.register(jsonBody);
  let closing = false;
  app.addHook('preClose', async () => {
    closing = true;
  });
  // Callback style, as every hook on the hot path that never awaits: no promise per request.
  // Header names in lower case, as Fastify stores and sends them: no new name is made per request.
  app.addHook('onRequest', (request, reply, done) => {
    reply.header('x-request-id', request.id);
    // Every response: browsers must not guess a type (an error body sniffed as HTML, say).
    reply.header('x-content-type-options', 'nosniff');
    // API answers carry start links, secrets, keys and results: no cache, shared or private, may keep them.
    if (request.url.startsWith('/api/')) reply.header('cache-control', 'no-store');
    armRequestTime(request, reply, requestTime);
    if (!closing) return done();
    reply.header('connection', 'close');
    done(new AppError('unavailable', 'The service is restarting. Retry shortly.', undefined, { 'Retry-After': '1' }));
  });
  app.addHook('preValidation', rejectUnstorableInput);
  installErrorHandling(app);
  return app;
}

/**
 * Typed as Fastify's own logger interface, so the app is a plain
 * FastifyInstance (with the TypeBox provider) that plugins and install
 * functions take as it is, with no cast.
 */
function processLogger(opts: { logLevel: string; logger?: false | Logger; logStream?: { write(line: string): void } }): FastifyBaseLogger {
  return opts.logger || createLogger({ level: opts.logLevel, stream: opts.logStream });
}

export type HttpApp = ReturnType<typeof createHttp>;
