import type { Readable } from 'node:stream';
import { Type } from '@sinclair/typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { AppContext } from '../../platform/context.js';
import { errors } from '../../platform/http/schemas.js';
import { openSignedFile } from './file-urls.js';

/**
 * `GET /files/{token}`: a proctoring file through its signed URL, streamed
 * from storage. The token is a wildcard segment (a parametric one is capped
 * at 100 characters). The response can never be taken for a page: its exact
 * type with nosniff, a sandboxing CSP, and no caching anywhere (the URL is a
 * short-lived credential and the file is personal data).
 */
export const proctoringFileRoutes: FastifyPluginAsyncTypebox<{ ctx: AppContext }> = async (app, { ctx }) => {
  app.get(
    '/files/*',
    { schema: { hide: true, response: { 200: Type.Unsafe<Readable>({ type: 'string', description: 'The file' }), ...errors(404, 410) } } },
    async (request, reply) => {
      reply.headers({
        'cache-control': 'no-store',
        'x-content-type-options': 'nosniff',
        'content-security-policy': "default-src 'none'; sandbox",
        'referrer-policy': 'no-referrer',
      });
      const file = await openSignedFile(ctx, (request.params as { '*': string })['*']);
      return reply.type(file.contentType).header('content-length', String(file.size)).send(file.body);
    },
  );
};
