import rateLimit from '@fastify/rate-limit';
import fp from 'fastify-plugin';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { sha256Hex } from '../crypto.js';
import { AppError } from '../errors.js';

/**
 * Limits on traffic no API key pays for (fixed one-minute windows, in this
 * process's memory; @fastify/rate-limit for the first two, a counter of
 * its own for the student POSTs):
 * - per client address, partner and operator requests that do not
 *   authenticate: no key, a malformed, unknown or revoked one, a wrong
 *   operator token. A valid key is never counted here (it has its own
 *   bucket, rate-limit.ts), so a partner's traffic is not slowed by someone
 *   else guessing from behind the same address;
 * - opening a page by a signed link in its path (start links `GET /s/…`,
 *   report links): per link, so a class of a thousand behind one school
 *   NAT address opens its thousand links, under a generous per-address
 *   ceiling that still stops one address from trying tokens at scale;
 * - per student session, the student pages' POSTs (per session rather than
 *   per address: a classroom behind one NAT address is many students), in
 *   two budgets of the same size: the student's own actions (Begin, saves,
 *   Submit) and the page's background traffic (routes marked
 *   `studentBackground`: heartbeats, recording uploads), so a page flooding
 *   heartbeats can never spend the allowance the student's Submit needs.
 * The client address is the socket's, or X-Forwarded-For's with
 * ASSAY_TRUST_PROXY; IPv6 addresses count per /64 (the library's default).
 */
declare module 'fastify' {
  interface FastifyContextConfig {
    /** A student POST the page sends by itself (heartbeat, upload): counted in its own budget, apart from the student's actions. */
    studentBackground?: boolean;
  }
}

export const WINDOW_MS = 60_000;
/** Addresses (or sessions) remembered per limit, least recently seen out first. */
const CACHE = 20_000;

const tooMany = (retryAfterSeconds: number) =>
  new AppError('rate_limited', 'Too many requests. Retry after the time in Retry-After.', undefined, { 'Retry-After': String(Math.max(1, retryAfterSeconds)) });

/**
 * Registers the library once, for the whole app (`app.createRateLimit` and the
 * `rateLimit` route config, answering 429 in the error envelope); the limits
 * themselves are set per route or per scope. Plugins that count with
 * `createRateLimit` name it in their dependencies.
 */
export const requestLimits = fp(
  async (app) => {
    await app.register(rateLimit, {
      global: false,
      enableDraftSpec: true,
      cache: CACHE,
      errorResponseBuilder: (_request, context) => tooMany(Math.ceil(context.ttl / 1000)),
    });
  },
  { name: 'request-limits' },
);

/**
 * The per-address allowance of requests that fail to authenticate.
 * `check` looks without counting, `charge` counts a failure; each gives the
 * 429 to throw, or null. Callers authenticate first and charge only a
 * failure: a valid credential is never refused here.
 */
export function createUnauthenticatedLimit(app: FastifyInstance, perMinute: number) {
  const limit = app.createRateLimit({ max: perMinute, timeWindow: WINDOW_MS });
  const verdict = async (request: FastifyRequest, increment: boolean): Promise<AppError | null> => {
    const r = await limit(request, { increment });
    if (r.isAllowed) return null;
    // Reading does not count: the allowance is spent once `max` failures were counted.
    const spent = increment ? r.isExceeded : r.remaining === 0;
    return spent ? tooMany(r.ttlInSeconds) : null;
  };
  return {
    check: (request: FastifyRequest) => verdict(request, false),
    charge: (request: FastifyRequest) => verdict(request, true),
  };
}

/** Route config: a per-address allowance (LTI's login and launch, and the ceiling of signedLinkLimit). */
export function startLinkLimit(perMinute: number) {
  return { rateLimit: { max: perMinute, timeWindow: WINDOW_MS } };
}

/**
 * Route options for a page opened by a signed link in its path: `perLink`
 * opens of one link a minute (its path, hashed: no token is kept in memory),
 * under `perAddress` a minute from one client address. Spread into the
 * route's options; the 429 is the route's own (a page for a page).
 */
export function signedLinkLimit(app: FastifyInstance, opts: { perLinkPerMinute: number; perAddressPerMinute: number }) {
  const perLink = app.createRateLimit({
    max: opts.perLinkPerMinute,
    timeWindow: WINDOW_MS,
    keyGenerator: (request) => `link:${sha256Hex(request.url.split('?', 1)[0]!).slice(0, 32)}`,
  });
  return {
    config: startLinkLimit(opts.perAddressPerMinute),
    onRequest: async (request: FastifyRequest) => {
      const r = await perLink(request);
      if (!r.isAllowed && r.isExceeded) throw tooMany(r.ttlInSeconds);
    },
  };
}

/**
 * The student POSTs' limit, per session cookie (per address when there is
 * none): `perMinute` for the student's own actions across every POST route of
 * the student pages, and `perMinute` again, apart, for the routes marked
 * `studentBackground`. Fixed one-minute windows like the library's, counted
 * here in one `Map` without a promise: it runs before every autosave, where
 * the library's async limiter cost about 9 µs of CPU per save (see
 * docs/performance.md). Returns the check: the 429 (with Retry-After) for a
 * refused POST, else undefined; accepted ones carry no limit headers (the page
 * has no use for them). The student session's hook calls it first
 * (student-auth.ts), so a student POST passes through one hook of the pages'
 * own before its body is read.
 */
export function createStudentPostLimit(perMinute: number, cookieName: string, now: () => number = Date.now) {
  // The key is a hash of the cookie (never the cookie itself), remembered per cookie: an autosave every few seconds need not hash again.
  const keys = new Map<string, string>();
  const keyOf = (session: string): string => {
    let key = keys.get(session);
    if (key === undefined) {
      if (keys.size >= CACHE) keys.delete(keys.keys().next().value!);
      key = `session:${sha256Hex(session).slice(0, 32)}`;
      keys.set(session, key);
    }
    return key;
  };
  // Per key, the requests counted in the window that ends at `resetAt`. A Map iterates in insertion order, and a
  // window is re-inserted when it starts again: the oldest window is the first to go when the table is full.
  const windows = new Map<string, { count: number; resetAt: number }>();
  return (request: FastifyRequest): AppError | undefined => {
    if (request.method !== 'POST') return undefined;
    const session = request.cookies?.[cookieName];
    const budget = request.routeOptions.config?.studentBackground ? 'background:' : '';
    const key = budget + (session ? keyOf(session) : `ip:${request.ip}`);
    const t = now();
    let w = windows.get(key);
    if (w === undefined || t >= w.resetAt) {
      if (w !== undefined) windows.delete(key);
      else if (windows.size >= CACHE) windows.delete(windows.keys().next().value!);
      w = { count: 0, resetAt: t + WINDOW_MS };
      windows.set(key, w);
    }
    w.count += 1;
    return w.count > perMinute ? tooMany(Math.ceil((w.resetAt - t) / 1000)) : undefined;
  };
}

export type StudentPostLimit = ReturnType<typeof createStudentPostLimit>;
