import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { AppError } from '../../platform/errors.js';
import { safeEqual } from '../../platform/crypto.js';
import type { AppContext } from '../../platform/context.js';
import { createUnauthenticatedLimit } from '../../platform/http/rate-limit-requests.js';

/**
 * Operator routes: `Authorization: Bearer $ASSAY_ADMIN_TOKEN`, compared in
 * constant time. Only failures count against the client's address
 * (rate-limit-requests.ts): once its allowance is spent, a wrong token gets
 * 429 until the window ends; the right token is checked first and never refused there.
 * Its hook belongs to the scope that registers it (the operator API's).
 */
export const adminAuth = fp(installAdminAuth, { name: 'admin-auth', dependencies: ['request-limits'] });

async function installAdminAuth(app: FastifyInstance, { ctx }: { ctx: AppContext }): Promise<void> {
  const unauthenticated = createUnauthenticatedLimit(app, ctx.config.requestLimits.unauthenticatedPerMinute);
  app.addHook('onRequest', async (request) => {
    const match = /^Bearer +(\S+) *$/i.exec(request.headers.authorization ?? '');
    const expected = ctx.config.adminToken;
    if (!match || !expected || !safeEqual(match[1]!, expected)) {
      const spent = (await unauthenticated.check(request)) ?? (await unauthenticated.charge(request));
      throw spent ?? new AppError('unauthenticated', 'Send the operator token as "Authorization: Bearer <ASSAY_ADMIN_TOKEN>".');
    }
  });
}
