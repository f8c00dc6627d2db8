import { Type } from '@sinclair/typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyReply } from 'fastify';
import type { AppContext } from '../../../platform/context.js';
import { AppError, notFound } from '../../../platform/errors.js';
import { tenantOf } from '../../../platform/principal.js';
import { PAGE_HEADERS } from '../../../platform/web/html.js';
import { staffContent } from '../../catalog/content/rendered-content.js';
import { listInstitutions } from '../../institutions/institutions.js';
import { can, requirePermission, type StaffPrincipal } from '../../staff/principal.js';
import { listAuthoredTests } from '../../catalog/drafts.js';
import { ownTestsPage } from './own-tests-view.js';
import type { TestInput } from '../../catalog/schemas.js';
import { previewOfVersion } from './preview-page.js';
import { createTest, getCurrentTestVersion, getTest, listAllTests, publishTest, unpublishTest, updateTest } from '../../catalog/tests-service.js';
import { pager } from '../ui/components.js';
import { DoneQuery, FORM, Html, Redirect, auditContext, flashFrom, pageRoute, redirect } from '../ui/page.js';
import { newTestTemplate, checkTestJson, locate, testToJson, type LineError } from './check-test-json.js';
import { editorPage, testsListPage } from './test-views.js';
import { getAiAgreement } from '../../marking/ai/get-ai-agreement.js';
import { portalReadPool } from '../portal-reads.js';
import type { Pool } from '../../../platform/db.js';
import type { Translator } from '../../../platform/i18n/catalogue.js';
import { portalTranslator } from '../ui/portal-text.js';

/**
 * Tests (operators only): list, create and edit from the JSON format (the
 * operator API's), problems shown against their line, a preview of the
 * student page in a sandboxed frame, and publication per institution.
 */
const PAGE_SIZE = 50;
const TestParams = Type.Object({ testId: Type.String({ maxLength: 64 }) });
// A 64 KB test grows when form-encoded; the JSON itself is held to the API's limit below.
const EDITOR_BODY_LIMIT = 512 * 1024;
const JSON_LIMIT = 64 * 1024;
const JsonBody = Type.Object({ csrf: Type.Optional(Type.String({ maxLength: 200 })), json: Type.String({ maxLength: 400_000 }) });

/** The editor embeds the preview frame: its page may frame its own origin, nothing else. */
const EDITOR_HEADERS = {
  ...PAGE_HEADERS,
  'content-security-policy': `${PAGE_HEADERS['content-security-policy']}; frame-src 'self'`,
};

/**
 * The preview: no script, no forms (sandbox), framed only by the portal. It
 * keeps the portal's origin (`allow-same-origin`) only so that its images'
 * requests carry the staff session (a SameSite=Strict cookie, which an opaque
 * origin's requests never send): with no `allow-scripts`, nothing in the frame
 * can run to use that origin.
 */
export const PREVIEW_HEADERS = {
  'content-type': 'text/html; charset=utf-8',
  'content-security-policy': "default-src 'none'; style-src 'self'; img-src 'self'; form-action 'none'; base-uri 'none'; sandbox allow-same-origin; frame-ancestors 'self'",
  'x-frame-options': 'SAMEORIGIN',
  'cache-control': 'no-store',
  'referrer-policy': 'no-referrer',
  'x-content-type-options': 'nosniff',
};

/** The Tests page's Previous / Next links, for either list. */
function testsPager(page: number, total: number, t: Translator) {
  return pager({
    label: t.t('portal.authoring.tests.pagerLabel'),
    newerHref: page > 1 ? `/portal/tests?page=${page - 1}` : null,
    newerText: t.t('portal.pager.previous'),
    olderHref: page * PAGE_SIZE < total ? `/portal/tests?page=${page + 1}` : null,
    olderText: t.t('portal.pager.next'),
    t,
  });
}

function sendEditor(reply: FastifyReply, body: string, status = 200) {
  return reply.code(status).headers(EDITOR_HEADERS).send(body);
}

