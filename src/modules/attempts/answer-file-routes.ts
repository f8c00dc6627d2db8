import type { Readable } from 'node:stream';
import { Type } from '@sinclair/typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { AppContext } from '../../platform/context.js';
import { errors } from '../../platform/http/schemas.js';
import { contentDisposition } from '../../platform/http/content-disposition.js';
import { INLINE_TYPES, openAnswerFile } from './answer-file-urls.js';

/**
 * `GET /answer-files/{token}`: an answer file through its signed link
 * (answer-file-urls.ts). Images and PDFs are served inline with their
 * detected type (what the portal shows in an <img> or an <iframe>), every
 * other type as a download; never cached, never sniffed, never a page:
 * images under a sandboxing CSP; a PDF without the sandbox (browsers refuse
 * to run their PDF viewer in one) but with nothing else allowed, framed only
 * by this site.
 */
export const answerFileDownloadRoutes: FastifyPluginAsyncTypebox<{ ctx: AppContext }> = async (app, { ctx }) => {
  app.get(
    '/answer-files/*',
    { schema: { hide: true, response: { 200: Type.Unsafe<Readable>({ type: 'string', description: 'The file' }), ...errors(404, 410) } } },
    async (request, reply) => {
      reply.headers({ 'cache-control': 'no-store', 'x-content-type-options': 'nosniff', 'referrer-policy': 'no-referrer' });
      const opened = await openAnswerFile(ctx, (request.params as { '*': string })['*']);
      const type = opened.file.contentType;
      const inline = INLINE_TYPES.has(type);
      reply.header(
        'content-security-policy',
        type === 'application/pdf' ? "default-src 'none'; frame-ancestors 'self'" : "default-src 'none'; sandbox; frame-ancestors 'self'",
      );
      return reply
        .type(inline ? type : type.startsWith('text/') ? 'text/plain; charset=utf-8' : type)
        .header('content-disposition', contentDisposition(opened.file.fileName, inline ? 'inline' : 'attachment', 'file'))
        .header('content-length', String(opened.size))
        .send(opened.body);
    },
  );
};
