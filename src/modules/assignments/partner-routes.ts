import { Type } from '@sinclair/typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { errors } from '../../platform/http/schemas.js';
import { compactMember } from '../../platform/http/raw-json.js';
import { partnerOf } from '../institutions/partner-auth.js';
import type { AssignmentsContext } from './context.js';
import { createAssignment, type CreatedAssignment as Created } from './create-assignment.js';
import { getAssignment } from './get-assignment.js';
import { sendAssignmentView } from './send-assignment-view.js';
import { AssignmentView, CreateAssignmentBody, CreatedAssignment, IdempotencyHeaders } from './schemas.js';

export const assignmentsPartnerRoutes: FastifyPluginAsyncTypebox<{ ctx: AssignmentsContext }> = async (app, { ctx }) => {
  app.post(
    '/assignments',
    {
      schema: {
        tags: ['Assignments'],
        operationId: 'createAssignment', summary: 'Assign a test to one of your users; returns a signed start link',
        description:
          'Send `Idempotency-Key` to make retries safe: within 24 hours the same key and body replay the original 201 (with `Idempotent-Replayed: true`); the same key with a different body is refused with 409.',
        headers: IdempotencyHeaders,
        body: CreateAssignmentBody,
        response: { 201: CreatedAssignment, ...errors(400, 401, 403, 409, 413, 415, 422, 429, 500, 503) },
      },
    },
    async (request, reply) => {
      const { institutionId, livemode } = partnerOf(request);
      const serialize = reply.getSerializationFunction('201') as unknown as (v: Created) => string;
      const result = await createAssignment(ctx, {
        institutionId,
        livemode,
        body: request.body,
        metadataJson: request.jsonText === null ? undefined : compactMember(request.jsonText, 'metadata'),
        idempotencyKey: request.headers['idempotency-key'],
        serialize,
      });
      if (result.replayed) reply.header('Idempotent-Replayed', 'true');
      // Already serialised through the 201 schema (and stored for replay): send the bytes as they are.
      return reply.code(201).type('application/json; charset=utf-8').send(result.body as never);
    },
  );

  app.get(
    '/assignments/:assignmentId',
    {
      schema: {
        tags: ['Assignments'],
        operationId: 'getAssignment', summary: 'Read an assignment: live status, timestamps, result, and a fresh start link while it can be used',
        params: Type.Object({ assignmentId: Type.String({ maxLength: 64 }) }),
        response: { 200: AssignmentView, ...errors(401, 403, 404, 429, 500, 503) },
      },
    },
    async (request, reply) => {
      const { institutionId, livemode } = partnerOf(request);
      return sendAssignmentView(reply, await getAssignment(ctx, institutionId, request.params.assignmentId, livemode));
    },
  );
};
