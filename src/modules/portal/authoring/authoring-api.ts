import { Type } from '@sinclair/typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyRequest } from 'fastify';
import type { AppContext } from '../../../platform/context.js';
import { Nullable, Timestamp, errors } from '../../../platform/http/schemas.js';
import { requirePermission } from '../../staff/principal.js';
import { Change, CreateDraftBody, Published, PublishBody, SaveDraftBody, TestIdParams, VersionDiff, VersionList, VersionParams } from '../../catalog/authoring-schemas.js';
import { createDraftTest, deleteTest, getDraftView, listAuthoredTests, listVersions, publishDraft, saveDraft, versionChanges, type AuthoringScope } from '../../catalog/drafts.js';
import { auditContext } from '../ui/page.js';
import { randomInt } from 'node:crypto';
import { NumericQ, ShortText } from '../../catalog/schemas.js';
import { sampleDrawsFor } from '../../catalog/question-types/parameters/sample-draws.js';
import { PortalDraft, portalDraft } from './editor-translations.js';
import { versionChangeText } from './version-change-text.js';
import { portalTranslator } from '../ui/portal-text.js';

/**
 * The JSON the portal's test editor calls (docs/authoring.md "The API"):
 * session-authenticated, the session's CSRF token in `X-CSRF-Token` on
 * every change, errors in the API's envelope (`config.json`). Authors and
 * admins work on their institution's own tests (another institution's test,
 * or the operators' catalogue, is a 404); operators on every test.
 */
const config = { json: true } as const;
const hide = true;
const Csrf = Type.Object({ 'x-csrf-token': Type.Optional(Type.String({ maxLength: 200 })) });

const AuthoredTests = Type.Object({
  data: Type.Array(
    Type.Object({
      testId: Type.String(),
      ownerInstitutionId: Nullable(Type.String()),
      title: Type.String(),
      currentVersion: Type.Integer({ description: '0: never published' }),
      draftRevision: Nullable(Type.Integer()),
      updatedAt: Timestamp,
    }),
  ),
  total: Type.Integer(),
});

const SampleDraws = Type.Object({
  draws: Type.Array(Type.Object({ values: Type.Record(Type.String(), Type.Union([Type.Number(), Type.String()])), answer: Nullable(Type.String()) })),
});

/** The operator API's diff, each change also in words with its values before and after (version-change-text.ts). */
const PortalVersionDiff = Type.Object({
  ...VersionDiff.properties,
  changes: Type.Array(Type.Object({ ...Change.properties, text: Type.String({ description: 'The change in words, with the values before and after' }) })),
});

/** The editor page's save: the operator API's body and the browser tab's own id (test-editor.js), so a tab's saves never conflict with each other. */
const PortalSaveDraftBody = Type.Object(
  { ...SaveDraftBody.properties, editorId: Type.Optional(Type.String({ pattern: '^[A-Za-z0-9_-]{8,64}$', description: "The editor tab's id, kept for the tab's life (sessionStorage)" })) },
  { additionalProperties: false },
);

/** Who may author, and on which tests. */
export function scopeOf(request: FastifyRequest): AuthoringScope {
  const p = requirePermission(request, 'author_tests');
  return p.role === 'operator' ? 'all' : { institutionId: p.institutionId! };
}

export const authoringApi: FastifyPluginAsyncTypebox<{ ctx: AppContext }> = async (app, { ctx }) => {
  app.get(
    '/authoring/tests',
    {
      config,
      schema: {
        hide,
        querystring: Type.Object({ limit: Type.Integer({ minimum: 1, maximum: 100, default: 50 }), offset: Type.Integer({ minimum: 0, maximum: 1_000_000, default: 0 }) }),
        response: { 200: AuthoredTests, ...errors(401, 403) },
      },
    },
    async (request) => listAuthoredTests(ctx.pool, scopeOf(request), request.query),
  );
  app.post(
    '/authoring/tests',
    { config, schema: { hide, headers: Csrf, body: CreateDraftBody, response: { 201: PortalDraft, ...errors(400, 401, 403) } } },
    async (request, reply) => reply.status(201).send(portalDraft(await createDraftTest(ctx.pool, scopeOf(request), request.body.content, auditContext(request)))),
  );
  app.get(
    '/authoring/tests/:testId/draft',
    { config, schema: { hide, params: TestIdParams, response: { 200: PortalDraft, ...errors(401, 403, 404) } } },
    async (request) => portalDraft(await getDraftView(ctx.pool, scopeOf(request), request.params.testId)),
  );
  app.put(
    '/authoring/tests/:testId/draft',
    { config, schema: { hide, headers: Csrf, params: TestIdParams, body: PortalSaveDraftBody, response: { 200: PortalDraft, ...errors(400, 401, 403, 404, 409) } } },
    async (request) => portalDraft(await saveDraft(ctx.pool, scopeOf(request), request.params.testId, request.body, auditContext(request))),
  );
  // The editor's "Sample draws" of a parametrised question as written (saved or not): only the test's own author may ask.
  app.post(
    '/authoring/tests/:testId/draft/sample-draws',
    {
      config,
      schema: { hide, headers: Csrf, params: TestIdParams, body: Type.Object({ question: Type.Union([NumericQ, ShortText]) }), response: { 200: SampleDraws, ...errors(400, 401, 403, 404) } },
    },
    async (request) => {
      await getDraftView(ctx.pool, scopeOf(request), request.params.testId);
      return sampleDrawsFor(request.body.question, randomInt);
    },
  );
  app.post(
    '/authoring/tests/:testId/versions',
    { config, schema: { hide, headers: Csrf, params: TestIdParams, body: PublishBody, response: { 201: Published, ...errors(400, 401, 403, 404, 409) } } },
    async (request, reply) => reply.status(201).send(await publishDraft(ctx.pool, scopeOf(request), request.params.testId, request.body.revision, auditContext(request))),
  );
  app.get(
    '/authoring/tests/:testId/versions',
    { config, schema: { hide, params: TestIdParams, response: { 200: VersionList, ...errors(401, 403, 404) } } },
    async (request) => ({ data: await listVersions(ctx.pool, scopeOf(request), request.params.testId) }),
  );
  app.get(
    '/authoring/tests/:testId/versions/:version/diff',
    { config, schema: { hide, params: VersionParams, response: { 200: PortalVersionDiff, ...errors(401, 403, 404) } } },
    async (request) => {
      const diff = await versionChanges(ctx.pool, scopeOf(request), request.params.testId, request.params.version);
      const t = portalTranslator();
      return { ...diff, changes: diff.changes.map((c) => ({ ...c, text: versionChangeText(c, t) })) };
    },
  );
  app.delete(
    '/authoring/tests/:testId',
    { config, schema: { hide, headers: Csrf, params: TestIdParams, response: { 204: Type.Null(), ...errors(401, 403, 404) } } },
    async (request, reply) => {
      await deleteTest(ctx.pool, scopeOf(request), request.params.testId, auditContext(request));
      return reply.status(204).send(null);
    },
  );
};
