import { Type } from '@sinclair/typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { AppContext } from '../../platform/context.js';
import { errors } from '../../platform/http/schemas.js';
import { operatorTokenAudit } from '../staff/audit.js';
import { changeDeployments, getPlatform, listInstitutionPlatforms, registerPlatform, removePlatform } from './platforms.js';
import { rotateToolKey } from './tool-keys.js';
import { createRegistrationInvite } from './dynamic-registration.js';
import { Nullable, NullableTimestamp, StringEnum, Timestamp } from '../../platform/http/schemas.js';
import { notFound } from '../../platform/errors.js';
import { findAssignmentById } from '../assignments/find-assignment.js';
import { listAssignmentScorePosts } from './ags.js';
import { InstitutionParams, PlatformInput, PlatformParams, PlatformPatch, PlatformView } from './schemas.js';

const tags = ['LTI'];

/** The operator's registration of learning platforms (LTI 1.3), per institution, and the tool key's rotation. */
export const ltiAdminRoutes: FastifyPluginAsyncTypebox<{ ctx: AppContext }> = async (app, { ctx }) => {
  app.post(
    '/institutions/:institutionId/lti-platforms',
    {
      schema: {
        tags,
        operationId: 'registerLtiPlatform',
        summary: "Register a learning platform (LTI 1.3) with an institution; the answer holds the tool's URLs to enter in the platform",
        params: InstitutionParams,
        body: PlatformInput,
        response: { 201: PlatformView, ...errors(400, 401, 404, 409, 415) },
      },
    },
    async (request, reply) => {
      const view = await registerPlatform(ctx, request.params.institutionId, request.body, operatorTokenAudit(request.ip));
      return reply.code(201).send(view);
    },
  );

  app.get(
    '/institutions/:institutionId/lti-platforms',
    {
      schema: {
        tags,
        operationId: 'listLtiPlatforms',
        summary: "List an institution's learning platforms",
        params: InstitutionParams,
        response: { 200: Type.Object({ data: Type.Array(PlatformView) }), ...errors(401, 404) },
      },
    },
    async (request) => ({ data: await listInstitutionPlatforms(ctx, request.params.institutionId) }),
  );

  app.get(
    '/institutions/:institutionId/lti-platforms/:ltiPlatformId',
    {
      schema: {
        tags,
        operationId: 'getLtiPlatform',
        summary: 'Read a learning platform',
        params: PlatformParams,
        response: { 200: PlatformView, ...errors(401, 404) },
      },
    },
    async (request) => getPlatform(ctx, request.params.institutionId, request.params.ltiPlatformId),
  );

  app.patch(
    '/institutions/:institutionId/lti-platforms/:ltiPlatformId',
    {
      schema: {
        tags,
        operationId: 'updateLtiPlatform',
        summary: "Replace a learning platform's deployment ids",
        params: PlatformParams,
        body: PlatformPatch,
        response: { 200: PlatformView, ...errors(400, 401, 404, 415) },
      },
    },
    async (request) =>
      changeDeployments(ctx, request.params.institutionId, request.params.ltiPlatformId, request.body.deploymentIds, operatorTokenAudit(request.ip)),
  );

  app.delete(
    '/institutions/:institutionId/lti-platforms/:ltiPlatformId',
    {
      schema: {
        tags,
        operationId: 'deleteLtiPlatform',
        summary: 'Remove a learning platform: its launches are refused from now on (assignments made by earlier launches stay)',
        params: PlatformParams,
        response: { 204: Type.Null(), ...errors(401, 404) },
      },
    },
    async (request, reply) => {
      await removePlatform(ctx, request.params.institutionId, request.params.ltiPlatformId, operatorTokenAudit(request.ip));
      return reply.code(204).send(null);
    },
  );

  app.post(
    '/institutions/:institutionId/lti-registrations',
    {
      schema: {
        tags,
        operationId: 'createLtiRegistrationUrl',
        summary: 'Make a one-time LTI Dynamic Registration URL for an institution (valid 7 days): the LMS administrator pastes it into the platform',
        params: InstitutionParams,
        response: { 201: Type.Object({ registrationUrl: Type.String(), expiresAt: Timestamp }, { title: 'LtiRegistrationUrl' }), ...errors(401, 404) },
      },
    },
    async (request, reply) => reply.code(201).send(await createRegistrationInvite(ctx, request.params.institutionId, operatorTokenAudit(request.ip))),
  );

  app.get(
    '/assignments/:assignmentId/lti-scores',
    {
      schema: {
        tags,
        operationId: 'listLtiScorePosts',
        summary: "The scores sent to an LTI assignment's line item (one per exam.completed and grading.done), each with every HTTP attempt",
        params: Type.Object({ assignmentId: Type.String({ maxLength: 64 }) }),
        response: {
          200: Type.Object({
            data: Type.Array(
              Type.Object(
                {
                  scorePostId: Type.String(),
                  status: StringEnum(['pending', 'delivered', 'failed']),
                  scoresUrl: Type.String(),
                  score: Type.Object({}, { additionalProperties: true, description: 'The score as posted (application/vnd.ims.lis.v1.score+json)' }),
                  createdAt: Timestamp,
                  deliveredAt: NullableTimestamp,
                  attempts: Type.Array(
                    Type.Object({
                      attemptedAt: Timestamp,
                      statusCode: Nullable(Type.Integer()),
                      errorClass: Nullable(Type.String()),
                      durationMs: Type.Integer(),
                    }),
                  ),
                },
                { title: 'LtiScorePost' },
              ),
            ),
          }),
          ...errors(401, 404),
        },
      },
    },
    async (request) => {
      if (!(await findAssignmentById(ctx.pool, request.params.assignmentId))) throw notFound('assignment');
      return { data: await listAssignmentScorePosts(ctx.pool, request.params.assignmentId) };
    },
  );

  app.post(
    '/lti/tool-keys/rotate',
    {
      schema: {
        tags,
        operationId: 'rotateLtiToolKey',
        summary: "Rotate the tool's signing key: a new key signs from now on; the old one stays published at /lti/jwks for 7 days",
        response: { 200: Type.Object({ kid: Type.String() }), ...errors(401) },
      },
    },
    async (request) => rotateToolKey(ctx, operatorTokenAudit(request.ip)),
  );
};
