import type { FastifyInstance } from 'fastify';
import { AppError } from '../../platform/errors.js';
import { safeEqual } from '../../platform/crypto.js';
import type { AppContext } from '../../platform/context.js';

/** Operator routes: `Authorization: Bearer $ASSAY_ADMIN_TOKEN`, compared in constant time. */
export function installAdminAuth(app: FastifyInstance, ctx: AppContext): void {
  app.addHook('onRequest', async (request) => {
    const match = /^Bearer +(\S+) *$/i.exec(request.headers.authorization ?? '');
    const expected = ctx.config.adminToken;
    if (!match || !expected || !safeEqual(match[1]!, expected)) {
      throw new AppError('unauthenticated', 'Send the operator token as "Authorization: Bearer <ASSAY_ADMIN_TOKEN>".');
    }
  });
}
