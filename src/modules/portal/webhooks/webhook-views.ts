import type { AppContext } from '../../../platform/context.js';
import type { ErrorDetail } from '../../../platform/errors.js';
import { html, type SafeHtml } from '../../../platform/web/html.js';
import { ASSIGNMENT_EVENT_TYPES, TEST_EVENT_TYPE } from '../../lifecycle/event-types.js';
import { can } from '../../staff/principal.js';
import { listEndpointDeliveries } from '../../webhooks/delivery-log.js';
import { listEndpoints, type EndpointView } from '../../webhooks/manage-endpoints.js';
import { csrfField, dataTable, errorFor, errorSummary, fieldId, hiddenFields, pager, postButton, selectField, statusBadge, testBadge, textField, when, whenShort, type Flash } from '../ui/components.js';
import { layoutFor, operatorField, type Scope } from '../ui/page.js';
import { DELIVERY_STATUSES, type DeliveryStatus } from '../../webhooks/webhook-statuses.js';

const LOG_PAGE = 25;

const DISABLED_WHY: Record<string, string> = {
  partner: 'disabled by your institution',
  operator: 'disabled by the Assay operator',
  gone: 'disabled because it answered 410 Gone',
  failing: 'disabled after 5 days of failed deliveries',
};

export function endpointStatus(e: EndpointView): SafeHtml {
  return html`${statusBadge(e.status)}${e.disabledReason ? html` <span class="hint">${DISABLED_WHY[e.disabledReason] ?? ''}</span>` : ''}${
    e.status === 'enabled' && e.failingSince ? html` <span class="hint">failing since ${when(e.failingSince)}</span>` : ''
  }`;
}

function secretBox(title: string, secret: string, note: SafeHtml): SafeHtml {
  return html`<section class="secret" aria-labelledby="secret-title">
<h2 id="secret-title">${title}</h2>
${note}
<div class="secret-value">
<code id="new-secret" tabindex="0" aria-label="The signing secret">${secret}</code>
<button type="button" class="button" data-copy="new-secret" data-copy-status="copy-status" hidden>Copy secret</button>
</div>
<p class="copy-status" id="copy-status" role="status"></p>
</section>`;
}

