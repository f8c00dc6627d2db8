import { Type } from '@sinclair/typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { AppContext } from '../../../platform/context.js';
import { notFound } from '../../../platform/errors.js';
import { answerFileUrl } from '../../attempts/answer-file-urls.js';
import { findCurrentAnswerFile } from '../../attempts/answer-files.js';
import { InstitutionQuery, Redirect, institutionScope, pageRoute, redirect } from '../ui/page.js';

/**
 * `GET /portal/files/{fileId}`: a file answer, for staff who may mark
 * (reviewers, admins; operators naming the institution): 303 to a signed
 * link valid 15 minutes (attempts/answer-file-urls.ts). Another
 * institution's file, or one that is no longer an answer, is not found;
 * viewers are refused (403).
 */
export const answerFilePages: FastifyPluginAsyncTypebox<{ ctx: AppContext }> = async (app, { ctx }) => {
  app.get(
    '/files/:fileId',
    {
      schema: {
        ...pageRoute,
        params: Type.Object({ fileId: Type.String({ maxLength: 64 }) }),
        querystring: Type.Object({ ...InstitutionQuery }),
        response: { 303: Redirect },
      },
    },
    async (request, reply) => {
      const scope = await institutionScope(ctx, request, 'mark');
      if (!scope) throw notFound('file');
      const file = await findCurrentAnswerFile(ctx.pool, scope.institutionId, request.params.fileId);
      if (!file) throw notFound('file');
      return redirect(reply, answerFileUrl(ctx.config, ctx.clock.now(), file.fileId).url);
    },
  );
};
