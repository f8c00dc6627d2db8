import { Type } from '@sinclair/typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { AppContext } from '../../platform/context.js';
import { notFound } from '../../platform/errors.js';
import { NullableTimestamp, PagingQuery, Timestamp, errors, paged } from '../../platform/http/schemas.js';
import { createApiKey, listApiKeys, revokeApiKey } from './api-keys.js';
import { createInstitution, getInstitution, listInstitutions, setCallbackDomains, setInstitutionStatus } from './institutions.js';
import { INSTITUTION_STATUSES } from './institution-status.js';
import { operatorTokenAudit } from '../staff/audit.js';

const Domain = Type.String({ minLength: 1, maxLength: 253, description: 'A host name, or *.host for any subdomain' });
const InstitutionView = Type.Object(
  { institutionId: Type.String(), name: Type.String(), status: Type.String(), callbackDomains: Type.Array(Type.String()), createdAt: Timestamp },
  { title: 'Institution' },
);
const InstitutionParams = Type.Object({ institutionId: Type.String({ maxLength: 64 }) });
const KeyMode = Type.Union([Type.Literal('live'), Type.Literal('test')], {
  description: 'live, or test: a test-mode key, which reaches only the institution\'s test-mode data',
});
const KeyView = Type.Object(
  { keyId: Type.String(), label: Type.Union([Type.String(), Type.Null()]), prefix: Type.String(), mode: KeyMode, createdAt: Timestamp, lastUsedAt: NullableTimestamp, revokedAt: NullableTimestamp },
  { title: 'ApiKey' },
);

export const institutionsAdminRoutes: FastifyPluginAsyncTypebox<{ ctx: AppContext }> = async (app, { ctx }) => {
  app.post(
    '/institutions',
    {
      schema: {
        tags: ['Institutions'],
        operationId: 'createInstitution', summary: 'Create an institution',
        body: Type.Object(
          { name: Type.String({ minLength: 1, maxLength: 200 }), callbackDomains: Type.Optional(Type.Array(Domain, { maxItems: 100 })) },
          { additionalProperties: false },
        ),
        response: { 201: InstitutionView, ...errors(400, 401, 413, 415) },
      },
    },
    async (request, reply) => reply.status(201).send(await createInstitution(ctx.pool, request.body, operatorTokenAudit(request.ip))),
  );

  app.get(
    '/institutions',
    { schema: { tags: ['Institutions'], operationId: 'listInstitutions', summary: 'List institutions', querystring: PagingQuery, response: { 200: paged(InstitutionView), ...errors(400, 401) } } },
    async (request) => {
      const { limit, offset } = request.query;
      return { ...(await listInstitutions(ctx.pool, { limit, offset })), limit, offset };
    },
  );

  app.get(
    '/institutions/:institutionId',
    { schema: { tags: ['Institutions'], operationId: 'getInstitution', summary: 'Get an institution', params: InstitutionParams, response: { 200: InstitutionView, ...errors(401, 404) } } },
    async (request) => {
      const found = await getInstitution(ctx.pool, request.params.institutionId);
      if (!found) throw notFound('institution');
      return found;
    },
  );

  app.put(
    '/institutions/:institutionId/status',
    {
      schema: {
        tags: ['Institutions'],
        operationId: 'setInstitutionStatus', summary: 'Suspend or reactivate an institution (suspended: its keys get 403)',
        params: InstitutionParams,
        body: Type.Object({ status: Type.Union(INSTITUTION_STATUSES.map((s) => Type.Literal(s))) }, { additionalProperties: false }),
        response: { 200: InstitutionView, ...errors(400, 401, 404) },
      },
    },
    async (request) => {
      if (!(await setInstitutionStatus(ctx.pool, request.params.institutionId, request.body.status, operatorTokenAudit(request.ip)))) throw notFound('institution');
      return (await getInstitution(ctx.pool, request.params.institutionId))!;
    },
  );

  app.put(
    '/institutions/:institutionId/callback-domains',
    {
      schema: {
        tags: ['Institutions'],
        operationId: 'setCallbackDomains', summary: 'Replace the callbackUrl domain allowlist',
        params: InstitutionParams,
        body: Type.Object({ domains: Type.Array(Domain, { maxItems: 100 }) }, { additionalProperties: false }),
        response: { 200: Type.Object({ domains: Type.Array(Type.String()) }), ...errors(400, 401, 404, 415) },
      },
    },
    async (request) => {
      const domains = await setCallbackDomains(ctx.pool, request.params.institutionId, request.body.domains, operatorTokenAudit(request.ip));
      if (!domains) throw notFound('institution');
      return { domains };
    },
  );

  app.post(
    '/institutions/:institutionId/api-keys',
    {
      schema: {
        tags: ['API keys'],
        operationId: 'createApiKey', summary: 'Create an API key (the key is shown only in this response)',
        params: InstitutionParams,
        body: Type.Optional(
          Type.Object({ label: Type.Optional(Type.String({ maxLength: 200 })), mode: Type.Optional(KeyMode) }, { additionalProperties: false }),
        ),
        response: {
          201: Type.Object({ keyId: Type.String(), apiKey: Type.String(), label: Type.Union([Type.String(), Type.Null()]), mode: KeyMode, createdAt: Timestamp }),
          ...errors(400, 401, 404, 415),
        },
      },
    },
    async (request, reply) => {
      if (!(await getInstitution(ctx.pool, request.params.institutionId))) throw notFound('institution');
      const mode = request.body?.mode ?? 'live';
      const { record, apiKey } = await createApiKey(ctx.pool, request.params.institutionId, request.body?.label ?? null, operatorTokenAudit(request.ip), mode);
      return reply.status(201).send({ keyId: record.keyId, apiKey, label: record.label, mode: record.mode, createdAt: record.createdAt });
    },
  );

  app.get(
    '/institutions/:institutionId/api-keys',
    { schema: { tags: ['API keys'], operationId: 'listApiKeys', summary: 'List API keys (never the secrets)', params: InstitutionParams, response: { 200: Type.Object({ data: Type.Array(KeyView) }), ...errors(401, 404) } } },
    async (request) => {
      if (!(await getInstitution(ctx.pool, request.params.institutionId))) throw notFound('institution');
      return { data: await listApiKeys(ctx.pool, request.params.institutionId) };
    },
  );

  app.delete(
    '/institutions/:institutionId/api-keys/:keyId',
    {
      schema: {
        tags: ['API keys'],
        operationId: 'revokeApiKey', summary: 'Revoke an API key; effective on the next request',
        params: Type.Object({ institutionId: Type.String({ maxLength: 64 }), keyId: Type.String({ maxLength: 64 }) }),
        response: { 204: Type.Null(), ...errors(401, 404) },
      },
    },
    async (request, reply) => {
      if (!(await revokeApiKey(ctx.pool, request.params.institutionId, request.params.keyId, ctx.clock.now(), operatorTokenAudit(request.ip)))) {
        throw notFound('API key');
      }
      return reply.status(204).send(null);
    },
  );
};