export async function endpointsPage(
  ctx: AppContext,
  scope: Scope,
  opts: {
    flash?: Flash | null;
    errors?: ErrorDetail[];
    form?: { url: string; description: string; eventTypes: string[] };
    secret?: { endpointId: string; url: string; secret: string };
  },
): Promise<string> {
  const { data } = await listEndpoints(ctx, scope.institutionId, { limit: 100, offset: 0 });
  const manage = can(scope.p, 'manage_integration');
  const form = opts.form ?? { url: '', description: '', eventTypes: [] };
  const typesError = errorFor(opts.errors, 'eventTypes');
  const main = html`
${opts.secret
  ? secretBox(
      'Your endpoint’s signing secret',
      opts.secret.secret,
      html`<p>Deliveries to <code>${opts.secret.url}</code> are signed with this secret (Standard Webhooks). Store it with your receiver now. <strong>It will not be shown again</strong>; you can rotate it later.</p>
<p><a href="${scope.link(`/portal/webhooks/${opts.secret.endpointId}`)}">Open the endpoint</a> to send a test event.</p>`,
    )
  : ''}
<h1>Webhooks</h1>
<p class="lede">Assay posts signed events (<code>exam.started</code>, <code>exam.completed</code>, <code>grading.done</code>, …) to these endpoints, retrying for up to 5 days. Open an endpoint to see every delivery and its responses.</p>
${errorSummary(opts.errors)}
${dataTable({
  caption: html`Endpoints of ${scope.institutionName}`,
  stack: true,
  columns: [{ label: 'URL' }, { label: 'Events' }, { label: 'Status' }, { label: 'Created' }],
  rows: data.map((e) => [
    html`<a href="${scope.link(`/portal/webhooks/${e.endpointId}`)}">${e.url}</a>${e.description ? html`<br><span class="hint">${e.description}</span>` : ''}`,
    e.eventTypes ? e.eventTypes.join(', ') : 'All event types',
    e.livemode ? endpointStatus(e) : html`${testBadge()} ${endpointStatus(e)}`,
    whenShort(e.createdAt),
  ]),
  empty: 'No webhook endpoints yet.',
})}
${manage
  ? html`<form method="post" action="/portal/webhooks" class="panel" novalidate>
<h2>Add an endpoint</h2>
${csrfField(scope.p.sessionCsrf)}${hiddenFields(operatorField(scope))}
${textField({ name: 'url', label: 'Endpoint URL', type: 'url', value: form.url, hint: 'An https: URL on a public host.', error: errorFor(opts.errors, 'url'), maxlength: 2048, autocomplete: 'off' })}
${textField({ name: 'description', label: 'Description', value: form.description, hint: 'Optional, for your own reference.', error: errorFor(opts.errors, 'description'), maxlength: 500 })}
<fieldset id="${fieldId('eventTypes')}"${typesError ? html` aria-describedby="types-error"` : ''}>
<legend>Events to send</legend>
<p class="hint">Tick none to receive every event type, including types added later.</p>
${typesError ? html`<p class="field-error" id="types-error">${typesError}</p>` : ''}
<div class="checks">${ASSIGNMENT_EVENT_TYPES.map(
      (t) => html`<div class="check"><input type="checkbox" name="eventTypes" value="${t}" id="type-${t.replace('.', '-')}"${form.eventTypes.includes(t) ? html` checked` : ''}><label for="type-${t.replace('.', '-')}"><code>${t}</code></label></div>`,
    )}</div>
</fieldset>
<button type="submit" class="button primary">Add endpoint</button>
</form>`
  : ''}`;
  return layoutFor(scope, { title: 'Webhooks', current: 'webhooks', main, flash: opts.flash ?? null });
}

