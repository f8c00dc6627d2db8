import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { AppContext } from '../../../platform/context.js';
import type { Pool } from '../../../platform/db.js';
import { portalReadPool } from '../portal-reads.js';
import { html } from '../../../platform/web/html.js';
import { averageScoreByTest, completionsPerDay, countAssignmentsByStatus } from '../../assignments/assignment-stats.js';
import { ASSIGNMENT_STATUSES } from '../../lifecycle/state-machine.js';
import { listTestTitles } from '../../catalog/tests-service.js';
import { deliveryHealth } from '../../webhooks/delivery-log.js';
import { ago, dataTable, statusLabel, when } from '../ui/components.js';
import { institutionPage, layoutFor, type Scope } from '../ui/page.js';
import { barChart } from './bar-chart.js';

/** Overview: the institution at a glance, from the same figures the other pages list. */
const DAYS = 14;
const HEALTH_WINDOW_MS = 7 * 24 * 60 * 60 * 1000;
const DAY_LABEL = new Intl.DateTimeFormat('en-GB', { weekday: 'short', day: 'numeric', month: 'short', timeZone: 'UTC' });

export const overviewPages: FastifyPluginAsyncTypebox<{ ctx: AppContext }> = async (app, { ctx }) => {
  institutionPage(app, ctx, { path: '/', nav: 'overview', title: 'Overview', permission: 'read' }, async (scope, flash, request) =>
    // Counts and averages may be a little behind: the read replica's, within its bound (portal-reads.ts).
    layoutFor(scope, { title: 'Overview', current: 'overview', main: await overviewPage(ctx, portalReadPool(ctx, request), scope), flash }),
  );
};

async function overviewPage(ctx: AppContext, db: Pool, scope: Scope) {
  const now = ctx.clock.now();
  const [counts, days, averages, health] = await Promise.all([
    countAssignmentsByStatus(db, scope.institutionId),
    completionsPerDay(db, scope.institutionId, now, DAYS),
    averageScoreByTest(db, scope.institutionId),
    // Live only, like every figure here: a sandbox's failing test endpoint says nothing of the integration's health.
    deliveryHealth(db, scope.institutionId, new Date(now.getTime() - HEALTH_WINDOW_MS), true),
  ]);
  const titles = await listTestTitles(db, averages.map((a) => a.testId));
  const total = [...counts.values()].reduce((s, n) => s + n, 0);
  const completedInSpan = days.reduce((s, d) => s + d.count, 0);
  const dayLabel = (d: string) => DAY_LABEL.format(new Date(`${d}T00:00:00Z`));
  const rate = health.successRate === null ? null : Math.round(health.successRate * 1000) / 10;

  return html`<h1>Overview</h1>
<p class="lede">${scope.institutionName}: ${total} assignment${total === 1 ? '' : 's'} in all.</p>
<section aria-labelledby="by-status">
<h2 id="by-status">Assignments by status</h2>
<dl class="cards">
${ASSIGNMENT_STATUSES.map(
  (s) => html`<div><dt><a href="${scope.link('/portal/assignments', { status: s })}">${statusLabel(s)}</a></dt><dd>${counts.get(s) ?? 0}</dd></div>`,
)}
</dl>
</section>
<div class="grid">
<section class="panel" aria-labelledby="per-day">
<h2 id="per-day">Completions per day</h2>
<p class="hint">The last ${DAYS} days (UTC): ${completedInSpan} completed.</p>
${barChart({ bars: days.map((d) => ({ label: dayLabel(d.day), short: d.day.slice(8), value: d.count })), valueLabel: 'completed' })}
<details class="figures">
<summary>The chart’s figures as a table</summary>
${dataTable({
  caption: `Completions per day, the last ${DAYS} days`,
  columns: [{ label: 'Day' }, { label: 'Completed', numeric: true }],
  rows: [...days].reverse().map((d) => [html`<time datetime="${d.day}">${dayLabel(d.day)}</time>`, d.count]),
})}
</details>
</section>
<div>
<section class="panel" aria-labelledby="scores">
<h2 id="scores">Average score per test</h2>
${dataTable({
  caption: 'Average final score of completed assignments, per test',
  captionHidden: true,
  columns: [{ label: 'Test' }, { label: 'Completed', numeric: true }, { label: 'Average score', numeric: true }],
  rows: averages.map((a) => [
    html`<a href="${scope.link('/portal/assignments', { testId: a.testId, status: 'completed' })}">${titles.get(a.testId) ?? a.testId}</a>`,
    a.completed,
    a.averagePercent === null ? '–' : `${a.averagePercent}%`,
  ]),
  empty: 'No assignment has been completed yet.',
})}
</section>
<section class="panel" aria-labelledby="webhook-health">
<h2 id="webhook-health">Webhook deliveries</h2>
<p class="hint">Live deliveries only; test-mode ones are listed on the Webhooks page.</p>
<dl class="facts">
<dt>Success rate (7 days)</dt><dd>${rate === null ? 'No delivery settled in the last 7 days' : `${rate}% (${health.succeeded} delivered, ${health.failed} failed)`}</dd>
<dt>Pending now</dt><dd>${health.pending}</dd>
<dt>Oldest pending</dt><dd>${
    health.oldestPending
      ? html`<a href="${scope.link(`/portal/webhooks/${health.oldestPending.endpointId}`, { status: 'pending' })}"><code>${health.oldestPending.eventType}</code></a>, waiting since ${when(health.oldestPending.createdAt)} (${ago(health.oldestPending.createdAt, now)})`
      : 'None: every delivery has settled'
  }</dd>
</dl>
</section>
</div>
</div>`;
}
