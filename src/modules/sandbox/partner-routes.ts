import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { AppError } from '../../platform/errors.js';
import { errors } from '../../platform/http/schemas.js';
import type { FastifyRequest } from 'fastify';
import type { AssignmentsContext } from '../assignments/context.js';
import { AssignmentParams } from '../assignment-controls/control-schemas.js';
import { AssignmentView } from '../assignments/schemas.js';
import { sendAssignmentView } from '../assignments/send-assignment-view.js';
import { partnerOf, type PartnerPrincipal } from '../institutions/partner-auth.js';
import { SimulateBody, TestDataWiped } from './schemas.js';
import { simulateAssignment } from './simulate-assignment.js';
import { wipeTestData } from './wipe-test-data.js';

const tags = ['Test mode'];

/**
 * The test-mode routes exist for test keys only: a live key gets 404
 * not_found, the same whatever the id in the path (so nothing about live or
 * test objects is revealed), with a message that points a developer who used
 * the wrong key to the right one.
 */
function testPartnerOf(request: FastifyRequest): PartnerPrincipal {
  const partner = partnerOf(request);
  if (partner.livemode) throw new AppError('not_found', 'No such route for a live API key: test-mode routes answer test-mode keys (ak_test_…) only.');
  return partner;
}

export const sandboxPartnerRoutes: FastifyPluginAsyncTypebox<{ ctx: AssignmentsContext }> = async (app, { ctx }) => {
  app.post(
    '/assignments/:assignmentId/simulate',
    {
      schema: {
        tags,
        operationId: 'simulateAssignment',
        summary: 'Test mode: play the student\'s or the reviewer\'s next step on a test-mode assignment',
        description:
          'Test keys (`ak_test_…`) only; with a live key this route answers 404 `not_found`, as for an unknown route. ' +
          'Each action runs the same services as the real flow and emits the same events (with `livemode: false`, to test-mode webhook endpoints only). ' +
          '200: the assignment as `GET /assignments/{assignmentId}` reads it after the action. ' +
          '400 `invalid_request`: a bad body, an unknown question id or answer value, or a field the action does not use; nothing changes. ' +
          '404 `not_found`: no test-mode assignment with this id (a live-mode id included). ' +
          '409 `invalid_state`: the action is not possible in the assignment\'s status (the message says which it is), or a violation on a test that is not proctored or whose mode cannot detect that kind.',
        params: AssignmentParams,
        body: SimulateBody,
        response: { 200: AssignmentView, ...errors(400, 401, 403, 404, 409, 413, 415, 429, 500, 503) },
      },
    },
    async (request, reply) => {
      const partner = testPartnerOf(request);
      return sendAssignmentView(reply, await simulateAssignment(ctx, partner, request.params.assignmentId, request.body));
    },
  );

  app.delete(
    '/test-data',
    {
      schema: {
        tags,
        operationId: 'deleteTestData',
        summary: 'Test mode: delete every test-mode assignment and event of your institution',
        description:
          'Test keys only (404 `not_found` with a live key). Deletes the test-mode assignments with their attempts, answers, marks, proctoring records and files, ' +
          'their events with webhook deliveries, and test-mode events without an assignment. Test-mode webhook endpoints are kept. ' +
          'Live data is never touched. Test-mode data older than 30 days is also deleted automatically.',
        response: { 200: TestDataWiped, ...errors(401, 403, 404, 429, 500, 503) },
      },
    },
    async (request) => {
      const partner = testPartnerOf(request);
      return { deleted: await wipeTestData(ctx, partner.institutionId) };
    },
  );
};
