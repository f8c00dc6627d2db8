import http from 'node:http';
import type { Socket } from 'node:net';
import type { FastifyBaseLogger } from 'fastify';
import { AppError, errorBody } from '../errors.js';
import { newId } from '../ids.js';

/**
 * Requests Node's HTTP parser refuses before Fastify sees them (a method
 * that is not a token, a control character in a header, headers over the
 * size limit, a request that took too long to arrive) get the same error
 * envelope and X-Request-Id as every other error, written straight to the
 * socket since there is no request object to reply through. The connection
 * is closed after: the parser cannot know where the next request starts.
 */
export function createClientErrorHandler(log: () => FastifyBaseLogger | undefined) {
  return (err: NodeJS.ErrnoException, socket: Socket): void => {
    // A reset connection has nobody to answer (https://nodejs.org/api/http.html#event-clienterror).
    if (err.code === 'ECONNRESET' || socket.destroyed) return;
    const e =
      err.code === 'HPE_HEADER_OVERFLOW'
        ? new AppError('headers_too_large', 'The request headers are larger than the server accepts (16 KB).')
        : err.code === 'ERR_HTTP_REQUEST_TIMEOUT'
          ? new AppError('request_timeout', 'The request took too long to arrive. Send it again.')
          : new AppError('invalid_request', 'The request is not valid HTTP (a malformed method, header or request line).');
    const requestId = newId('req');
    log()?.info({ requestId, code: e.code, parserError: err.code }, 'request refused by the HTTP parser');
    answerOnSocket(socket, e, requestId);
  };
}

/**
 * The error envelope written straight to the socket, which is then closed
 * (once the answer is flushed): also used when a request's body is too slow
 * (request-time.ts), where the parser cannot know where the next request starts either.
 */
export function answerOnSocket(socket: Socket, e: AppError, requestId: string): void {
  if (!socket.writable) return void socket.destroy();
  const body = JSON.stringify(errorBody(e, requestId));
  socket.end(
    `HTTP/1.1 ${e.status} ${http.STATUS_CODES[e.status]}\r\n` +
      `Content-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\n` +
      `X-Request-Id: ${requestId}\r\nX-Content-Type-Options: nosniff\r\nCache-Control: no-store\r\nConnection: close\r\n\r\n${body}`,
    () => socket.destroy(),
  );
}
