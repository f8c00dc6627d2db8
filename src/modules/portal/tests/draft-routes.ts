import { Type } from '@sinclair/typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { withTransaction } from '../../../platform/db.js';
import type { ErrorDetail } from '../../../platform/errors.js';
import { html } from '../../../platform/web/html.js';
import type { AssignmentsContext } from '../../assignments/context.js';
import { insertTrialAssignment } from '../../assignments/trial-assignment.js';
import { getDraftView, type AuthoringScope } from '../../catalog/drafts.js';
import { snapshotTrialVersion } from '../../catalog/trial-versions.js';
import { requirePermission, type StaffPrincipal } from '../../staff/principal.js';
import { portalLayout } from '../ui/layout.js';
import { CsrfBody, FORM, Html, InstitutionQuery, Redirect, pageRoute, redirect, sendHtml } from '../ui/page.js';
import { draftPreview } from './draft-preview.js';
import { PREVIEW_HEADERS } from './test-pages.js';

/**
 * The test editor's preview of the saved draft and its "Try it" action
 * (docs/authoring.md "Preview and Try it"). Both need `author_tests`:
 * authors and admins on their institution's own tests (any other test is a
 * 404), operators on every test.
 */
const TestParams = Type.Object({ testId: Type.String({ maxLength: 64 }) });

function scopeOf(p: StaffPrincipal): AuthoringScope {
  return p.role === 'operator' ? 'all' : { institutionId: p.institutionId! };
}

export const draftRoutes: FastifyPluginAsyncTypebox<{ ctx: AssignmentsContext }> = async (app, { ctx }) => {
  app.get(
    '/tests/:testId/draft/preview',
    {
      schema: {
        ...pageRoute,
        params: TestParams,
        // Only busts the frame's cache: the page is of the saved draft, whatever revision is named.
        querystring: Type.Object({ ...InstitutionQuery, revision: Type.Optional(Type.Integer({ minimum: 0, maximum: 1_000_000_000 })) }),
        response: { 200: Html },
      },
    },
    async (request, reply) => {
      const principal = requirePermission(request, 'author_tests');
      const draft = await getDraftView(ctx.pool, scopeOf(principal), request.params.testId);
      const page = draftPreview({
        testId: draft.testId,
        revision: draft.revision,
        nextVersion: draft.nextVersion,
        content: draft.content,
        problems: draft.problems,
        now: ctx.clock.now(),
      });
      return reply.code(200).headers(PREVIEW_HEADERS).send(page);
    },
  );

  app.post(
    '/tests/:testId/try',
    {
      schema: {
        ...pageRoute,
        consumes: FORM,
        params: TestParams,
        body: Type.Object(CsrfBody),
        response: { 303: Redirect, 400: Html },
      },
    },
    async (request, reply) => {
      const principal = requirePermission(request, 'author_tests');
      const { testId } = request.params;
      const scope = scopeOf(principal);
      const draft = await getDraftView(ctx.pool, scope, testId);
      const editHref = `/portal/tests/${testId}/edit`;
      if (draft.ownerInstitutionId === null) {
        return sendHtml(reply, refusal(principal, editHref, 'A catalogue test belongs to no institution, so it has no test mode to try it in. Publish it to an institution and assign it with that institution’s test key.', []), 400);
      }
      const institutionId = draft.ownerInstitutionId;
      const now = ctx.clock.now();
      const result = await withTransaction(ctx.pool, async (tx) => {
        const snap = await snapshotTrialVersion(tx, scope, testId);
        if (!snap.ok) return snap;
        const trial = await insertTrialAssignment(ctx, tx, {
          institutionId,
          testId,
          testVersionId: snap.testVersionId,
          staff: { staffId: principal.staffId, email: principal.email, name: principal.name },
          // The completion page's return link leads back to the editor.
          returnUrl: `${ctx.config.publicBaseUrl}${editHref}`,
          now,
        });
        return { ok: true as const, startUrl: trial.startUrl };
      });
      if (!result.ok) {
        return sendHtml(reply, refusal(principal, editHref, 'The draft cannot be tried yet: fix these problems first (they are the ones publishing would refuse).', result.problems), 400);
      }
      return redirect(reply, result.startUrl);
    },
  );
};

function refusal(principal: StaffPrincipal, editHref: string, why: string, problems: ErrorDetail[]): string {
  const main = html`<h1>Try it</h1>
<p class="notice" role="alert">${why}</p>
${problems.length > 0 ? html`<ul class="problems">${problems.slice(0, 50).map((p) => html`<li>${placeOf(p.field)}${p.message}</li>`)}</ul>${problems.length > 50 ? html`<p>and ${problems.length - 50} more.</p>` : ''}` : ''}
<p><a href="${editHref}">Back to the editor</a></p>`;
  return portalLayout({ title: 'Try it', principal, current: 'tests', main });
}

/** Where a problem is, in words: "Section 2, question 1: options " for `sections.1.questions.0.options`. */
function placeOf(field: string): string {
  const m = /^(?:sections\.(\d+)\.)?questions\.(\d+)(?:\.(.+))?$/.exec(field);
  if (m) {
    const where = m[1] === undefined ? `Question ${Number(m[2]) + 1}` : `Section ${Number(m[1]) + 1}, question ${Number(m[2]) + 1}`;
    return `${where}: ${m[3] ? `${m[3]} ` : ''}`;
  }
  const sec = /^sections\.(\d+)(?:\.(.+))?$/.exec(field);
  if (sec) return `Section ${Number(sec[1]) + 1}: ${sec[2] ? `${sec[2]} ` : ''}`;
  return field ? `${field} ` : '';
}
