import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { AppContext } from '../../platform/context.js';
import type { Pool } from '../../platform/db.js';
import { readPool } from '../../platform/read-replica.js';
import { isLsn } from '../../platform/replica-lag.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** The primary's WAL position after this browser's last portal write (cookie `assay_portal_seen`); null when none. */
    seenPosition: string | null;
  }
}

/**
 * Read-your-writes for the portal's lists on the read replica.
 *
 * After every state-changing portal request (a form post, the editor's API
 * calls), the primary's WAL position — taken after the handler committed —
 * goes into the cookie `assay_portal_seen`. The pages this browser opens next
 * read from the replica only once the replica has replayed that position
 * (read-replica.ts compares it with the replay position of its last check);
 * until then from the primary. So the page after POST → redirect → GET shows
 * the write, whichever API process serves it.
 *
 * A cookie rather than the session row: it costs no write, and it covers
 * the sign-in post too. Its value only ever sends this browser's own reads to
 * the primary sooner or later: a forged one shows a staff member older data
 * (within the lag bound) or puts their reads on the primary. It lives a little
 * longer than the lag bound: past that, a replica that serves at all has
 * everything the write's page needed.
 */
export const SEEN_COOKIE = 'assay_portal_seen';

const STATE_CHANGING = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

/** The pool for a portal list: the replica when it has this browser's writes and is within the bound, else the primary. */
export function portalReadPool(ctx: AppContext, request: FastifyRequest): Pool {
  return readPool(ctx, request.seenPosition);
}

export function installReadYourWrites(app: FastifyInstance, ctx: AppContext): void {
  const reads = ctx.reads;
  app.decorateRequest('seenPosition', null);
  if (!reads) return; // no replica: every read is on the primary, nothing to remember
  const maxAge = Math.ceil(ctx.config.replica.maxLagMs / 1000) + 60;
  app.addHook('onRequest', async (request) => {
    const seen = request.cookies?.[SEEN_COOKIE];
    request.seenPosition = seen && isLsn(seen) ? seen : null;
  });
  // onSend: after the handler's transaction committed, before the headers leave.
  app.addHook('onSend', async (request, reply, payload) => {
    if (!STATE_CHANGING.has(request.method)) return payload;
    // A refused post wrote nothing, but some (a failed sign-in) write a throttle row: every post counts.
    const position = await reads.writePosition().catch(() => null);
    if (position) {
      reply.setCookie(SEEN_COOKIE, position, {
        path: '/portal',
        httpOnly: true,
        sameSite: 'strict',
        secure: ctx.config.publicBaseUrl.startsWith('https:'),
        maxAge,
      });
    }
    return payload;
  });
}
