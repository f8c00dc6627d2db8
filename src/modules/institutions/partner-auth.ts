import type { FastifyBaseLogger, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { AppError } from '../../platform/errors.js';
import type { AppContext } from '../../platform/context.js';
import { createRateLimitStore } from '../../platform/http/rate-limit-store.js';
import type { RateLimitResult } from '../../platform/http/rate-limit.js';
import { createUnauthenticatedLimit } from '../../platform/http/rate-limit-requests.js';
import { findActiveKey, looksLikeApiKey, touchApiKey } from './api-keys.js';
import { createKeyCache, type AuthenticatedKey } from './key-cache.js';
import type { PartnerPrincipal } from '../../platform/principal.js';

/** The partner acting on a request (platform/principal.ts): every partner service filters on its institution and its key's mode. */
export type { PartnerPrincipal };

declare module 'fastify' {
  interface FastifyRequest {
    /** Set by partnerAuth in the partner API's scope; null until the key is accepted. */
    partner: PartnerPrincipal | null;
  }
}

/** lastUsedAt is a "roughly when" field; writing it at most once a minute keeps writes off the hot path. */
const TOUCH_INTERVAL_MS = 60_000;

/**
 * Authenticates every request of the scope it is added to: `Authorization:
 * Bearer ak_live_…` (or `ak_test_…`) → the key's institution and mode, through a key cache that every
 * revocation or suspension invalidates (key-cache.ts), so a revocation takes
 * effect on the next request. Then the per-key rate limit. Requests that do
 * not authenticate are counted per client address instead, and once that
 * allowance is spent get 429 instead of 401 (rate-limit-requests.ts); a valid
 * key is looked up first and never counted or refused there, even one this
 * process has not cached yet. A repeated unknown key is refused from the key
 * cache's negative entries without a database lookup.
 * Registered with fastify-plugin, so `request.partner` and the hooks belong
 * to the scope that registers it (the partner API's).
 */
export const partnerAuth = fp(installPartnerAuth, { name: 'partner-auth', dependencies: ['request-limits'] });

async function installPartnerAuth(app: FastifyInstance, { ctx }: { ctx: AppContext }): Promise<void> {
  app.decorateRequest('partner', null);
  // In this process's memory, or shared by every API process through PostgreSQL (ASSAY_RATE_LIMIT_STORE).
  const limiter = createRateLimitStore(ctx.config.operations.rateLimitStore, ctx.config.rateLimit, ctx.pool, app.log);
  app.addHook('onClose', async () => limiter.stop());
  const keys = createKeyCache({ pool: ctx.pool, log: app.log });
  app.addHook('onReady', () => keys.start());
  app.addHook('onClose', () => keys.stop());

  const unauthenticated = createUnauthenticatedLimit(app, ctx.config.requestLimits.unauthenticatedPerMinute);
  /** Counts a failed authentication against the client's address: the 429 once its allowance is spent, else the 401. */
  const refuse = async (request: FastifyRequest, message: string): Promise<never> => {
    throw (await unauthenticated.charge(request)) ?? new AppError('unauthenticated', message);
  };

  const INVALID = 'The API key is not valid or has been revoked.';

  /**
   * The key's request admitted: its key id on the log, its rate limit, its institution's status, and
   * lastUsedAt once a minute. Returns a promise only when it has to wait (a shared limit store, the touch).
   */
  const admit = (request: FastifyRequest, reply: FastifyReply, key: AuthenticatedKey): void | Promise<void> => {
    // The key id (never the key) goes on every later line of this request, including Fastify's
    // "request completed" line (reply.log is the same logger).
    (request.log as FastifyBaseLogger & { setBindings?: (b: object) => void }).setBindings?.({ keyId: key.keyId, institutionId: key.institutionId });
    const taken = limiter.take(key.keyId);
    return taken instanceof Promise ? taken.then((limit) => limited(request, reply, key, limit)) : limited(request, reply, key, taken);
  };
  const limited = (request: FastifyRequest, reply: FastifyReply, key: AuthenticatedKey, limit: RateLimitResult): void | Promise<void> => {
    reply.headers(limit.headers);
    if (!limit.allowed) {
      throw new AppError('rate_limited', 'Too many requests for this API key. Retry after the time in Retry-After.', undefined, limit.headers);
    }
    if (key.institutionStatus !== 'active') {
      throw new AppError('forbidden', 'This institution is suspended. Contact the Assay operator.');
    }
    const principal: PartnerPrincipal = { kind: 'partner', institutionId: key.institutionId, keyId: key.keyId, livemode: key.livemode };
    const now = ctx.clock.now();
    if (key.lastUsedAt && now.getTime() - key.lastUsedAt.getTime() <= TOUCH_INTERVAL_MS) {
      request.partner = principal;
      return;
    }
    return touchApiKey(ctx.pool, key.keyId, now).then(() => {
      key.lastUsedAt = now; // the cached copy too, so the next minute's requests skip the write
      request.partner = principal;
    });
  };

  /** Authenticates a request; a promise only when it has to wait (a key not cached, a refusal's count, the limit store). */
  const authenticate = (request: FastifyRequest, reply: FastifyReply): void | Promise<void> => {
    const header = authorizationOf(request);
    if (!header) return refuse(request, 'Send your API key as "Authorization: Bearer <API key>".');
    const match = /^Bearer +(\S+) *$/i.exec(header);
    if (!match) return refuse(request, 'Use the Bearer scheme: "Authorization: Bearer <API key>".');
    const token = match[1]!;
    // Authenticate first (cache, negative cache, then the database), whatever the address has spent:
    // a valid key is never refused for someone else's failures from behind the same address.
    // Only a failure is counted; a malformed token never reaches the database, a repeated unknown one is refused from memory.
    if (!looksLikeApiKey(token)) return refuse(request, INVALID);
    const known = keys.peek(token);
    if (known === 'unknown') return refuse(request, INVALID);
    if (known) return admit(request, reply, known);
    return keys.lookup(token, () => findActiveKey(ctx.pool, token)).then((key) => (key ? admit(request, reply, key) : refuse(request, INVALID)));
  };

  // Callback style, as every hook on the hot path: a partner whose key is cached, on the in-process limit
  // store, is admitted in this turn, with no promise made.
  app.addHook('onRequest', (request, reply, done) => {
    let waiting: void | Promise<void>;
    try {
      waiting = authenticate(request, reply);
    } catch (e) {
      return done(e as Error);
    }
    if (waiting) waiting.then(() => done(), done);
    else done();
  });
}

/**
 * The request's Authorization header, read from Node's raw header list: the first of
 * `request.headers` builds an object of every header the client sent, lower-casing each
 * name, which a partner read otherwise never needs. A repeated Authorization header
 * gives its first value, as that object would.
 */
function authorizationOf(request: FastifyRequest): string | undefined {
  const raw = request.raw.rawHeaders;
  for (let i = 0; i < raw.length; i += 2) {
    const name = raw[i]!;
    if (name.length === 13 && name.toLowerCase() === 'authorization') return raw[i + 1];
  }
  return undefined;
}

/** The authenticated partner of a request in a partner scope. */
export function partnerOf(request: FastifyRequest): PartnerPrincipal {
  if (!request.partner) throw new AppError('unauthenticated', 'Authentication required.');
  return request.partner;
}
