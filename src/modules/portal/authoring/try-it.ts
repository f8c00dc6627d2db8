import { Type } from '@sinclair/typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { AssignmentsContext } from '../../assignments/context.js';
import { AppError } from '../../../platform/errors.js';
import { html } from '../../../platform/web/html.js';
import { trialVersion } from '../../catalog/drafts.js';
import { createTrialAssignment } from '../../assignments/create-trial-assignment.js';
import { portalLayout } from '../ui/layout.js';
import { portalTranslator, richText } from '../ui/portal-text.js';
import { FORM, Html, Redirect, pageRoute, redirect, sendHtml } from '../ui/page.js';
import { scopeOf } from './authoring-api.js';

/**
 * **Try it** (docs/authoring.md "Try it"): the draft as a student takes
 * it, in test mode. The draft must pass publishing's checks (else a page
 * lists what is missing); its revision is frozen as a trial version that no
 * partner can see, a test-mode assignment is made for the staff member, and
 * the browser goes to its start link. Catalogue tests belong to no
 * institution, so they are tried through an institution's test key instead.
 */
const TestParams = Type.Object({ testId: Type.String({ maxLength: 64 }) });

export const tryItRoute: FastifyPluginAsyncTypebox<{ ctx: AssignmentsContext }> = async (app, { ctx }) => {
  const t = portalTranslator();
  app.post(
    '/tests/:testId/try',
    { schema: { ...pageRoute, consumes: FORM, params: TestParams, body: Type.Object({ csrf: Type.Optional(Type.String({ maxLength: 200 })) }), response: { 303: Redirect, 400: Html, 409: Html } } },
    async (request, reply) => {
      const scope = scopeOf(request);
      const principal = request.staff!;
      const { testId } = request.params;
      const editor = `/portal/tests/${testId}/edit`;
      const page = (title: string, body: ReturnType<typeof html>) =>
        portalLayout({ title, principal, current: 'tests', main: html`<h1>${title}</h1>${body}<p><a href="${editor}">${t.t('portal.authoring.tryIt.back')}</a></p>`, t });
      let trial: Awaited<ReturnType<typeof trialVersion>>;
      try {
        trial = await trialVersion(ctx.pool, scope, testId);
      } catch (err) {
        if (err instanceof AppError && err.code === 'invalid_state') {
          return sendHtml(reply, page(t.t('portal.authoring.tryIt.needsInstitution'), html`<p>${richText(t, 'portal.authoring.tryIt.catalogueTest', { key: html`<code>ak_test_…</code>` })}</p>`), 409);
        }
        if (!(err instanceof AppError) || err.code !== 'invalid_request') throw err;
        return sendHtml(reply, page(t.t('portal.authoring.tryIt.notYet'), html`<p>${t.t('portal.authoring.tryIt.fixFirst')}</p><ul>${(err.details ?? []).map((d) => html`<li><code>${d.field}</code> ${d.message}</li>`)}</ul>`), 400);
      }
      const startUrl = await createTrialAssignment(ctx, {
        institutionId: trial.ownerInstitutionId,
        testId,
        testVersionId: trial.testVersionId,
        staff: { staffId: principal.staffId, email: principal.email, name: principal.name },
        returnUrl: `${ctx.config.publicBaseUrl}${editor}`,
      });
      return redirect(reply, startUrl);
    },
  );
};
