import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { AppContext } from '../../platform/context.js';
import { errors } from '../../platform/http/schemas.js';
import { aiMarkingAdminRoutes } from './ai/admin-routes.js';
import { getMarkingView } from './get-marking-view.js';
import { recordOperatorMarks } from './record-marks.js';
import { MarkingParams, MarkingView, RecordMarksBody } from './schemas.js';

/** Operator marking: read an attempt with its marks, record reviewer marks, finish marking; AI marking's routes. */
export const markingAdminRoutes: FastifyPluginAsyncTypebox<{ ctx: AppContext }> = async (app, { ctx }) => {
  await app.register(aiMarkingAdminRoutes, { ctx });
  app.get(
    '/assignments/:assignmentId',
    {
      schema: {
        tags: ['Marking'],
        operationId: 'getMarkingView', summary: "An assignment's attempt for marking: answers, auto marks, AI suggestions with their provenance, and the items awaiting a reviewer",
        params: MarkingParams,
        response: { 200: MarkingView, ...errors(401, 404) },
      },
    },
    async (request) => getMarkingView(ctx.pool, request.params.assignmentId, { kind: 'operator' }),
  );
  app.post(
    '/assignments/:assignmentId/marks',
    {
      schema: {
        tags: ['Marking'],
        operationId: 'recordMarks', summary: 'Record reviewer marks; with complete: true, finish marking and release the final score (grading.done)',
        params: MarkingParams,
        body: RecordMarksBody,
        response: { 200: MarkingView, ...errors(400, 401, 404, 409, 413, 415) },
      },
    },
    async (request) => recordOperatorMarks(ctx, request.params.assignmentId, request.body, request.ip),
  );
};
