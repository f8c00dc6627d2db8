import { Type } from '@sinclair/typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { AppContext } from '../../../platform/context.js';
import { notFound, type ErrorDetail } from '../../../platform/errors.js';
import { PAGE_HEADERS } from '../../../platform/web/html.js';
import { findAssignment } from '../../assignments/find-assignment.js';
import { getProctoringReport, type ProctoringReport } from '../../proctoring/get-proctoring-report.js';
import { reviewFlags } from '../../proctoring/review-flags.js';
import { REVIEW_OUTCOMES, type ReviewOutcome } from '../../proctoring/rules.js';
import { listTestTitles } from '../../catalog/tests-service.js';
import { can } from '../../staff/principal.js';
import { CsrfBody, DoneQuery, FORM, Html, InstitutionQuery, Redirect, audited, chooseInstitution, flashFrom, formErrors, institutionScope, layoutFor, pageRoute, redirect, sendHtml, type Scope } from '../ui/page.js';
import { html } from '../../../platform/web/html.js';
import type { Translator } from '../../../platform/i18n/catalogue.js';
import { portalTranslator } from '../ui/portal-text.js';
import { dataTable, testBadge, whenShort } from '../ui/components.js';
import { listProctoringReviewQueue } from '../../proctoring/list-review-queue.js';
import { proctoringPage, type ReviewFormState } from './proctoring-view.js';
import { portalReadPool } from '../portal-reads.js';

/**
 * Proctoring review: an attempt's flags, recording and evidence (the
 * operator API's report, signed URLs of 15 minutes), and per critical flag a
 * decision through the same service as the operator API (reviewFlags), with
 * the signed-in staff member as the reviewer and an audit entry. Recordings
 * of students are personal data: the page is for roles that review
 * proctoring (reviewers, admins, operators), not for viewers.
 */
const Params = Type.Object({ assignmentId: Type.String({ maxLength: 64 }) });

/**
 * The page plays the recording and shows snapshots from /files/* (PUBLIC_BASE_URL's origin, usually this
 * site): the timeline's script fetches the segments (connect-src) and plays them through a MediaSource,
 * whose object URL is a blob: (media-src).
 */
function pageHeaders(ctx: AppContext): Record<string, string> {
  const origin = new URL(ctx.config.publicBaseUrl).origin;
  const csp = PAGE_HEADERS['content-security-policy']!
    .replace("img-src 'self'", `img-src 'self' ${origin}; media-src 'self' ${origin} blob:`)
    .replace("connect-src 'self'", `connect-src 'self' ${origin}`);
  return { ...PAGE_HEADERS, 'content-security-policy': csp };
}

async function load(ctx: AppContext, scope: Scope, assignmentId: string): Promise<{ report: ProctoringReport; who: { externalUserId: string; title: string; status: string } }> {
  const row = await findAssignment(ctx.pool, scope.institutionId, assignmentId);
  if (!row) throw notFound('assignment');
  const report = await getProctoringReport(ctx, scope.institutionId, assignmentId);
  if (report.mode === 'none') throw notFound('proctoring record');
  const titles = await listTestTitles(ctx.pool, [row.testId]);
  return { report, who: { externalUserId: row.externalUserId, title: titles.get(row.testId) ?? row.testId, status: row.status } };
}

/** Test-mode attempts in the queue are labelled Test and counted apart from the live ones, which are the real work. */
function testModeCount(t: Translator, queue: Array<{ livemode: boolean }>) {
  const test = queue.filter((q) => !q.livemode).length;
  if (test === 0) return '';
  const live = queue.length - test;
  return html` ${t.t('portal.proctoring.queue.testMode', { live, test })}`;
}

