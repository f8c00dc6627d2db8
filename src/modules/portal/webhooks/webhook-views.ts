import type { AppContext } from '../../../platform/context.js';
import type { ErrorDetail } from '../../../platform/errors.js';
import type { MessageKey, Translator } from '../../../platform/i18n/catalogue.js';
import { html, type SafeHtml } from '../../../platform/web/html.js';
import { portalTranslator, richText } from '../ui/portal-text.js';
import { ASSIGNMENT_EVENT_TYPES, TEST_EVENT_TYPE } from '../../lifecycle/event-types.js';
import { can } from '../../staff/principal.js';
import { listEndpointDeliveries } from '../../webhooks/delivery-log.js';
import { listEndpoints, type EndpointView } from '../../webhooks/manage-endpoints.js';
import {
  csrfField,
  dataTable,
  errorFor,
  errorSummary,
  fieldId,
  hiddenFields,
  pager,
  postButton,
  selectField,
  statusBadge,
  statusLabel,
  testBadge,
  textField,
  when,
  whenShort,
  type Flash,
} from '../ui/components.js';
import { layoutFor, operatorField, type Scope } from '../ui/page.js';
import { DELIVERY_STATUSES, type DeliveryStatus } from '../../webhooks/webhook-statuses.js';

const LOG_PAGE = 25;

const DISABLED_WHY: Record<string, MessageKey> = {
  partner: 'portal.webhooks.disabled.partner',
  operator: 'portal.webhooks.disabled.operator',
  gone: 'portal.webhooks.disabled.gone',
  failing: 'portal.webhooks.disabled.failing',
};

export function endpointStatus(e: EndpointView, t: Translator = portalTranslator()): SafeHtml {
  const why = e.disabledReason ? DISABLED_WHY[e.disabledReason] : undefined;
  return html`${statusBadge(e.status, t)}${e.disabledReason ? html` <span class="hint">${why ? t.t(why) : ''}</span>` : ''}${
    e.status === 'enabled' && e.failingSince ? html` <span class="hint">${richText(t, 'portal.webhooks.failingSince', { since: when(e.failingSince, t) })}</span>` : ''
  }`;
}

