import type { ErrorDetail } from '../../../platform/errors.js';
import type { Translator } from '../../../platform/i18n/catalogue.js';
import { html, type SafeHtml } from '../../../platform/web/html.js';
import { richText } from '../ui/portal-text.js';
import type { PartnerView } from '../../assignments/get-assignment.js';
import { CHANGEABLE_STATUSES } from '../../lifecycle/state-machine.js';
import { csrfField, errorFor, errorSummary, hiddenFields, selectField, textField, when } from '../ui/components.js';
import { operatorField, type Scope } from '../ui/page.js';

/**
 * The assignment controls for admins, while the assignment is assigned or
 * started: extra time, a new due date, a new start link and cancelling (on
 * a confirmation page). They post to the portal, which calls the partner
 * API's services.
 */
export interface ControlForm {
  errors: ErrorDetail[];
  values: Record<string, string | undefined>;
}

function currentExtraTime(t: Translator, a: PartnerView): string {
  const x = a.accommodations;
  if (x?.extraTimePercent) return t.t('portal.controls.extraTime.percent', { percent: String(x.extraTimePercent) });
  if (x?.extraTimeMinutes) return t.t('portal.controls.extraTime.minutes', { minutes: String(x.extraTimeMinutes) });
  return t.t('portal.controls.extraTime.none');
}

/** "2026-11-30T17:00" for a datetime-local field, in UTC like every time the portal shows. */
export const forDateTimeField = (d: Date | null) => (d ? d.toISOString().slice(0, 16) : '');

export function controlsSection(scope: Scope, a: PartnerView, form?: ControlForm): SafeHtml | string {
  if (!CHANGEABLE_STATUSES.has(a.status)) return '';
  const { t } = scope;
  const v = form?.values ?? {};
  const base = `/portal/assignments/${a.assignmentId}`;
  const hidden = html`${csrfField(scope.p.sessionCsrf)}${hiddenFields(operatorField(scope))}`;
  return html`<section class="panel" aria-labelledby="controls-title">
<h2 id="controls-title">${t.t('portal.controls.heading')}</h2>
<p class="hint">${richText(t, a.status === 'started' ? 'portal.controls.hintStarted' : 'portal.controls.hint', {
    updated: html`<code>assignment.updated</code>`,
    cancelled: html`<code>assignment.cancelled</code>`,
  })}</p>
${errorSummary(form?.errors, t)}
<div class="side-by-side">
<form method="post" action="${base}/extra-time" novalidate>
${hidden}
<h3>${t.t('portal.controls.extraTime.heading')}</h3>
<p>${t.t('portal.controls.now', { value: currentExtraTime(t, a) })}</p>
${selectField({
  name: 'unit',
  label: t.t('portal.controls.extraTime.unit'),
  value: v.unit ?? (a.accommodations?.extraTimeMinutes ? 'minutes' : 'percent'),
  options: [
    { value: 'percent', label: t.t('portal.controls.extraTime.unitPercent') },
    { value: 'minutes', label: t.t('portal.controls.extraTime.unitMinutes') },
  ],
})}
${textField({
  name: 'amount',
  label: t.t('portal.controls.extraTime.amount'),
  hint: t.t('portal.controls.extraTime.amountHint'),
  type: 'number',
  value: v.amount ?? String(a.accommodations?.extraTimeMinutes ?? a.accommodations?.extraTimePercent ?? ''),
  error: errorFor(form?.errors, 'amount'),
  min: '0',
  max: '1440',
  step: '1',
  inputmode: 'numeric',
  t,
})}
<button type="submit" class="button primary">${t.t('portal.controls.extraTime.save')}</button>
</form>
<form method="post" action="${base}/due-date" novalidate>
${hidden}
<h3>${t.t('portal.controls.dueDate.heading')}</h3>
<p>${a.dueAt ? richText(t, 'portal.controls.now', { value: when(a.dueAt, t) }) : t.t('portal.controls.now', { value: t.t('portal.controls.dueDate.none') })}</p>
${textField({
  name: 'dueAt',
  label: t.t('portal.controls.dueDate.label'),
  hint: t.t('portal.controls.dueDate.hint'),
  type: 'datetime-local',
  value: v.dueAt ?? forDateTimeField(a.dueAt),
  error: errorFor(form?.errors, 'dueAt'),
  t,
})}
<button type="submit" class="button primary">${t.t('portal.controls.dueDate.save')}</button>
</form>
</div>
<div class="side-by-side">
<form method="post" action="${base}/start-link">
${hidden}
<h3>${t.t('portal.controls.startLink.heading')}</h3>
<p>${t.t('portal.controls.startLink.text')}</p>
<button type="submit" class="button">${t.t('portal.controls.startLink.button')}</button>
</form>
<div>
<h3>${t.t('portal.controls.cancel.heading')}</h3>
<p>${a.status === 'started' ? t.t('portal.controls.cancel.textStarted') : t.t('portal.controls.cancel.text')}</p>
<p><a class="button danger" href="${scope.link(`${base}/cancel`)}">${t.t('portal.controls.cancel.link')}</a></p>
</div>
</div>
</section>`;
}
