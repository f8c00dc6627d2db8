import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Readable } from 'node:stream';
import type { AppContext } from '../../platform/context.js';
import { AppError } from '../../platform/errors.js';
import { errors } from '../../platform/http/schemas.js';
import { UPLOAD_MAX_BYTES } from '../catalog/schemas.js';
import { storeAnswerFile } from '../attempts/store-answer-file.js';
import { sessionOf } from './student-auth.js';
import { FileUploadHeaders, FileUploadParams, FileUploadResponse } from './student-schemas.js';

/**
 * A file answer's upload, registered inside the student session scope
 * (session cookie and X-CSRF-Token checked before the body is read). The
 * body is the raw file, of any claimed type, handed to the service as a
 * stream: it is never buffered whole, and the question's size limit is
 * enforced while it arrives (attempts/store-answer-file.ts). An upload is
 * the student's own action, like a save: it spends the page's share of the
 * student POST budget, not the background one.
 */
export const answerFileRoutes: FastifyPluginAsyncTypebox<{ ctx: AppContext }> = async (app, { ctx }) => {
  // Every content type is the file itself, JSON and text included: no parser of the parent scope applies.
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', (_request, payload, done) => done(null, payload));

  app.post(
    '/a/:assignmentId/files/:questionId',
    {
      // The service enforces the question's own limit while streaming; this only bounds what Fastify would allow.
      bodyLimit: UPLOAD_MAX_BYTES + 1,
      // A 20 MB file on a slow connection: the time to send it grows with its size (platform/http/request-time.ts).
      // The session may come from this process's recent ones: the service looks it up again, with the attempt,
      // before it reads the body, two uploads at a time (attempts/store-answer-file.ts), so fifty uploads
      // starting together do not put fifty session queries in front of everyone else's.
      config: { uploadTime: true, sessionRecheckedByStatement: true },
      schema: {
        hide: true,
        params: FileUploadParams,
        headers: FileUploadHeaders,
        response: { 200: FileUploadResponse, ...errors(400, 401, 403, 404, 409, 413, 415, 429, 500, 503) },
      },
    },
    async (request, reply) => {
      reply.header('cache-control', 'no-store');
      let fileName: string;
      try {
        fileName = decodeURIComponent(request.headers['x-file-name']);
      } catch {
        throw new AppError('invalid_request', 'x-file-name: must be the file name encoded with encodeURIComponent', [
          { field: 'x-file-name', message: 'must be the file name encoded with encodeURIComponent' },
        ]);
      }
      const length = request.headers['content-length'];
      try {
        return await storeAnswerFile(ctx, sessionOf(request), request.params.assignmentId, {
          questionId: request.params.questionId,
          // The parser hands over the request stream; a request without Content-Type has no parsed body, so read the raw one.
          body: request.body instanceof Readable ? request.body : request.raw,
          claimedType: request.headers['content-type'] ?? '',
          fileName,
          version: request.headers['x-answer-version'],
          declaredBytes: length !== undefined && /^\d+$/.test(length) ? Number(length) : null,
        });
      } catch (err) {
        // A refused upload's unread rest is not wanted: close the connection after the answer rather than read it.
        if (!request.raw.readableEnded) reply.header('connection', 'close');
        throw err;
      }
    },
  );
};
