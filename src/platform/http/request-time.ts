import { Socket } from 'node:net';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { AppError } from '../errors.js';
import { answerOnSocket } from './client-errors.js';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** An upload route: its body may take longer to arrive the larger it is declared (see REQUEST_TIME). */
    uploadTime?: boolean;
  }
}

/**
 * How long a request's body may take to arrive (docs/file-uploads.md "Time to
 * upload"). Every request gets `baseMs` (30 s) after its headers (which have
 * their own 10 s); an upload route gets `baseMs` plus its declared
 * Content-Length at the floor rate (50 KB/s): a 20 MB file answer 30 s +
 * 410 s, so a slow connection can finish, while a body that trickles in
 * below the floor is still cut (slow loris). A body without a Content-Length
 * (chunked) gets the base time only. Cut: the 408 envelope, then the
 * connection is closed.
 */
export interface RequestTime {
  baseMs: number;
  uploadFloorBytesPerSecond: number;
}

export const REQUEST_TIME: RequestTime = { baseMs: 30_000, uploadFloorBytesPerSecond: 50 * 1024 };

/**
 * Node's own whole-request timeout, kept as a backstop above every route's
 * time (the 50 MB import: 30 s + 1,024 s): it also covers a body that
 * trickles after a request refused before any hook ran.
 */
export const REQUEST_TIME_CEILING_MS = 30 * 60_000;

/** The time a body of `bytes` may take on an upload route. */
export function uploadTimeMs(bytes: number, t: RequestTime = REQUEST_TIME): number {
  return t.baseMs + Math.ceil((bytes / t.uploadFloorBytesPerSecond) * 1000);
}

/**
 * Called from the onRequest hook: arms one timer for a request with a body
 * still to come (none for a GET or an empty body), cleared when the body has
 * arrived, been drained, or the connection closed.
 */
export function armRequestTime(request: FastifyRequest, reply: FastifyReply, t: RequestTime): void {
  const length = request.headers['content-length'];
  if (length === undefined ? request.headers['transfer-encoding'] === undefined : length === '0') return;
  const raw = request.raw;
  if (raw.complete) return;
  // A request made in-process (app.inject) has no connection to cut: its body is all there, or never read.
  if (!(raw.socket instanceof Socket)) return;
  const declared = length !== undefined && /^\d{1,15}$/.test(length) ? Number(length) : 0;
  // A body that the floor rate sends in half the base time needs no more than the base time, so the route's
  // options (a new object per read in Fastify 5) are read only for larger ones: the autosave never pays for it.
  const large = declared > (t.uploadFloorBytesPerSecond * t.baseMs) / 2000;
  const ms = large && request.routeOptions.config?.uploadTime ? uploadTimeMs(declared, t) : t.baseMs;
  const timer = setTimeout(() => {
    if (raw.complete) return;
    const socket = raw.socket;
    request.log.info({ code: 'request_timeout', allowedMs: ms, declaredBytes: declared }, 'request body too slow to arrive');
    if (reply.raw.headersSent) return void socket.destroy();
    answerOnSocket(socket, new AppError('request_timeout', 'The request took too long to arrive. Send it again.'), request.id);
  }, ms);
  timer.unref();
  raw.once('end', () => clearTimeout(timer));
  raw.once('close', () => clearTimeout(timer));
}
