import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { AppContext } from '../../platform/context.js';
import { errors } from '../../platform/http/schemas.js';
import { getProctoringReportForOperator } from './get-proctoring-report.js';
import { reviewFlagsAsOperator } from './review-flags.js';
import { AssignmentParams, OperatorProctoringReport, ReviewBody } from './schemas.js';

const tags = ['Proctoring'];

/** Operator proctoring: an attempt's flags, recording and snapshots (signed URLs), and the review of its critical flags. */
export const proctoringAdminRoutes: FastifyPluginAsyncTypebox<{ ctx: AppContext }> = async (app, { ctx }) => {
  app.get(
    '/assignments/:assignmentId/proctoring',
    {
      schema: {
        tags,
        operationId: 'getProctoringRecord',
        summary: "An attempt's proctoring record: flags timeline, recording segments in order, evidence snapshots",
        description: 'File URLs are signed and valid for 15 minutes (until `urlsExpireAt`); read the record again for fresh ones.',
        params: AssignmentParams,
        response: { 200: OperatorProctoringReport, ...errors(401, 404) },
      },
    },
    async (request, reply) => {
      reply.header('cache-control', 'no-store');
      return getProctoringReportForOperator(ctx, request.params.assignmentId);
    },
  );

  app.post(
    '/assignments/:assignmentId/proctoring/review',
    {
      schema: {
        tags,
        operationId: 'reviewProctoringFlags',
        summary: 'Review critical flags: confirmed or dismissed, with a note (integrity.reviewed once every critical flag is decided)',
        description:
          'Only after the attempt is submitted. A decision is final: the same review again is accepted, a different one is 409. ' +
          'Proctoring never changes the status or the score; this records the reviewer’s judgement and tells the partner.',
        params: AssignmentParams,
        body: ReviewBody,
        response: { 200: OperatorProctoringReport, ...errors(400, 401, 404, 409, 413, 415) },
      },
    },
    async (request, reply) => {
      reply.header('cache-control', 'no-store');
      return reviewFlagsAsOperator(ctx, request.params.assignmentId, { reviews: request.body.reviews, reviewer: request.body.reviewer ?? 'operator' });
    },
  );
};
