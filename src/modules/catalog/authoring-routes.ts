import { Type } from '@sinclair/typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { AppContext } from '../../platform/context.js';
import { errors } from '../../platform/http/schemas.js';
import { operatorTokenAudit } from '../staff/audit.js';
import { CreateDraftBody, Draft, Published, PublishBody, SaveDraftBody, TestIdParams, VersionDiff, VersionList, VersionParams } from './authoring-schemas.js';
import { createDraftTest, deleteTest, getDraftView, listVersions, publishDraft, saveDraft, versionChanges } from './drafts.js';

/**
 * The operator API's authoring (docs/authoring.md): drafts saved with a
 * revision, published as versions, versions listed and compared, tests
 * deleted. The operator token acts on every test (scope 'all').
 */
const tags = ['Tests'];

export const authoringAdminRoutes: FastifyPluginAsyncTypebox<{ ctx: AppContext }> = async (app, { ctx }) => {
  app.post(
    '/tests/drafts',
    { schema: { tags, operationId: 'createTestDraft', summary: 'Create a test with a draft only (no version until published)', body: CreateDraftBody, response: { 201: Draft, ...errors(400, 401, 413, 415) } } },
    async (request, reply) => reply.status(201).send(await createDraftTest(ctx.pool, 'all', request.body.content, operatorTokenAudit(request.ip))),
  );
  app.get(
    '/tests/:testId/draft',
    { schema: { tags, operationId: 'getTestDraft', summary: "A test's draft with its revision and what publishing would refuse", params: TestIdParams, response: { 200: Draft, ...errors(401, 404) } } },
    async (request) => getDraftView(ctx.pool, 'all', request.params.testId),
  );
  app.put(
    '/tests/:testId/draft',
    {
      schema: {
        tags,
        operationId: 'saveTestDraft',
        summary: 'Save the draft (never a version); 409 when it changed since `revision`',
        params: TestIdParams,
        body: SaveDraftBody,
        response: { 200: Draft, ...errors(400, 401, 404, 409, 413, 415) },
      },
    },
    async (request) => saveDraft(ctx.pool, 'all', request.params.testId, request.body, operatorTokenAudit(request.ip)),
  );
  app.post(
    '/tests/:testId/versions',
    {
      schema: {
        tags,
        operationId: 'publishTestDraft',
        summary: 'Publish the draft as the next version (validated in full)',
        params: TestIdParams,
        body: PublishBody,
        response: { 201: Published, ...errors(400, 401, 404, 409, 415) },
      },
    },
    async (request, reply) => reply.status(201).send(await publishDraft(ctx.pool, 'all', request.params.testId, request.body.revision, operatorTokenAudit(request.ip))),
  );
  app.get(
    '/tests/:testId/versions',
    { schema: { tags, operationId: 'listTestVersions', summary: "A test's versions, newest first", params: TestIdParams, response: { 200: VersionList, ...errors(401, 404) } } },
    async (request) => ({ data: await listVersions(ctx.pool, 'all', request.params.testId) }),
  );
  app.get(
    '/tests/:testId/versions/:version/diff',
    { schema: { tags, operationId: 'diffTestVersion', summary: 'What a version changed from the one before', params: VersionParams, response: { 200: VersionDiff, ...errors(401, 404) } } },
    async (request) => versionChanges(ctx.pool, 'all', request.params.testId, request.params.version),
  );
  app.delete(
    '/tests/:testId',
    { schema: { tags, operationId: 'deleteTest', summary: 'Delete a test: hidden from lists and partners; existing assignments continue', params: TestIdParams, response: { 204: Type.Null(), ...errors(401, 404) } } },
    async (request, reply) => {
      await deleteTest(ctx.pool, 'all', request.params.testId, operatorTokenAudit(request.ip));
      return reply.status(204).send(null);
    },
  );
};