export const testPages: FastifyPluginAsyncTypebox<{ ctx: AppContext }> = async (app, { ctx }) => {
  // The portal's language (English until staff can choose theirs).
  const t = portalTranslator();
  const institutions = async () => (await listInstitutions(ctx.pool, { limit: 100, offset: 0 })).data;

  app.get(
    '/tests',
    { schema: { ...pageRoute, querystring: Type.Object({ ...DoneQuery, page: Type.Optional(Type.Integer({ minimum: 1, maximum: 100_000 })) }), response: { 200: Html } } },
    async (request, reply) => {
      const principal = requirePermission(request, 'author_tests');
      const page = request.query.page ?? 1;
      // The list may be a little behind: the read replica's, once it has this browser's own edits (portal-reads.ts).
      const db = portalReadPool(ctx, request);
      if (!can(principal, 'operate')) return sendEditor(reply, await ownTests(db, principal, page, flashFrom(request, t)));
      const [{ data, total }, insts] = await Promise.all([listAllTests(db, { limit: PAGE_SIZE, offset: (page - 1) * PAGE_SIZE }), institutions()]);
      const nav = testsPager(page, total, t);
      const names = new Map(insts.map((i) => [i.institutionId, i.name]));
      return sendEditor(reply, testsListPage({ principal, tests: data, total, names, pager: nav, flash: flashFrom(request, t), t }));
    },
  );

  /** An author's or admin's list: their institution's own tests. */
  async function ownTests(db: Pool, principal: StaffPrincipal, page: number, flash: ReturnType<typeof flashFrom>) {
    const { data, total } = await listAuthoredTests(db, { institutionId: principal.institutionId! }, { limit: PAGE_SIZE, offset: (page - 1) * PAGE_SIZE });
    return ownTestsPage({ principal, tests: data, total, pager: testsPager(page, total, t), flash, t });
  }

  app.get('/tests/new', { schema: { ...pageRoute, response: { 200: Html } } }, async (request, reply) => {
    const principal = requirePermission(request, 'operate');
    return sendEditor(reply, editorPage({ principal, test: null, json: newTestTemplate(t), errors: [], institutions: [], t }));
  });

  app.post(
    '/tests',
    { bodyLimit: EDITOR_BODY_LIMIT, schema: { ...pageRoute, consumes: FORM, body: JsonBody, response: { 303: Redirect, 400: Html } } },
    async (request, reply) => {
      const principal = requirePermission(request, 'operate');
      const json = request.body.json;
      const result = await saveTest(json, t, (input) => createTest(ctx.pool, input, auditContext(request)));
      if ('errors' in result) return sendEditor(reply, editorPage({ principal, test: null, json, errors: result.errors, institutions: [], t }), 400);
      return redirect(reply, `/portal/tests/${result.testId}?done=test-created`);
    },
  );

  app.get('/tests/:testId', { schema: { ...pageRoute, params: TestParams, querystring: Type.Object(DoneQuery), response: { 200: Html } } }, async (request, reply) => {
    const principal = requirePermission(request, 'operate');
    const [test, insts, agreement] = await Promise.all([getTest(ctx.pool, request.params.testId), institutions(), getAiAgreement(ctx.pool, request.params.testId, tenantOf(principal))]);
    return sendEditor(reply, editorPage({ principal, test, json: testToJson(test), errors: [], institutions: insts, flash: flashFrom(request, t), agreement, t }));
  });

  app.post(
    '/tests/:testId',
    { bodyLimit: EDITOR_BODY_LIMIT, schema: { ...pageRoute, consumes: FORM, params: TestParams, body: JsonBody, response: { 303: Redirect, 400: Html } } },
    async (request, reply) => {
      const principal = requirePermission(request, 'operate');
      const { testId } = request.params;
      const current = await getTest(ctx.pool, testId);
      const json = request.body.json;
      const result = await saveTest(json, t, (input) => updateTest(ctx.pool, testId, input, auditContext(request)));
      if ('errors' in result) return sendEditor(reply, editorPage({ principal, test: current, json, errors: result.errors, institutions: await institutions(), t }), 400);
      return redirect(reply, `/portal/tests/${testId}?done=test-saved`);
    },
  );

  app.get('/tests/:testId/preview', { schema: { ...pageRoute, params: TestParams, response: { 200: Html } } }, async (request, reply) => {
    requirePermission(request, 'operate');
    const test = await getCurrentTestVersion(ctx.pool, request.params.testId);
    if (!test) throw notFound('test');
    // Staff are signed in to the portal, not to an assignment: images load from the staff path.
    const page = previewOfVersion(test, staffContent, ctx.clock.now(), t);
    return reply.code(200).headers(PREVIEW_HEADERS).send(page);
  });

  app.post(
    '/tests/:testId/publications',
    {
      schema: {
        ...pageRoute,
        consumes: FORM,
        params: TestParams,
        body: Type.Object({ csrf: Type.Optional(Type.String({ maxLength: 200 })), institution: Type.String({ maxLength: 64 }), action: Type.Union([Type.Literal('publish'), Type.Literal('unpublish')]) }),
        response: { 303: Redirect },
      },
    },
    async (request, reply) => {
      requirePermission(request, 'operate');
      const { testId } = request.params;
      const { institution, action } = request.body;
      const audit = auditContext(request);
      if (action === 'publish') await publishTest(ctx.pool, testId, institution, audit);
      else await unpublishTest(ctx.pool, testId, institution, audit);
      return redirect(reply, `/portal/tests/${testId}?done=${action === 'publish' ? 'published' : 'unpublished'}`);
    },
  );
};

/** Checks the JSON, then saves through the tests service; its refusals come back placed on their lines. */
async function saveTest(
  json: string,
  t: Translator,
  save: (input: TestInput) => Promise<{ testId: string }>,
): Promise<{ testId: string } | { errors: LineError[] }> {
  if (json.length > JSON_LIMIT) return { errors: [{ line: null, field: 'json', message: t.t('portal.authoring.json.tooLarge', { kb: Math.ceil(json.length / 1024), max: JSON_LIMIT / 1024 }) }] };
  const checked = checkTestJson(json, t);
  if (!checked.ok) return { errors: checked.errors };
  try {
    return { testId: (await save(checked.input)).testId };
  } catch (err) {
    if (err instanceof AppError && err.code === 'invalid_request') {
      return { errors: locate(err.details ?? [{ field: 'json', message: err.message }], checked.lines) };
    }
    throw err;
  }
}