function secretBox(t: Translator, title: string, secret: string, note: SafeHtml): SafeHtml {
  return html`<section class="secret" aria-labelledby="secret-title">
<h2 id="secret-title">${title}</h2>
${note}
<div class="secret-value">
<code id="new-secret" tabindex="0" aria-label="${t.t('portal.webhooks.secret.label')}">${secret}</code>
<button type="button" class="button" data-copy="new-secret" data-copy-status="copy-status" hidden>${t.t('portal.webhooks.secret.copy')}</button>
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
  const { t } = scope;
  const { data } = await listEndpoints(ctx, scope.institutionId, { limit: 100, offset: 0 });
  const manage = can(scope.p, 'manage_integration');
  const form = opts.form ?? { url: '', description: '', eventTypes: [] };
  const typesError = errorFor(opts.errors, 'eventTypes');
  const main = html`
${opts.secret
  ? secretBox(
      t,
      t.t('portal.webhooks.secret.title'),
      opts.secret.secret,
      html`<p>${richText(t, 'portal.webhooks.secret.text', { url: html`<code>${opts.secret.url}</code>`, notAgain: html`<strong>${t.t('portal.webhooks.secret.notAgain')}</strong>` })}</p>
<p>${richText(t, 'portal.webhooks.secret.openEndpoint', { link: html`<a href="${scope.link(`/portal/webhooks/${opts.secret.endpointId}`)}">${t.t('portal.webhooks.secret.openEndpointLink')}</a>` })}</p>`,
    )
  : ''}
<h1>${t.t('portal.nav.webhooks')}</h1>
<p class="lede">${richText(t, 'portal.webhooks.lede', { events: html`<code>exam.started</code>, <code>exam.completed</code>, <code>grading.done</code>` })}</p>
${errorSummary(opts.errors, t)}
${dataTable({
  caption: t.t('portal.webhooks.caption', { institution: scope.institutionName }),
  stack: true,
  columns: [
    { label: t.t('portal.webhooks.url') },
    { label: t.t('portal.webhooks.events') },
    { label: t.t('portal.assignments.status') },
    { label: t.t('portal.assignments.created') },
  ],
  rows: data.map((e) => [
    html`<a href="${scope.link(`/portal/webhooks/${e.endpointId}`)}">${e.url}</a>${e.description ? html`<br><span class="hint">${e.description}</span>` : ''}`,
    e.eventTypes ? e.eventTypes.join(', ') : t.t('portal.webhooks.allEventTypes'),
    e.livemode ? endpointStatus(e, t) : html`${testBadge(t)} ${endpointStatus(e, t)}`,
    whenShort(e.createdAt, t),
  ]),
  empty: t.t('portal.webhooks.none'),
})}
${manage
  ? html`<form method="post" action="/portal/webhooks" class="panel" novalidate>
<h2>${t.t('portal.webhooks.add.heading')}</h2>
${csrfField(scope.p.sessionCsrf)}${hiddenFields(operatorField(scope))}
${textField({ name: 'url', label: t.t('portal.webhooks.add.url'), type: 'url', value: form.url, hint: t.t('portal.webhooks.add.urlHint'), error: errorFor(opts.errors, 'url'), maxlength: 2048, autocomplete: 'off', t })}
${textField({ name: 'description', label: t.t('portal.webhooks.description'), value: form.description, hint: t.t('portal.webhooks.add.descriptionHint'), error: errorFor(opts.errors, 'description'), maxlength: 500, t })}
<fieldset id="${fieldId('eventTypes')}"${typesError ? html` aria-describedby="types-error"` : ''}>
<legend>${t.t('portal.webhooks.add.events')}</legend>
<p class="hint">${t.t('portal.webhooks.add.eventsHint')}</p>
${typesError ? html`<p class="field-error" id="types-error">${typesError}</p>` : ''}
<div class="checks">${ASSIGNMENT_EVENT_TYPES.map(
      (type) => html`<div class="check"><input type="checkbox" name="eventTypes" value="${type}" id="type-${type.replace('.', '-')}"${form.eventTypes.includes(type) ? html` checked` : ''}><label for="type-${type.replace('.', '-')}"><code>${type}</code></label></div>`,
    )}</div>
</fieldset>
<button type="submit" class="button primary">${t.t('portal.webhooks.add.submit')}</button>
</form>`
  : ''}`;
  return layoutFor(scope, { title: t.t('portal.nav.webhooks'), current: 'webhooks', main, flash: opts.flash ?? null });
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
  const { t } = scope;
  const manage = can(scope.p, 'manage_integration');
  const csrf = scope.p.sessionCsrf;
  const here = `/portal/webhooks/${e.endpointId}`;
  const filters = { status: opts.status, eventType: opts.eventType };
  const main = html`
${opts.rotated
  ? secretBox(
      t,
      t.t('portal.webhooks.rotated.title'),
      opts.rotated.secret,
      html`<p>${richText(t, 'portal.webhooks.rotated.text', {
        until: when(opts.rotated.previousSecretExpiresAt, t),
        notAgain: html`<strong>${t.t('portal.webhooks.rotated.notAgain')}</strong>`,
      })}</p>`,
    )
  : ''}
<nav class="breadcrumbs" aria-label="${t.t('portal.breadcrumb')}"><ol><li><a href="${scope.link('/portal/webhooks')}">${t.t('portal.nav.webhooks')}</a></li><li aria-current="page">${t.t('portal.webhooks.endpoint.crumb')}</li></ol></nav>
<h1>${e.url}</h1>
<dl class="facts">
<dt>${t.t('portal.assignments.status')}</dt><dd>${endpointStatus(e, t)}</dd>
<dt>${t.t('portal.webhooks.events')}</dt><dd>${e.eventTypes ? e.eventTypes.join(', ') : t.t('portal.webhooks.allEventTypes')}</dd>
${e.description ? html`<dt>${t.t('portal.webhooks.description')}</dt><dd>${e.description}</dd>` : ''}
<dt>${t.t('portal.webhooks.endpoint.id')}</dt><dd><code>${e.endpointId}</code></dd>
<dt>${t.t('portal.assignments.created')}</dt><dd>${when(e.createdAt, t)}</dd>
</dl>
${manage
  ? html`<div class="actions panel">
${e.status === 'enabled' ? postButton({ action: `${here}/test`, label: t.t('portal.webhooks.endpoint.sendTest'), csrf, variant: 'primary', fields: operatorField(scope) }) : ''}
${e.status === 'enabled'
  ? postButton({ action: `${here}/status`, label: t.t('portal.webhooks.endpoint.disable'), csrf, fields: { status: 'disabled', ...operatorField(scope) } })
  : e.disabledReason === 'operator'
    ? ''
    : postButton({ action: `${here}/status`, label: t.t('portal.webhooks.endpoint.enable'), csrf, variant: 'primary', fields: { status: 'enabled', ...operatorField(scope) } })}
${postButton({ action: `${here}/rotate-secret`, label: t.t('portal.webhooks.endpoint.rotate'), csrf, fields: operatorField(scope) })}
</div>`
  : ''}
<h2 id="log-title">${t.t('portal.webhooks.log.heading')}</h2>
<form method="get" action="${here}" class="filters" aria-labelledby="log-title">
${hiddenFields(operatorField(scope))}
${selectField({
  name: 'status',
  label: t.t('portal.assignments.status'),
  value: opts.status ?? '',
  options: [{ value: '', label: t.t('portal.assignments.anyStatus') }, ...DELIVERY_STATUSES.map((s) => ({ value: s, label: statusLabel(s, t) }))],
})}
${selectField({
  name: 'eventType',
  label: t.t('portal.webhooks.log.eventType'),
  value: opts.eventType ?? '',
  options: [{ value: '', label: t.t('portal.webhooks.log.anyEventType') }, ...[...ASSIGNMENT_EVENT_TYPES, TEST_EVENT_TYPE].map((type) => ({ value: type, label: type }))],
})}
<div class="actions"><button type="submit" class="button">${t.t('portal.webhooks.log.filter')}</button></div>
</form>
${dataTable({
  caption: opts.status || opts.eventType ? t.t('portal.webhooks.log.captionFiltered') : t.t('portal.webhooks.log.caption'),
  stack: true,
  columns: [
    { label: t.t('portal.webhooks.log.event') },
    { label: t.t('portal.assignments.status') },
    { label: t.t('portal.webhooks.log.attempts'), numeric: true },
    { label: t.t('portal.webhooks.log.lastResponse') },
    ...(manage ? [{ label: t.t('portal.marking.queue.action') }] : []),
  ],
  rows: log.data.map((d) => [
    html`<code>${d.eventType}</code><br><span class="hint"><code>${d.eventId}</code><br>${whenShort(d.eventCreatedAt, t)}</span>${
      d.assignmentId
        ? html`<br><a href="${scope.link(`/portal/assignments/${d.assignmentId}`)}">${t.t('portal.webhooks.log.assignment')}<span class="sr-only"> ${t.t('portal.webhooks.log.ofEvent', { event: d.eventId })}</span></a>`
        : ''
    }`,
    html`${statusBadge(d.status, t)}${d.nextAttemptAt ? html`<br><span class="hint">${richText(t, 'portal.webhooks.log.nextAttempt', { when: whenShort(d.nextAttemptAt, t) })}</span>` : ''}`,
    d.attemptCount,
    d.lastAttempt
      ? html`${richText(t, 'portal.webhooks.log.response', {
          outcome: d.lastAttempt.statusCode !== null ? t.t('portal.assignment.delivery.http', { code: String(d.lastAttempt.statusCode) }) : (d.lastAttempt.errorClass ?? t.t('portal.assignment.delivery.noResponse')),
          ms: String(d.lastAttempt.durationMs),
          when: whenShort(d.lastAttempt.attemptedAt, t),
        })}${d.lastAttempt.responseExcerpt ? html`<code class="excerpt">${d.lastAttempt.responseExcerpt.slice(0, 300)}</code>` : ''}`
      : t.t('portal.webhooks.log.notAttempted'),
    ...(manage
      ? [
          e.status === 'enabled'
            ? postButton({
                action: `${here}/redeliver`,
                label: html`${t.t('portal.webhooks.log.redeliver')}<span class="sr-only"> ${d.eventId}</span>`,
                csrf,
                fields: { eventId: d.eventId, ...operatorField(scope) },
              })
            : html`<span class="hint">${t.t('portal.webhooks.log.enableToRedeliver')}</span>`,
        ]
      : []),
  ]),
  empty: opts.status || opts.eventType ? t.t('portal.webhooks.log.noneMatch') : t.t('portal.webhooks.log.none'),
})}
${pager({
  label: t.t('portal.webhooks.log.pages'),
  newerHref: opts.before ? scope.link(here, filters) : null,
  newerText: t.t('portal.webhooks.log.newest'),
  olderHref: log.nextBeforeId ? scope.link(here, { ...filters, before: String(log.nextBeforeId) }) : null,
  t,
})}`;
  return layoutFor(scope, { title: t.t('portal.webhooks.endpoint.title', { url: e.url }), current: 'webhooks', main, flash: opts.flash ?? null });
}
