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
import { portalTranslator, richText } from '../ui/portal-text.js';

/** Overview: the institution at a glance, from the same figures the other pages list. */
const DAYS = 14;
const HEALTH_WINDOW_MS = 7 * 24 * 60 * 60 * 1000;

export const overviewPages: FastifyPluginAsyncTypebox<{ ctx: AppContext }> = async (app, { ctx }) => {
  const title = portalTranslator().t('portal.nav.overview');
  institutionPage(app, ctx, { path: '/', nav: 'overview', title, permission: 'read' }, async (scope, flash, request) =>
    // Counts and averages may be a little behind: the read replica's, within its bound (portal-reads.ts).
    layoutFor(scope, { title: scope.t.t('portal.nav.overview'), current: 'overview', main: await overviewPage(ctx, portalReadPool(ctx, request), scope), flash }),
  );
};

async function overviewPage(ctx: AppContext, db: Pool, scope: Scope) {
  const { t } = scope;
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
  // A day of the chart is a UTC calendar day, whatever zone the page's times are in.
  const dayLabel = (d: string) => t.dateWith(new Date(`${d}T00:00:00Z`), { weekday: 'short', day: 'numeric', month: 'short', timeZone: 'UTC' });
  const rate = health.successRate === null ? null : Math.round(health.successRate * 1000) / 10;

  return html`<h1>${t.t('portal.nav.overview')}</h1>
<p class="lede">${t.t('portal.overview.lede', { institution: scope.institutionName, total, count: String(total) })}</p>
<section aria-labelledby="by-status">
<h2 id="by-status">${t.t('portal.overview.byStatus')}</h2>
<dl class="cards">
${ASSIGNMENT_STATUSES.map(
  (s) => html`<div><dt><a href="${scope.link('/portal/assignments', { status: s })}">${statusLabel(s, t)}</a></dt><dd>${counts.get(s) ?? 0}</dd></div>`,
)}
</dl>
</section>
<div class="grid">
<section class="panel" aria-labelledby="per-day">
<h2 id="per-day">${t.t('portal.overview.perDay')}</h2>
<p class="hint">${t.t('portal.overview.perDayHint', { days: DAYS, completed: String(completedInSpan) })}</p>
${barChart({ bars: days.map((d) => ({ label: dayLabel(d.day), short: d.day.slice(8), value: d.count })), valueLabel: t.t('portal.overview.completedUnit'), t })}
<details class="figures">
<summary>${t.t('portal.overview.chartAsTable')}</summary>
${dataTable({
  caption: t.t('portal.overview.perDayCaption', { days: DAYS }),
  columns: [{ label: t.t('portal.overview.day') }, { label: t.t('portal.overview.completed'), numeric: true }],
  rows: [...days].reverse().map((d) => [html`<time datetime="${d.day}">${dayLabel(d.day)}</time>`, d.count]),
})}
</details>
</section>
<div>
<section class="panel" aria-labelledby="scores">
<h2 id="scores">${t.t('portal.overview.averages')}</h2>
${dataTable({
  caption: t.t('portal.overview.averagesCaption'),
  captionHidden: true,
  columns: [{ label: t.t('portal.assignments.test') }, { label: t.t('portal.overview.completed'), numeric: true }, { label: t.t('portal.overview.averageScore'), numeric: true }],
  rows: averages.map((a) => [
    html`<a href="${scope.link('/portal/assignments', { testId: a.testId, status: 'completed' })}">${titles.get(a.testId) ?? a.testId}</a>`,
    a.completed,
    a.averagePercent === null ? '–' : t.t('portal.overview.percent', { percent: String(a.averagePercent) }),
  ]),
  empty: t.t('portal.overview.noneCompleted'),
})}
</section>
<section class="panel" aria-labelledby="webhook-health">
<h2 id="webhook-health">${t.t('portal.overview.webhooks')}</h2>
<p class="hint">${t.t('portal.overview.webhooksHint')}</p>
<dl class="facts">
<dt>${t.t('portal.overview.successRate')}</dt><dd>${
    rate === null
      ? t.t('portal.overview.noDelivery')
      : t.t('portal.overview.rate', { rate: String(rate), succeeded: String(health.succeeded), failed: String(health.failed) })
  }</dd>
<dt>${t.t('portal.overview.pendingNow')}</dt><dd>${health.pending}</dd>
<dt>${t.t('portal.overview.oldestPending')}</dt><dd>${
    health.oldestPending
      ? richText(t, 'portal.overview.oldest', {
          event: html`<a href="${scope.link(`/portal/webhooks/${health.oldestPending.endpointId}`, { status: 'pending' })}"><code>${health.oldestPending.eventType}</code></a>`,
          since: when(health.oldestPending.createdAt, t),
          ago: ago(health.oldestPending.createdAt, now, t),
        })
      : t.t('portal.overview.noPending')
  }</dd>
</dl>
</section>
</div>
</div>`;
}
