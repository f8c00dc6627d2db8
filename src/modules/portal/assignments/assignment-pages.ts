import { Type } from '@sinclair/typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { notFound } from '../../../platform/errors.js';
import type { Translator } from '../../../platform/i18n/catalogue.js';
import { html } from '../../../platform/web/html.js';
import type { AssignmentsContext } from '../../assignments/context.js';
import { listAssignments } from '../../assignments/list-assignments.js';
import { listTestsForPartner, listTestTitles } from '../../catalog/tests-service.js';
import { dataTable, errorFor, errorSummary, hiddenFields, pager, selectField, statusBadge, statusLabel, testBadge, textField, whenShort } from '../ui/components.js';
import { portalTranslator, richText } from '../ui/portal-text.js';
import { DoneQuery, Html, InstitutionQuery, chooseInstitution, flashFrom, institutionScope, layoutFor, operatorField, pageRoute, sendHtml } from '../ui/page.js';
import { ASSIGNMENT_STATUSES } from '../../lifecycle/state-machine.js';
import { modeOf, parseFilters, type AssignmentMode, type FilterQuery } from './assignment-filters.js';
import { loadAssignmentRecord } from './load-assignment-record.js';
import { assignmentDetail } from './assignment-detail-view.js';
import { formatScore } from './answer-view.js';
import { controlsSection } from './assignment-controls-view.js';
import { can } from '../../staff/principal.js';
import { portalReadPool } from '../portal-reads.js';

/**
 * Assignments: search by externalUserId (prefix), filter by mode (live by
 * default, test or all), status, test and creation date, 50 to a page by keyset (listAssignments), and one
 * assignment's record: timeline, answers with option texts, marks, score.
 */
const PAGE_SIZE = 50;
const Text = (max: number) => Type.Optional(Type.String({ maxLength: max }));

const modeOptions = (t: Translator) => [
  { value: 'live', label: t.t('portal.assignments.mode.live') },
  { value: 'test', label: t.t('portal.assignments.mode.test') },
  { value: 'all', label: t.t('portal.assignments.mode.all') },
];

/** What the table holds, in the caption and the empty message: the mode shown changes both. */
function listWording(t: Translator, mode: AssignmentMode, filtered: boolean): { caption: string; empty: string } {
  if (filtered) return { caption: t.t('portal.assignments.captionMatching', { mode }), empty: t.t('portal.assignments.emptyMatching') };
  if (mode === 'test') return { caption: t.t('portal.assignments.caption', { mode }), empty: t.t('portal.assignments.emptyTest') };
  return { caption: t.t('portal.assignments.caption', { mode }), empty: t.t('portal.assignments.empty') };
}

