import { Type } from '@sinclair/typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { AppContext } from '../../platform/context.js';
import { errors } from '../../platform/http/schemas.js';
import { AdminTest, TestInput } from './schemas.js';
import { createTest, getTest, publishTest, unpublishTest, updateTest } from './tests-service.js';
import { operatorTokenAudit } from '../staff/audit.js';

const TestParams = Type.Object({ testId: Type.String({ maxLength: 64 }) });
const PublicationParams = Type.Object({ testId: Type.String({ maxLength: 64 }), institutionId: Type.String({ maxLength: 64 }) });

export const testsAdminRoutes: FastifyPluginAsyncTypebox<{ ctx: AppContext }> = async (app, { ctx }) => {
  app.post(
    '/tests',
    { schema: { tags: ['Tests'], operationId: 'createTest', summary: 'Create a test (version 1)', body: TestInput, response: { 201: AdminTest, ...errors(400, 401, 413, 415) } } },
    async (request, reply) => reply.status(201).send(await createTest(ctx.pool, request.body, operatorTokenAudit(request.ip))),
  );
  app.get(
    '/tests/:testId',
    { schema: { tags: ['Tests'], operationId: 'getTest', summary: 'Get a test (current version, with answer keys)', params: TestParams, response: { 200: AdminTest, ...errors(401, 404) } } },
    async (request) => getTest(ctx.pool, request.params.testId),
  );
  app.put(
    '/tests/:testId',
    {
      schema: {
        tags: ['Tests'],
        operationId: 'updateTest', summary: 'Replace a test: writes a new version; existing assignments keep theirs',
        params: TestParams,
        body: TestInput,
        response: { 200: AdminTest, ...errors(400, 401, 404, 413, 415) },
      },
    },
    async (request) => updateTest(ctx.pool, request.params.testId, request.body, operatorTokenAudit(request.ip)),
  );
  app.put(
    '/tests/:testId/publications/:institutionId',
    { schema: { tags: ['Tests'], operationId: 'publishTest', summary: "Publish a test to an institution (an institution's own test: to it only, else 409)", params: PublicationParams, response: { 204: Type.Null(), ...errors(401, 404, 409) } } },
    async (request, reply) => {
      await publishTest(ctx.pool, request.params.testId, request.params.institutionId, operatorTokenAudit(request.ip));
      return reply.status(204).send(null);
    },
  );
  app.delete(
    '/tests/:testId/publications/:institutionId',
    {
      schema: {
        tags: ['Tests'],
        operationId: 'unpublishTest', summary: 'Unpublish: no new assignments; existing ones continue',
        params: PublicationParams,
        response: { 204: Type.Null(), ...errors(401, 404) },
      },
    },
    async (request, reply) => {
      await unpublishTest(ctx.pool, request.params.testId, request.params.institutionId, operatorTokenAudit(request.ip));
      return reply.status(204).send(null);
    },
  );
};
