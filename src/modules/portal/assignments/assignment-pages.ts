import { Type } from '@sinclair/typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { notFound } from '../../../platform/errors.js';
import { html } from '../../../platform/web/html.js';
import type { AssignmentsContext } from '../../assignments/context.js';
import { listAssignments } from '../../assignments/list-assignments.js';
import { listTestsForPartner, listTestTitles } from '../../catalog/tests-service.js';
import { dataTable, errorFor, errorSummary, hiddenFields, pager, selectField, statusBadge, testBadge, textField, whenShort } from '../ui/components.js';
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

const MODE_OPTIONS = [
  { value: 'live', label: 'Live' },
  { value: 'test', label: 'Test' },
  { value: 'all', label: 'All (live and test)' },
];

/** What the table holds, in the caption and the empty message: the mode shown changes both. */
function listWording(mode: AssignmentMode, filtered: boolean): { caption: string; empty: string } {
  const what = { live: 'Assignments', test: 'Test-mode assignments', all: 'Live and test-mode assignments' }[mode];
  if (filtered) return { caption: `Matching ${what.toLowerCase()}, newest first`, empty: 'No assignment matches this search.' };
  if (mode === 'test') return { caption: `${what}, newest first`, empty: 'No test-mode assignments. They appear here when your integration creates them with a test key (ak_test_…).' };
  return { caption: `${what}, newest first`, empty: 'No assignments yet. They appear here when your integration creates them.' };
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
      if (!scope) return sendHtml(reply, await chooseInstitution(ctx, request.staff!, 'assignments', 'Assignments', '/portal/assignments'));
      const q = request.query;
      const { filter, errors } = parseFilters(scope.institutionId, q);
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
      const wording = listWording(mode, filtered);
      const testOptions = [{ value: '', label: 'Any test' }, ...published.data.map((t) => ({ value: t.testId, label: t.title }))];
      if (q.testId && !testOptions.some((o) => o.value === q.testId)) testOptions.push({ value: q.testId, label: titles.get(q.testId) ?? q.testId });

      const main = html`<h1>Assignments</h1>
<p class="lede">Every test assigned through your integration, newest first. Search by your own user id, or narrow by status, test and creation date (UTC). Test-mode assignments (made with a test key) are shown under Mode: Test or All, labelled Test.${can(scope.p, 'review_proctoring') ? html` Proctored attempts waiting for review are listed under <a href="${scope.link('/portal/proctoring')}">Proctoring review</a>.` : ''}</p>
${errorSummary(errors)}
<form method="get" action="/portal/assignments" class="filters" role="search" aria-label="Find assignments">
${hiddenFields(operatorField(scope))}
${textField({ name: 'q', label: 'External user id', type: 'search', value: q.q ?? '', hint: 'Starts with', maxlength: 128, autocomplete: 'off' })}
${selectField({ name: 'mode', label: 'Mode', value: mode, options: MODE_OPTIONS })}
${selectField({ name: 'status', label: 'Status', value: q.status ?? '', options: [{ value: '', label: 'Any status' }, ...ASSIGNMENT_STATUSES.map((s) => ({ value: s, label: s[0]!.toUpperCase() + s.slice(1) }))] })}
${selectField({ name: 'testId', label: 'Test', value: q.testId ?? '', options: testOptions })}
${textField({ name: 'from', label: 'Created from', type: 'date', value: q.from ?? '', error: errorFor(errors, 'from') })}
${textField({ name: 'to', label: 'Created to', type: 'date', value: q.to ?? '', error: errorFor(errors, 'to') })}
<div class="actions"><button type="submit" class="button primary">Search</button>${filtered ? html` <a href="${scope.link('/portal/assignments')}">Clear</a>` : ''}</div>
</form>
<p class="actions"><a class="button" href="${scope.link('/portal/assignments/results.csv', filterQuery as Record<string, string | undefined>)}" download>Export CSV</a> <span class="hint">Every assignment that matches these filters, one row each: scores, section percents and proctoring flags.</span></p>
${page
  ? html`${dataTable({
      caption: wording.caption,
      stack: true,
      columns: [{ label: 'External user id' }, { label: 'Test' }, { label: 'Status' }, { label: 'Score', numeric: true }, { label: 'Created' }, { label: 'Completed' }],
      rows: page.data.map((r) => [
        html`<a href="${scope.link(`/portal/assignments/${r.assignmentId}`)}">${r.externalUserId}</a>`,
        titles.get(r.testId) ?? r.testId,
        r.livemode ? statusBadge(r.status) : html`${testBadge()} ${statusBadge(r.status)}`,
        r.score ? formatScore(r.score) : '–',
        whenShort(r.createdAt),
        whenShort(r.completedAt),
      ]),
      empty: wording.empty,
    })}
${pager({
  label: 'Assignment pages',
  newerHref: page.newer ? here({ cursor: page.newer, dir: 'newer' }) : null,
  olderHref: page.older ? here({ cursor: page.older, dir: 'older' }) : null,
})}`
  : ''}`;
      return sendHtml(reply, layoutFor(scope, { title: 'Assignments', current: 'assignments', main }), errors.length > 0 ? 400 : 200);
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
      return sendHtml(reply, layoutFor(scope, { title: `Assignment of ${record.assignment.externalUserId}`, current: 'assignments', main, flash: flashFrom(request) }));
    },
  );
};
