import { PassThrough } from 'node:stream';
import type { FastifyReply } from 'fastify';
import type { AppContext } from '../../platform/context.js';
import type { StatusStreamLimits } from '../../platform/config.js';
import { AppError } from '../../platform/errors.js';
import { recordStatusStreams } from '../../platform/telemetry/metrics.js';
import { standingSessions, type StudentSession } from '../assignments/student-sessions.js';
import { readAttemptStatuses, type AttemptStatus } from '../attempts/attempt-status.js';
import { onStatusChange } from '../lifecycle/status-changes.js';

/**
 * The open test page's push channel: `GET /a/{id}/events`, Server-Sent
 * Events, in place of a status poll every 10 s. A stream sends
 * `event: status` with the JSON `GET /a/{id}/status` returns, once when it
 * opens and again after every change to the assignment's status or the
 * attempt's deadline, wherever it was made (a refresh that finds neither
 * changed, say after someone else's notification, sends nothing): the writers NOTIFY in their own
 * transaction (lifecycle/status-changes.ts) and this process's one LISTEN
 * connection (server.ts) hands each notification here. The stream ends
 * after sending a status other than `started` (submitted, cancelled,
 * expired): the page reloads for the new state.
 *
 * Notifications that arrive in one event-loop turn are read back in one
 * statement (a shared deadline's auto-submits come in thousands). After the
 * LISTEN connection (re)connects, anything may have been missed while it was
 * away, so every open stream gets a fresh status. A comment line every
 * PING_MS keeps proxies and balancers from closing an idle stream; with it,
 * one statement checks the sessions of all open streams and ends those whose
 * session has ended (a new start link, expiry).
 *
 * A stream outlives every request time limit harmlessly: the body limit
 * (platform/http/request-time.ts) arms no timer for a GET, and Node's
 * whole-request timeout counts only until the request has arrived, not while
 * the response goes on.
 *
 * Each stream costs a socket and a few KB of this process's memory, so they
 * are counted and capped (ASSAY_STATUS_STREAMS_MAX per process,
 * ASSAY_STATUS_STREAMS_PER_SESSION per student session): past a cap the
 * request gets 503 with Retry-After and the page polls instead.
 */
export const PING_MS = 25_000;
/** What a refused stream is told: the page polls meanwhile and tries a stream again later. */
const RETRY_AFTER_SECONDS = 60;

interface Stream {
  out: PassThrough;
  assignmentId: string;
  session: StudentSession;
  /** What the last frame said (status and deadline): a refresh that says the same again is not sent. */
  said: string;
}

export interface StatusStreams {
  /** Taken before reading a stream's first status: `open` compares it to catch a notification that came in between. */
  mark(): number;
  /** Answers the request with a stream of `first` and every later change; throws the 503 past a cap. */
  open(reply: FastifyReply, session: StudentSession, assignmentId: string, first: AttemptStatus, mark: number): PassThrough;
  /** Ends every stream (shutdown): the pages reconnect, through the balancer, to another process. */
  close(): void;
}

function saying(s: AttemptStatus): string {
  return `${s.status} ${s.deadline ? s.deadline.toISOString() : ''}`;
}

function frame(s: AttemptStatus): string {
  const body = { status: s.status, deadline: s.deadline ? s.deadline.toISOString() : null, serverNow: s.serverNow.toISOString() };
  return `event: status\ndata: ${JSON.stringify(body)}\n\n`;
}

