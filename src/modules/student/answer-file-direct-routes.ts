import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { AppContext } from '../../platform/context.js';
import { errors } from '../../platform/http/schemas.js';
import { presignAnswerFile, recordDirectAnswerFile } from '../attempts/direct-answer-files.js';
import { sessionOf } from './student-auth.js';
import { AnswerFilePresignBody, AnswerFilePresigned, AnswerFileRecordBody, FileUploadParams, FileUploadResponse } from './student-schemas.js';
import { AssignmentParams, CsrfHeader } from '../proctoring/schemas.js';

/**
 * A file answer's direct upload (S3 storage), inside the student session
 * scope: a presigned PUT for the file, then its record, which checks the
 * stored object by ranged reads and makes it the answer
 * (attempts/direct-answer-files.ts). Only JSON passes through here; the
 * record answers as the through-API upload does.
 */
export const answerFileDirectRoutes: FastifyPluginAsyncTypebox<{ ctx: AppContext }> = async (app, { ctx }) => {
  const hide = { hide: true };
  // As for the through-API upload: the session may come from this process's recent ones, and the service
  // looks it up again in the upload's turn, two uploads at a time (attempts/store-answer-file.ts).
  const config = { sessionRecheckedByStatement: true };
  app.post(
    '/a/:assignmentId/files/:questionId/uploads',
    { config, schema: { ...hide, params: FileUploadParams, headers: CsrfHeader, body: AnswerFilePresignBody, response: { 200: AnswerFilePresigned, ...errors(400, 401, 403, 404, 409, 413, 429) } } },
    async (request, reply) => {
      reply.header('cache-control', 'no-store');
      const b = request.body;
      return presignAnswerFile(ctx, sessionOf(request), request.params.assignmentId, {
        questionId: request.params.questionId,
        bytes: b.bytes,
        claimedType: b.contentType,
        fileName: b.fileName,
        version: b.version,
        sha256: b.sha256,
      });
    },
  );

  app.post(
    '/a/:assignmentId/files/uploads/record',
    { config, schema: { ...hide, params: AssignmentParams, headers: CsrfHeader, body: AnswerFileRecordBody, response: { 200: FileUploadResponse, ...errors(400, 401, 403, 404, 409, 413, 415, 429, 500, 503) } } },
    async (request, reply) => {
      reply.header('cache-control', 'no-store');
      return recordDirectAnswerFile(ctx, sessionOf(request), request.params.assignmentId, request.body.key);
    },
  );
};
