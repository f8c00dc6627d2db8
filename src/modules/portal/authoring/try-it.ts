import { Type } from '@sinclair/typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { AssignmentsContext } from '../../assignments/context.js';
import { AppError } from '../../../platform/errors.js';
import { html } from '../../../platform/web/html.js';
import { trialVersion } from '../../catalog/drafts.js';
import { createTrialAssignment } from '../../assignments/create-trial-assignment.js';
import { portalLayout } from '../ui/layout.js';
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
  app.post(
    '/tests/:testId/try',
    { schema: { ...pageRoute, consumes: FORM, params: TestParams, body: Type.Object({ csrf: Type.Optional(Type.String({ maxLength: 200 })) }), response: { 303: Redirect, 400: Html, 409: Html } } },
    async (request, reply) => {
      const scope = scopeOf(request);
      const principal = request.staff!;
      const { testId } = request.params;
      const editor = `/portal/tests/${testId}/edit`;
      const page = (title: string, body: ReturnType<typeof html>) =>
        portalLayout({ title, principal, current: 'tests', main: html`<h1>${title}</h1>${body}<p><a href="${editor}">Back to the editor</a></p>` });
      let trial: Awaited<ReturnType<typeof trialVersion>>;
      try {
        trial = await trialVersion(ctx.pool, scope, testId);
      } catch (err) {
        if (err instanceof AppError && err.code === 'invalid_state') {
          return sendHtml(reply, page('Try it needs an institution', html`<p>This is a catalogue test: it belongs to no institution, so there is no test mode to try it in. Publish it to an institution and assign it with that institution's test key (<code>ak_test_…</code>).</p>`), 409);
        }
        if (!(err instanceof AppError) || err.code !== 'invalid_request') throw err;
        return sendHtml(reply, page('The draft cannot be tried yet', html`<p>Try it opens the test as a student takes it, so it needs what publishing needs. Fix these in the editor first:</p><ul>${(err.details ?? []).map((d) => html`<li><code>${d.field}</code> ${d.message}</li>`)}</ul>`), 400);
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
