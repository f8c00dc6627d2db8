import { Type } from '@sinclair/typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { AppContext } from '../../../platform/context.js';
import { AppError, notFound, type ErrorDetail } from '../../../platform/errors.js';
import type { Translator } from '../../../platform/i18n/catalogue.js';
import { html } from '../../../platform/web/html.js';
import { listMarkingQueue } from '../../marking/marking-queue.js';
import { MarksChangedError } from '../../marking/marks-version.js';
import { finishMarking, openMarkingItem, saveMarkingDraft, type DraftMark } from '../../marking/reviewer-marking.js';
import { listTestTitles } from '../../catalog/tests-service.js';
import { acceptAiSuggestionsAsReviewer } from '../../marking/ai/accept-as-reviewer.js';
import { aiMarkingStatus } from '../../marking/ai/ai-status.js';
import { aiStatusNotice } from './ai-suggestion-view.js';
import { getAiAgreement } from '../../marking/ai/get-ai-agreement.js';
import { agreementSection } from '../authoring/agreement-view.js';
import { can } from '../../staff/principal.js';
import { ago, dataTable, pager, testBadge, whenShort } from '../ui/components.js';
import {
  CsrfBody,
  DoneQuery,
  FORM,
  Html,
  InstitutionQuery,
  Redirect,
  auditContext,
  chooseInstitution,
  flashFrom,
  formErrors,
  institutionScope,
  layoutFor,
  pageRoute,
  redirect,
  sendHtml,
  type Scope,
} from '../ui/page.js';
import { conflictPage, markingItemPage, studentLabel, studentText } from './marking-item-view.js';
import { currentAnswerFiles, summaryOf } from '../../attempts/answer-files.js';
import { filePageHeaders } from '../assignments/answer-file-view.js';
import type { FastifyReply } from 'fastify';
import type { OpenedItem } from '../../marking/reviewer-marking.js';
import { portalReadPool } from '../portal-reads.js';
import { portalTranslator, richText } from '../ui/portal-text.js';
import { readFeedback } from './feedback-fields.js';

/**
 * Marking: the queue of the institution's assignments in `marking`, oldest
 * first, and one item's marking form. Marks are recorded as the signed-in
 * reviewer's; drafts are theirs alone; a save or finish based on marks that
 * changed meanwhile is refused with a page showing the other marks.
 */
const PAGE_SIZE = 50;

/** The queue's headline: live submissions are the count; test-mode ones (labelled Test below) get their own sentence. */
function queueSummary(t: Translator, live: number, test: number) {
  const tests = test > 0 ? html` ${t.t('portal.marking.queue.testMode', { test, count: String(test) })}` : '';
  if (live === 0) return html`${test > 0 ? t.t('portal.marking.queue.noLive') : t.t('portal.marking.queue.nothing')}${tests}`;
  return html`${richText(t, 'portal.marking.queue.waiting', { live, count: html`<strong>${live}</strong>` })}${tests}`;
}
const ItemParams = Type.Object({ assignmentId: Type.String({ maxLength: 64 }) });