export async function endpointPage(
  ctx: AppContext,
  scope: Scope,
  e: EndpointView,
  opts: {
    status?: DeliveryStatus | undefined;
    eventType?: string | undefined;
    before?: number | undefined;
    flash?: Flash | null;
    rotated?: { secret: string; previousSecretExpiresAt: Date };
  },
): Promise<string> {
  const log = await listEndpointDeliveries(ctx.pool, {
    institutionId: scope.institutionId,
    endpointId: e.endpointId,
    status: opts.status,
    eventType: opts.eventType,
    beforeId: opts.before,
    limit: LOG_PAGE,
  });
  const manage = can(scope.p, 'manage_integration');
  const csrf = scope.p.sessionCsrf;
  const here = `/portal/webhooks/${e.endpointId}`;
  const filters = { status: opts.status, eventType: opts.eventType };
  const main = html`
${opts.rotated
  ? secretBox(
      'The endpoint’s new signing secret',
      opts.rotated.secret,
      html`<p>Until ${when(opts.rotated.previousSecretExpiresAt)} every delivery carries signatures by both the new and the previous secret, so you can switch your receiver at any moment in that window. <strong>This secret will not be shown again.</strong></p>`,
    )
  : ''}
<nav class="breadcrumbs" aria-label="Breadcrumb"><ol><li><a href="${scope.link('/portal/webhooks')}">Webhooks</a></li><li aria-current="page">Endpoint</li></ol></nav>
<h1>${e.url}</h1>
<dl class="facts">
<dt>Status</dt><dd>${endpointStatus(e)}</dd>
<dt>Events</dt><dd>${e.eventTypes ? e.eventTypes.join(', ') : 'All event types'}</dd>
${e.description ? html`<dt>Description</dt><dd>${e.description}</dd>` : ''}
<dt>Endpoint id</dt><dd><code>${e.endpointId}</code></dd>
<dt>Created</dt><dd>${when(e.createdAt)}</dd>
</dl>
${manage
  ? html`<div class="actions panel">
${e.status === 'enabled' ? postButton({ action: `${here}/test`, label: 'Send test event', csrf, variant: 'primary', fields: operatorField(scope) }) : ''}
${e.status === 'enabled'
  ? postButton({ action: `${here}/status`, label: 'Disable endpoint', csrf, fields: { status: 'disabled', ...operatorField(scope) } })
  : e.disabledReason === 'operator'
    ? ''
    : postButton({ action: `${here}/status`, label: 'Enable endpoint', csrf, variant: 'primary', fields: { status: 'enabled', ...operatorField(scope) } })}
${postButton({ action: `${here}/rotate-secret`, label: 'Rotate secret', csrf, fields: operatorField(scope) })}
</div>`
  : ''}
<h2 id="log-title">Delivery log</h2>
<form method="get" action="${here}" class="filters" aria-labelledby="log-title">
${hiddenFields(operatorField(scope))}
${selectField({ name: 'status', label: 'Status', value: opts.status ?? '', options: [{ value: '', label: 'Any status' }, ...DELIVERY_STATUSES.map((s) => ({ value: s, label: s[0]!.toUpperCase() + s.slice(1) }))] })}
${selectField({ name: 'eventType', label: 'Event type', value: opts.eventType ?? '', options: [{ value: '', label: 'Any event type' }, ...[...ASSIGNMENT_EVENT_TYPES, TEST_EVENT_TYPE].map((t) => ({ value: t, label: t }))] })}
<div class="actions"><button type="submit" class="button">Filter</button></div>
</form>
${dataTable({
  caption: opts.status || opts.eventType ? 'Deliveries (filtered), newest first' : 'Deliveries, newest first',
  stack: true,
  columns: [{ label: 'Event' }, { label: 'Status' }, { label: 'Attempts', numeric: true }, { label: 'Last response' }, ...(manage ? [{ label: 'Action' }] : [])],
  rows: log.data.map((d) => [
    html`<code>${d.eventType}</code><br><span class="hint"><code>${d.eventId}</code><br>${whenShort(d.eventCreatedAt)}</span>${
      d.assignmentId ? html`<br><a href="${scope.link(`/portal/assignments/${d.assignmentId}`)}">Assignment<span class="sr-only"> of event ${d.eventId}</span></a>` : ''
    }`,
    html`${statusBadge(d.status)}${d.nextAttemptAt ? html`<br><span class="hint">next attempt ${whenShort(d.nextAttemptAt)}</span>` : ''}`,
    d.attemptCount,
    d.lastAttempt
      ? html`${d.lastAttempt.statusCode !== null ? html`HTTP ${d.lastAttempt.statusCode}` : (d.lastAttempt.errorClass ?? 'no response')} in ${d.lastAttempt.durationMs} ms, ${whenShort(d.lastAttempt.attemptedAt)}${
          d.lastAttempt.responseExcerpt ? html`<code class="excerpt">${d.lastAttempt.responseExcerpt.slice(0, 300)}</code>` : ''
        }`
      : 'Not attempted yet',
    ...(manage
      ? [
          e.status === 'enabled'
            ? postButton({ action: `${here}/redeliver`, label: html`Redeliver<span class="sr-only"> ${d.eventId}</span>`, csrf, fields: { eventId: d.eventId, ...operatorField(scope) } })
            : html`<span class="hint">Enable the endpoint to redeliver</span>`,
        ]
      : []),
  ]),
  empty: opts.status || opts.eventType ? 'No delivery matches these filters.' : 'Nothing has been delivered to this endpoint yet.',
})}
${pager({
  label: 'Delivery log pages',
  newerHref: opts.before ? scope.link(here, filters) : null,
  newerText: 'Newest',
  olderHref: log.nextBeforeId ? scope.link(here, { ...filters, before: String(log.nextBeforeId) }) : null,
})}`;
  return layoutFor(scope, { title: `Webhook endpoint ${e.url}`, current: 'webhooks', main, flash: opts.flash ?? null });
}
