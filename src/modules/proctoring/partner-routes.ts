import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { AppContext } from '../../platform/context.js';
import { errors } from '../../platform/http/schemas.js';
import { partnerOf } from '../institutions/partner-auth.js';
import { getProctoringReport } from './get-proctoring-report.js';
import { AssignmentParams, PartnerProctoringReport } from './schemas.js';

export const proctoringPartnerRoutes: FastifyPluginAsyncTypebox<{ ctx: AppContext }> = async (app, { ctx }) => {
  app.get(
    '/assignments/:assignmentId/proctoring',
    {
      schema: {
        tags: ['Proctoring'],
        operationId: 'getAssignmentProctoring',
        summary: 'Read the proctoring record of an assignment: flags with review outcomes, evidence and recording links',
        description:
          'Flags (`critical` ones were sent as `violation.detected`) by start time, each with its review once a reviewer has decided; ' +
          'the recording as WebM segments in order; snapshots. Every file URL is signed and valid for 15 minutes (until `urlsExpireAt`): ' +
          'fetch it then, or read this again for fresh links. An expired link answers 410 `link_expired`. For a test without proctoring, ' +
          '`mode` is `none` and the lists are empty. After the retention period the files and flags are deleted (`purgedAt`); the counts remain.',
        params: AssignmentParams,
        response: { 200: PartnerProctoringReport, ...errors(401, 403, 404, 429, 500, 503) },
      },
    },
    async (request, reply) => {
      reply.header('cache-control', 'no-store');
      const { institutionId, livemode } = partnerOf(request);
      return getProctoringReport(ctx, institutionId, request.params.assignmentId, livemode);
    },
  );
};
