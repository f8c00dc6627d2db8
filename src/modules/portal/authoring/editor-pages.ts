import { Type } from '@sinclair/typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { AppContext } from '../../../platform/context.js';
import { PAGE_HEADERS } from '../../../platform/web/html.js';
import { createDraftTest, getDraftView, listVersions } from '../../catalog/drafts.js';
import { FORM, Html, Redirect, auditContext, flashFrom, pageRoute, redirect, DoneQuery } from '../ui/page.js';
import type { Translator } from '../../../platform/i18n/catalogue.js';
import { portalTranslator } from '../ui/portal-text.js';
import { scopeOf } from './authoring-api.js';
import { testEditorPage } from './editor-view.js';
import { latestTrialRun } from '../../assignments/trial-runs.js';

/**
 * The form editor (docs/authoring.md "Writing a test in the portal"): the
 * page is a shell carrying the draft; test-editor.js builds the form and
 * saves through the authoring JSON routes. Authors and admins open their
 * institution's own tests (anything else is a 404 page), operators any.
 */
const TestParams = Type.Object({ testId: Type.String({ maxLength: 64 }) });

/** The editor frames the draft's preview (its own origin only). */
const EDITOR_HEADERS = {
  ...PAGE_HEADERS,
  'content-security-policy': `${PAGE_HEADERS['content-security-policy']}; frame-src 'self'`,
};

/** What a new test starts from: complete enough to read, not yet publishable (no questions); its first section named in the author's language. */
export function newTestContent(title: string, t: Translator): Record<string, unknown> {
  return {
    title,
    description: '',
    durationMinutes: 30,
    proctoring: 'none',
    marking: 'auto',
    resultVisibility: 'immediate',
    passPercent: null,
    contentFormat: 'markdown',
    sections: [{ title: t.t('portal.authoring.sectionN', { n: 1 }), questions: [] }],
  };
}

export const editorPages: FastifyPluginAsyncTypebox<{ ctx: AppContext }> = async (app, { ctx }) => {
  const t = portalTranslator();
  app.post(
    '/tests/drafts',
    {
      schema: {
        ...pageRoute,
        consumes: FORM,
        body: Type.Object({ csrf: Type.Optional(Type.String({ maxLength: 200 })), title: Type.Optional(Type.String({ maxLength: 200 })) }),
        response: { 303: Redirect },
      },
    },
    async (request, reply) => {
      const scope = scopeOf(request);
      const title = request.body.title?.trim() || t.t('portal.authoring.untitled');
      const draft = await createDraftTest(ctx.pool, scope, newTestContent(title, t), auditContext(request));
      return redirect(reply, `/portal/tests/${draft.testId}/edit?done=draft-created`);
    },
  );

  app.get(
    '/tests/:testId/edit',
    { schema: { ...pageRoute, params: TestParams, querystring: Type.Object(DoneQuery), response: { 200: Html } } },
    async (request, reply) => {
      const scope = scopeOf(request);
      const draft = await getDraftView(ctx.pool, scope, request.params.testId);
      const versions = await listVersions(ctx.pool, scope, draft.testId);
      const owner = draft.ownerInstitutionId;
      const lastTrial = owner ? await latestTrialRun(ctx.pool, { institutionId: owner, testId: draft.testId, staffId: request.staff!.staffId }) : null;
      return reply
        .code(200)
        .headers(EDITOR_HEADERS)
        .send(testEditorPage({ principal: request.staff!, draft, versions, lastTrial, flash: flashFrom(request, t), t }));
    },
  );
};