export const proctoringPages: FastifyPluginAsyncTypebox<{ ctx: AppContext }> = async (app, { ctx }) => {
  app.get(
    '/proctoring',
    { schema: { ...pageRoute, querystring: Type.Object(InstitutionQuery), response: { 200: Html } } },
    async (request, reply) => {
      const scope = await institutionScope(ctx, request, 'review_proctoring');
      if (!scope) {
        const t = portalTranslator();
        return sendHtml(reply, await chooseInstitution(ctx, request.staff!, 'assignments', t.t('portal.proctoring.queue.title'), '/portal/proctoring', t));
      }
      const { t } = scope;
      // The queue may be a little behind: the read replica's, once it has this browser's own reviews (portal-reads.ts).
      const db = portalReadPool(ctx, request);
      const queue = await listProctoringReviewQueue(db, scope.institutionId);
      const titles = await listTestTitles(db, [...new Set(queue.map((q) => q.testId))]);
      const main = html`<nav class="breadcrumbs" aria-label="${t.t('portal.breadcrumb')}"><ol><li><a href="${scope.link('/portal/assignments')}">${t.t('portal.nav.assignments')}</a></li><li aria-current="page">${t.t('portal.proctoring.queue.title')}</li></ol></nav>
<h1>${t.t('portal.proctoring.queue.title')}</h1>
<p class="lede">${queue.length === 0
  ? t.t('portal.proctoring.queue.none')
  : html`${queue.length === 100 ? t.t('portal.proctoring.queue.ledeFirst100') : t.t('portal.proctoring.queue.lede')}${testModeCount(t, queue)}`}</p>
${dataTable({
  caption: t.t('portal.proctoring.queue.caption'),
  stack: true,
  columns: [
    { label: t.t('portal.proctoring.queue.externalUserId') },
    { label: t.t('portal.proctoring.queue.test') },
    { label: t.t('portal.proctoring.queue.submitted') },
    { label: t.t('portal.proctoring.queue.criticalToReview'), numeric: true },
    { label: t.t('portal.proctoring.queue.action') },
  ],
  rows: queue.map((q) => [
    q.livemode ? q.externalUserId : html`${testBadge(t)} ${q.externalUserId}`,
    titles.get(q.testId) ?? q.testId,
    whenShort(q.submittedAt, t),
    t.t('portal.proctoring.queue.countOf', { unreviewed: String(q.criticalUnreviewed), critical: String(q.critical) }),
    html`<a href="${scope.link(`/portal/assignments/${q.assignmentId}/proctoring`)}">${t.t('portal.proctoring.queue.review')}<span class="sr-only"> ${t.t('portal.proctoring.queue.reviewWhose', { student: q.externalUserId })}</span></a>`,
  ]),
  empty: t.t('portal.proctoring.queue.empty'),
})}`;
      return sendHtml(reply, layoutFor(scope, { title: t.t('portal.proctoring.queue.title'), current: 'assignments', main }));
    },
  );

  app.get(
    '/assignments/:assignmentId/proctoring',
    { schema: { ...pageRoute, params: Params, querystring: Type.Object({ ...InstitutionQuery, ...DoneQuery }), response: { 200: Html } } },
    async (request, reply) => {
      const scope = await institutionScope(ctx, request, 'review_proctoring');
      if (!scope) throw notFound('assignment');
      const { report, who } = await load(ctx, scope, request.params.assignmentId);
      const body = proctoringPage(scope, report, who, { canReview: can(scope.p, 'review_proctoring'), flash: flashFrom(request, scope.t) });
      return reply.code(200).headers(pageHeaders(ctx)).send(body);
    },
  );

  app.post(
    '/assignments/:assignmentId/proctoring/review',
    {
      schema: {
        ...pageRoute,
        consumes: FORM,
        params: Params,
        body: Type.Object({
          ...CsrfBody,
          flagId: Type.String({ maxLength: 64 }),
          outcome: Type.Optional(Type.String({ maxLength: 20 })),
          note: Type.Optional(Type.String({ maxLength: 4000 })),
        }),
        response: { 303: Redirect, 400: Html, 409: Html },
      },
    },
    async (request, reply) => {
      const scope = await institutionScope(ctx, request, 'review_proctoring');
      if (!scope) throw notFound('assignment');
      const { assignmentId } = request.params;
      const { flagId } = request.body;
      const outcome = request.body.outcome;
      const note = (request.body.note ?? '').trim();
      const errors: ErrorDetail[] = [];
      const { t } = scope;
      if (!(REVIEW_OUTCOMES as readonly unknown[]).includes(outcome)) errors.push({ field: 'outcome', message: t.t('portal.proctoring.error.outcome') });
      if (note === '') errors.push({ field: 'note', message: t.t('portal.proctoring.error.noteMissing') });
      if (note.length > 2000) errors.push({ field: 'note', message: t.t('portal.proctoring.error.noteTooLong') });
      const refuse = async (details: ErrorDetail[]) => {
        const { report, who } = await load(ctx, scope, assignmentId);
        const form: ReviewFormState = { flagId, errors: details, values: { outcome, note } };
        return reply.code(400).headers(pageHeaders(ctx)).send(proctoringPage(scope, report, who, { canReview: true, form }));
      };
      if (errors.length > 0) return refuse(errors);
      try {
        await audited(
          ctx,
          request,
          (c) => reviewFlags(c, scope.institutionId, assignmentId, { reviews: [{ flagId, outcome: outcome as ReviewOutcome, note }], reviewer: scope.p.email }),
          (report) => ({
            action: 'proctoring.flag_reviewed',
            objectType: 'assignment',
            objectId: assignmentId,
            institutionId: scope.institutionId,
            details: { flagId, outcome, reviewStatus: report.summary.reviewStatus },
          }),
        );
      } catch (err) {
        const details = formErrors(err, 'outcome').map((d) => (d.field.startsWith('reviews.') ? { field: 'outcome', message: d.message.replace(/^reviews\.\d+\.flagId: /, 'This flag ') } : d));
        return refuse(details);
      }
      return redirect(reply, scope.link(`/portal/assignments/${assignmentId}/proctoring`, { done: 'flag-reviewed' }));
    },
  );
};