export const markingPages: FastifyPluginAsyncTypebox<{ ctx: AppContext }> = async (app, { ctx }) => {
  /** The marking form with the item's file answers (images and PDFs shown inline, so the page allows them as images and frames). */
  async function itemPage(scope: Scope, opened: OpenedItem, opts: Omit<Parameters<typeof markingItemPage>[3], 'files'>): Promise<string> {
    const hasFiles = [...opened.questions.values()].some((q) => q.type === 'file_upload');
    const files = hasFiles ? await currentAnswerFiles(ctx.pool, scope.institutionId, opened.view.assignmentId) : null;
    return markingItemPage(ctx, scope, opened, { ...opts, files: files ? new Map([...files].map(([q, f]) => [q, summaryOf(f)])) : undefined });
  }
  const sendFilePage = (reply: FastifyReply, body: string, status = 200) => reply.code(status).headers(filePageHeaders(ctx)).send(body);

  app.get(
    '/marking',
    {
      schema: {
        ...pageRoute,
        querystring: Type.Object({ ...InstitutionQuery, ...DoneQuery, testId: Type.Optional(Type.String({ maxLength: 64 })), page: Type.Optional(Type.Integer({ minimum: 1, maximum: 100_000 })) }),
        response: { 200: Html },
      },
    },
    async (request, reply) => {
      const scope = await institutionScope(ctx, request, 'mark');
      if (!scope) {
        const t = portalTranslator();
        return sendHtml(reply, await chooseInstitution(ctx, request.staff!, 'marking', t.t('portal.marking.title'), '/portal/marking', t));
      }
      const { t } = scope;
      const pageNo = request.query.page ?? 1;
      const testId = request.query.testId || undefined;
      // The queue may be a little behind: the read replica's, once it has this browser's own marks (portal-reads.ts).
      const db = portalReadPool(ctx, request);
      const queue = await listMarkingQueue(db, { institutionId: scope.institutionId, testId, limit: PAGE_SIZE, offset: (pageNo - 1) * PAGE_SIZE });
      const titles = await listTestTitles(db, queue.byTest.map((w) => w.testId));
      // Admins decide whether to let the model decide alone: the agreement of the chosen test, on their institution's marks.
      const agreement = testId && can(scope.p, 'manage_integration') ? await getAiAgreement(ctx.pool, testId, { institutionId: scope.institutionId }).catch(notFoundAsNull) : null;
      const now = ctx.clock.now();
      // The list holds both modes, so its pages follow both counts.
      const chosen = testId ? queue.byTest.find((w) => w.testId === testId) : undefined;
      const shown = testId ? (chosen?.count ?? 0) + (chosen?.testCount ?? 0) : queue.total + queue.testTotal;
      const main = html`<h1>${t.t('portal.marking.title')}</h1>
<p class="lede">${queueSummary(t, queue.total, queue.testTotal)}</p>
${aiStatusNotice(aiMarkingStatus(ctx.config), t)}
${queue.byTest.length > 0
  ? dataTable({
      caption: t.t('portal.marking.perTest.caption'),
      columns: [
        { label: t.t('portal.marking.perTest.test') },
        { label: t.t('portal.marking.perTest.waiting'), numeric: true },
        ...(queue.testTotal > 0 ? [{ label: t.t('portal.marking.perTest.testMode'), numeric: true }] : []),
      ],
      rows: queue.byTest.map((w) => [
        w.testId === testId
          ? html`${titles.get(w.testId) ?? w.testId} <span class="hint">${t.t('portal.marking.perTest.shownBelow')}</span>`
          : html`<a href="${scope.link('/portal/marking', { testId: w.testId })}">${titles.get(w.testId) ?? w.testId}</a>`,
        w.count,
        ...(queue.testTotal > 0 ? [w.testCount] : []),
      ]),
    })
  : ''}
${testId ? html`<p><a href="${scope.link('/portal/marking')}">${t.t('portal.marking.showEveryTest')}</a></p>` : ''}
${agreement ? agreementSection(agreement, t, 'institution') : ''}
${dataTable({
  caption: testId ? t.t('portal.marking.queue.captionForTest', { test: titles.get(testId) ?? testId }) : t.t('portal.marking.queue.caption'),
  stack: true,
  columns: [
    { label: t.t('portal.marking.queue.student') },
    { label: t.t('portal.marking.queue.test') },
    { label: t.t('portal.marking.queue.submitted') },
    { label: t.t('portal.marking.queue.action') },
  ],
  rows: queue.data.map((item) => [
    item.livemode ? studentLabel(item) : html`${testBadge(t)} ${studentLabel(item)}`,
    titles.get(item.testId) ?? item.testId,
    item.submittedAt ? html`${whenShort(item.submittedAt, t)} <span class="hint">${t.t('portal.marking.queue.ago', { ago: ago(item.submittedAt, now, t) })}</span>` : '–',
    html`<a href="${scope.link(`/portal/marking/${item.assignmentId}`)}">${t.t('portal.marking.queue.mark')}<span class="sr-only"> ${t.t('portal.marking.queue.markWhose', { student: studentText(item) })}</span></a>`,
  ]),
  empty: t.t('portal.marking.queue.empty'),
})}
${pager({
  label: t.t('portal.marking.queue.pages'),
  newerHref: pageNo > 1 ? scope.link('/portal/marking', { testId, page: String(pageNo - 1) }) : null,
  newerText: t.t('portal.pager.previous'),
  olderHref: pageNo * PAGE_SIZE < shown ? scope.link('/portal/marking', { testId, page: String(pageNo + 1) }) : null,
  olderText: t.t('portal.pager.next'),
  t,
})}`;
      return sendHtml(reply, layoutFor(scope, { title: t.t('portal.marking.title'), current: 'marking', main, flash: flashFrom(request, t) }));
    },
  );

  app.get(
    '/marking/:assignmentId',
    { schema: { ...pageRoute, params: ItemParams, querystring: Type.Object({ ...InstitutionQuery, ...DoneQuery }), response: { 200: Html } } },
    async (request, reply) => {
      const scope = await institutionScope(ctx, request, 'mark');
      if (!scope) throw notFound('assignment');
      const opened = await openMarkingItem(ctx, scope.institutionId, request.params.assignmentId, reviewerOf(scope));
      return sendFilePage(reply, await itemPage(scope, opened, { flash: flashFrom(request, scope.t) }));
    },
  );

  app.post(
    '/marking/:assignmentId',
    {
      schema: {
        ...pageRoute,
        consumes: FORM,
        params: ItemParams,
        // One points-<questionId>, comment-<questionId> and feedback-<questionId> field per item awaiting a reviewer, and feedback-overall.
        body: Type.Object(
          {
            csrf: Type.Optional(Type.String({ maxLength: 200 })),
            institution: Type.Optional(Type.String({ maxLength: 64 })),
            version: Type.String({ maxLength: 64 }),
            action: Type.Union([Type.Literal('save'), Type.Literal('finish')]),
          },
          { additionalProperties: Type.String({ maxLength: 20_000 }) },
        ),
        response: { 303: Redirect, 400: Html, 409: Html },
      },
    },
    async (request, reply) => {
      const scope = await institutionScope(ctx, request, 'mark');
      if (!scope) throw notFound('assignment');
      const { assignmentId } = request.params;
      const body = request.body as Record<string, string>;
      const opened = await openMarkingItem(ctx, scope.institutionId, assignmentId, reviewerOf(scope));
      const manual = opened.view.items.filter((i) => i.needsMarking);
      const read = readMarks(manual, body, scope.t);
      const { feedback, errors: feedbackErrors } = readFeedback(manual.map((i) => i.questionId), body, scope.t);
      // The form replaces the stored feedback: keep what the operator API wrote on questions the form has no field for.
      const fielded = new Set(manual.map((i) => i.questionId));
      feedback.questions = [...(feedback.questions ?? []), ...(opened.view.feedback?.questions ?? []).filter((q) => !fielded.has(q.questionId))];
      const marks = read.marks;
      const errors = [...read.errors, ...feedbackErrors];
      const submitted = { values: body, baseVersion: request.body.version };
      if (errors.length > 0) return sendFilePage(reply, await itemPage(scope, opened, { errors, submitted }), 400);
      try {
        if (request.body.action === 'save') {
          await saveMarkingDraft(ctx, { institutionId: scope.institutionId, assignmentId, staffId: scope.p.staffId, marks, feedback, baseVersion: request.body.version }, auditContext(request));
          return redirect(reply, scope.link(`/portal/marking/${assignmentId}`, { done: 'draft-saved' }));
        }
        await finishMarking(ctx, { institutionId: scope.institutionId, assignmentId, markedBy: scope.p.email, marks, feedback, baseVersion: request.body.version }, auditContext(request));
        return redirect(reply, scope.link('/portal/marking', { done: 'marking-finished' }));
      } catch (err) {
        if (err instanceof MarksChangedError) {
          const now = await openMarkingItem(ctx, scope.institutionId, assignmentId, reviewerOf(scope));
          return sendHtml(reply, conflictPage(scope, now, marks), 409);
        }
        return sendFilePage(reply, await itemPage(scope, opened, { errors: formErrors(err, 'version'), submitted }), 400);
      }
    },
  );

  app.post(
    '/marking/:assignmentId/accept-ai',
    {
      schema: {
        ...pageRoute,
        consumes: FORM,
        params: ItemParams,
        body: Type.Object({ ...CsrfBody, version: Type.String({ maxLength: 64 }) }),
        response: { 303: Redirect, 400: Html, 409: Html },
      },
    },
    async (request, reply) => {
      const scope = await institutionScope(ctx, request, 'mark');
      if (!scope) throw notFound('assignment');
      const { assignmentId } = request.params;
      const opened = await openMarkingItem(ctx, scope.institutionId, assignmentId, reviewerOf(scope));
      const waiting = opened.view.items.filter((i) => i.needsMarking);
      const complete = waiting.length > 0 && waiting.every((i) => i.ai?.status === 'suggested');
      try {
        const view = await acceptAiSuggestionsAsReviewer(
          ctx,
          { institutionId: scope.institutionId, assignmentId, markedBy: scope.p.email, baseVersion: request.body.version, complete },
          auditContext(request),
        );
        if (view.status === 'completed') return redirect(reply, scope.link('/portal/marking', { done: 'ai-accepted' }));
        return redirect(reply, scope.link(`/portal/marking/${assignmentId}`, { done: 'ai-accepted-partly' }));
      } catch (err) {
        if (err instanceof MarksChangedError) {
          const now = await openMarkingItem(ctx, scope.institutionId, assignmentId, reviewerOf(scope));
          return sendHtml(reply, conflictPage(scope, now, []), 409);
        }
        return sendFilePage(reply, await itemPage(scope, opened, { errors: formErrors(err, 'version') }), 400);
      }
    },
  );
};