export function createStatusStreams(ctx: AppContext, limits: StatusStreamLimits): StatusStreams {
  const byAssignment = new Map<string, Set<Stream>>();
  const perSession = new Map<string, number>();
  /** Open streams (the gauge assay_status_streams_open counts those of every app in the process). */
  let total = 0;
  let closed = false;

  function remove(stream: Stream): void {
    const set = byAssignment.get(stream.assignmentId);
    if (!set?.delete(stream)) return;
    if (set.size === 0) byAssignment.delete(stream.assignmentId);
    const n = (perSession.get(stream.session.idHash) ?? 1) - 1;
    if (n === 0) perSession.delete(stream.session.idHash);
    else perSession.set(stream.session.idHash, n);
    total--;
    recordStatusStreams(-1);
    if (!stream.out.writableEnded) stream.out.end();
  }

  /** Sends a status to every stream of its assignment, ending them once the attempt is over. */
  function deliver(assignmentId: string, status: AttemptStatus): void {
    const set = byAssignment.get(assignmentId);
    if (!set) return;
    const text = frame(status);
    const said = saying(status);
    for (const stream of [...set]) {
      if (stream.said === said) continue;
      stream.said = said;
      stream.out.write(text);
      if (status.status !== 'started') remove(stream);
    }
  }

  // Ids notified in this turn (null: all of them, after a reconnect), read back together on the next.
  let pending: Set<string> | null = null;
  let everything = false;
  let notifications = 0;
  function refreshSoon(assignmentId: string | null): void {
    if (closed) return;
    if (assignmentId === null) everything = true;
    else if (byAssignment.has(assignmentId)) (pending ??= new Set()).add(assignmentId);
    else if (!everything) return;
    if (scheduled) return;
    scheduled = true;
    setImmediate(() => void refresh());
  }
  let scheduled = false;

  async function refresh(): Promise<void> {
    scheduled = false;
    const ids = everything ? [...byAssignment.keys()] : [...(pending ?? [])];
    pending = null;
    everything = false;
    if (ids.length === 0) return;
    try {
      const statuses = await readAttemptStatuses(ctx.pool, ids, ctx.clock.now());
      for (const [id, status] of statuses) deliver(id, status);
    } catch {
      // The database is away: the listener reconnects when it is back and refreshes every stream then.
    }
  }

  const unsubscribe = onStatusChange((assignmentId) => {
    notifications++;
    refreshSoon(assignmentId);
  });

  /** The comment line that keeps proxies from closing idle streams, and the end of streams whose session ended. */
  async function pingAll(): Promise<void> {
    const streams = [...byAssignment.values()].flatMap((set) => [...set]);
    if (streams.length === 0) return;
    for (const stream of streams) stream.out.write(': ping\n\n');
    let standing: Set<string>;
    try {
      standing = await standingSessions(ctx.pool, [...new Set(streams.map((s) => s.session.idHash))], ctx.clock.now());
    } catch {
      return; // the database is away: checked again at the next ping
    }
    for (const stream of streams) if (!standing.has(stream.session.idHash)) remove(stream);
  }
  const ping = setInterval(() => void pingAll(), limits.pingMs ?? PING_MS);
  ping.unref();

  return {
    mark: () => notifications,
    open(reply, session, assignmentId, first, mark) {
      if (closed || total >= limits.perProcess) {
        throw new AppError('unavailable', 'Too many open status streams on this server. Poll the status instead, and retry the stream later.', undefined, {
          'Retry-After': String(RETRY_AFTER_SECONDS),
        });
      }
      if ((perSession.get(session.idHash) ?? 0) >= limits.perSession) {
        throw new AppError('unavailable', 'Too many open status streams for this session. Poll the status instead, or close another tab.', undefined, {
          'Retry-After': String(RETRY_AFTER_SECONDS),
        });
      }
      const out = new PassThrough();
      reply.headers({
        'content-type': 'text/event-stream; charset=utf-8',
        'cache-control': 'no-store',
        // nginx and others buffer responses unless told not to; a buffered event arrives too late.
        'x-accel-buffering': 'no',
      });
      out.write(frame(first));
      if (first.status !== 'started') {
        out.end();
        return out;
      }
      const stream: Stream = { out, assignmentId, session, said: saying(first) };
      let set = byAssignment.get(assignmentId);
      if (!set) byAssignment.set(assignmentId, (set = new Set()));
      set.add(stream);
      perSession.set(session.idHash, (perSession.get(session.idHash) ?? 0) + 1);
      total++;
      recordStatusStreams(1);
      // The page went away (tab closed, navigation, network): forget the stream.
      reply.raw.once('close', () => remove(stream));
      // A change notified while `first` was being read may be newer than it: read again (rare, and batched).
      if (notifications !== mark) refreshSoon(assignmentId);
      return out;
    },
    close() {
      closed = true;
      clearInterval(ping);
      unsubscribe();
      for (const set of [...byAssignment.values()]) for (const stream of [...set]) remove(stream);
    },
  };
}