export const assignmentPages: FastifyPluginAsyncTypebox<{ ctx: AssignmentsContext }> = async (app, { ctx }) => {
  app.get(
    '/assignments',
    {
      schema: {
        ...pageRoute,
        querystring: Type.Object({
          ...InstitutionQuery,
          q: Text(128),
          mode: Text(10),
          status: Text(20),
          testId: Text(64),
          from: Text(20),
          to: Text(20),
          cursor: Text(120),
          dir: Type.Optional(Type.Union([Type.Literal('older'), Type.Literal('newer')])),
        }),
        response: { 200: Html, 400: Html },
      },
    },
    async (request, reply) => {
      const scope = await institutionScope(ctx, request, 'read');
      if (!scope) {
        const t = portalTranslator();
        return sendHtml(reply, await chooseInstitution(ctx, request.staff!, 'assignments', t.t('portal.nav.assignments'), '/portal/assignments', t));
      }
      const { t } = scope;
      const q = request.query;
      const { filter, errors } = parseFilters(scope.institutionId, q, t);
      // A list that may be a little behind: the read replica's, once it has this browser's own writes (portal-reads.ts).
      const db = portalReadPool(ctx, request);
      const [page, published] = await Promise.all([
        errors.length > 0 ? null : listAssignments(db, filter, { limit: PAGE_SIZE, cursor: q.cursor, direction: q.dir ?? 'older' }),
        listTestsForPartner(db, scope.institutionId, { limit: 100, offset: 0 }),
      ]);
      const titles = await listTestTitles(db, [...new Set([...(page?.data ?? []).map((r) => r.testId), ...(q.testId ? [q.testId] : [])])]);
      const mode = modeOf(q.mode);
      // The default mode stays out of the links, as it stays out of "filtered".
      const filterQuery: FilterQuery = { q: q.q, mode: mode === 'live' ? undefined : mode, status: q.status, testId: q.testId, from: q.from, to: q.to };
      const here = (extra: Record<string, string | undefined>) => scope.link('/portal/assignments', { ...filterQuery, ...extra } as Record<string, string | undefined>);
      const filtered = Object.entries(filterQuery).some(([k, v]) => v && k !== 'mode');
      const wording = listWording(t, mode, filtered);
      const testOptions = [{ value: '', label: t.t('portal.assignments.anyTest') }, ...published.data.map((p) => ({ value: p.testId, label: p.title }))];
      if (q.testId && !testOptions.some((o) => o.value === q.testId)) testOptions.push({ value: q.testId, label: titles.get(q.testId) ?? q.testId });

      const main = html`<h1>${t.t('portal.nav.assignments')}</h1>
<p class="lede">${t.t('portal.assignments.lede')}${can(scope.p, 'review_proctoring')
  ? html` ${richText(t, 'portal.assignments.proctoringLink', { link: html`<a href="${scope.link('/portal/proctoring')}">${t.t('portal.proctoring.queue.title')}</a>` })}`
  : ''}</p>
${errorSummary(errors, t)}
<form method="get" action="/portal/assignments" class="filters" role="search" aria-label="${t.t('portal.assignments.search.label')}">
${hiddenFields(operatorField(scope))}
${textField({ name: 'q', label: t.t('portal.assignments.externalUserId'), type: 'search', value: q.q ?? '', hint: t.t('portal.assignments.search.startsWith'), maxlength: 128, autocomplete: 'off', t })}
${selectField({ name: 'mode', label: t.t('portal.assignments.search.mode'), value: mode, options: modeOptions(t) })}
${selectField({
  name: 'status',
  label: t.t('portal.assignments.status'),
  value: q.status ?? '',
  options: [{ value: '', label: t.t('portal.assignments.anyStatus') }, ...ASSIGNMENT_STATUSES.map((s) => ({ value: s, label: statusLabel(s, t) }))],
})}
${selectField({ name: 'testId', label: t.t('portal.assignments.test'), value: q.testId ?? '', options: testOptions })}
${textField({ name: 'from', label: t.t('portal.assignments.search.from'), type: 'date', value: q.from ?? '', error: errorFor(errors, 'from'), t })}
${textField({ name: 'to', label: t.t('portal.assignments.search.to'), type: 'date', value: q.to ?? '', error: errorFor(errors, 'to'), t })}
<div class="actions"><button type="submit" class="button primary">${t.t('portal.assignments.search.submit')}</button>${filtered ? html` <a href="${scope.link('/portal/assignments')}">${t.t('portal.assignments.search.clear')}</a>` : ''}</div>
</form>
<p class="actions"><a class="button" href="${scope.link('/portal/assignments/results.csv', filterQuery as Record<string, string | undefined>)}" download>${t.t('portal.assignments.export')}</a> <a class="button" href="${scope.link('/portal/assignments/responses.csv', filterQuery as Record<string, string | undefined>)}" download>${t.t('portal.assignments.exportResponses')}</a> <span class="hint">${t.t('portal.assignments.exportHint')}</span></p>
${page
  ? html`${dataTable({
      caption: wording.caption,
      stack: true,
      columns: [
        { label: t.t('portal.assignments.externalUserId') },
        { label: t.t('portal.assignments.test') },
        { label: t.t('portal.assignments.status') },
        { label: t.t('portal.assignments.score'), numeric: true },
        { label: t.t('portal.assignments.created') },
        { label: t.t('portal.assignments.completed') },
      ],
      rows: page.data.map((r) => [
        html`<a href="${scope.link(`/portal/assignments/${r.assignmentId}`)}">${r.externalUserId}</a>`,
        titles.get(r.testId) ?? r.testId,
        r.livemode ? statusBadge(r.status, t) : html`${testBadge(t)} ${statusBadge(r.status, t)}`,
        r.score ? formatScore(r.score) : '–',
        whenShort(r.createdAt, t),
        whenShort(r.completedAt, t),
      ]),
      empty: wording.empty,
    })}
${pager({
  label: t.t('portal.assignments.pages'),
  newerHref: page.newer ? here({ cursor: page.newer, dir: 'newer' }) : null,
  olderHref: page.older ? here({ cursor: page.older, dir: 'older' }) : null,
  t,
})}`
  : ''}`;
      return sendHtml(reply, layoutFor(scope, { title: t.t('portal.nav.assignments'), current: 'assignments', main }), errors.length > 0 ? 400 : 200);
    },
  );

  app.get(
    '/assignments/:assignmentId',
    { schema: { ...pageRoute, params: Type.Object({ assignmentId: Type.String({ maxLength: 64 }) }), querystring: Type.Object({ ...InstitutionQuery, ...DoneQuery }), response: { 200: Html } } },
    async (request, reply) => {
      const scope = await institutionScope(ctx, request, 'read');
      if (!scope) throw notFound('assignment');
      const record = await loadAssignmentRecord(ctx, scope.institutionId, request.params.assignmentId);
      const controls = can(scope.p, 'manage_integration') ? controlsSection(scope, record.assignment) : '';
      const main = assignmentDetail(scope, record, controls);
      const title = scope.t.t('portal.assignment.title', { student: record.assignment.externalUserId });
      return sendHtml(reply, layoutFor(scope, { title, current: 'assignments', main, flash: flashFrom(request, scope.t) }));
    },
  );
};