/** A test id from the address that the institution cannot see: no agreement table, the rest of the page as usual. */
function notFoundAsNull(err: unknown): null {
  if (err instanceof AppError && err.code === 'not_found') return null;
  throw err;
}

function reviewerOf(scope: Scope) {
  return { staffId: scope.p.staffId, label: scope.p.name ?? scope.p.email };
}

/**
 * The form's fields as marks: empty points are "not marked yet" (null);
 * anything else must be a number. An item with criteria has a points and a
 * comment field per criterion (`criterion-<questionId>-<n>`,
 * `criterion-comment-<questionId>-<n>`) and no points field: its points are
 * the criteria's sum.
 */
export function readMarks(
  items: Array<{ questionId: string; criteria: Array<{ criterion: string }> | null }>,
  body: Record<string, string>,
  t: Translator = portalTranslator(),
): { marks: DraftMark[]; errors: ErrorDetail[] } {
  const errors: ErrorDetail[] = [];
  const number = (field: string): number | null => {
    const raw = (body[field] ?? '').trim().replace(',', '.');
    if (raw === '') return null;
    const points = /^\d+(\.\d+)?$/.test(raw) ? Number(raw) : NaN;
    if (!Number.isFinite(points)) errors.push({ field, message: t.t('portal.marking.error.pointsNumber') });
    return Number.isFinite(points) ? points : null;
  };
  const text = (field: string): string => {
    const value = (body[field] ?? '').trim();
    if (value.length > 10_000) errors.push({ field, message: t.t('portal.marking.error.commentTooLong') });
    return value;
  };
  const marks = items.map(({ questionId, criteria }): DraftMark => {
    const comment = text(`comment-${questionId}`);
    if (!criteria) return { questionId, points: number(`points-${questionId}`), comment };
    const given = criteria.map((c, n) => ({ criterion: c.criterion, points: number(`criterion-${questionId}-${n}`), comment: text(`criterion-comment-${questionId}-${n}`) }));
    const points = given.every((c) => c.points !== null) ? Math.round(given.reduce((s, c) => s + c.points!, 0) * 10_000) / 10_000 : null;
    return { questionId, points, comment, criteria: given };
  });
  return { marks, errors };
}
