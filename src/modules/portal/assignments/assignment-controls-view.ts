import type { ErrorDetail } from '../../../platform/errors.js';
import { html, type SafeHtml } from '../../../platform/web/html.js';
import type { AssignmentView } from '../../assignments/get-assignment.js';
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

function currentExtraTime(a: AssignmentView): string {
  const x = a.accommodations;
  if (x?.extraTimePercent) return `${x.extraTimePercent}% extra time`;
  if (x?.extraTimeMinutes) return `${x.extraTimeMinutes} minutes of extra time`;
  return 'no extra time';
}

/** "2026-11-30T17:00" for a datetime-local field, in UTC like every time the portal shows. */
export const forDateTimeField = (d: Date | null) => (d ? d.toISOString().slice(0, 16) : '');

export function controlsSection(scope: Scope, a: AssignmentView, form?: ControlForm): SafeHtml | string {
  if (!CHANGEABLE_STATUSES.has(a.status)) return '';
  const v = form?.values ?? {};
  const base = `/portal/assignments/${a.assignmentId}`;
  const hidden = html`${csrfField(scope.p.sessionCsrf)}${hiddenFields(operatorField(scope))}`;
  return html`<section class="panel" aria-labelledby="controls-title">
<h2 id="controls-title">Change this assignment</h2>
<p class="hint">The same controls as the partner API: each change is sent to the partner as <code>assignment.updated</code> or <code>assignment.cancelled</code>${a.status === 'started' ? ', and extra time reaches the student’s open test page within seconds' : ''}.</p>
${errorSummary(form?.errors)}
<div class="side-by-side">
<form method="post" action="${base}/extra-time" novalidate>
${hidden}
<h3>Extra time</h3>
<p>Now: ${currentExtraTime(a)}.</p>
${selectField({ name: 'unit', label: 'Extra time as', value: v.unit ?? (a.accommodations?.extraTimeMinutes ? 'minutes' : 'percent'), options: [{ value: 'percent', label: 'Percent of the test’s duration' }, { value: 'minutes', label: 'Minutes' }] })}
${textField({ name: 'amount', label: 'Amount', hint: '0 to 400 percent, or 0 to 1440 minutes. 0 removes the extra time.', type: 'number', value: v.amount ?? String(a.accommodations?.extraTimeMinutes ?? a.accommodations?.extraTimePercent ?? ''), error: errorFor(form?.errors, 'amount'), min: '0', max: '1440', step: '1', inputmode: 'numeric' })}
<button type="submit" class="button primary">Save extra time</button>
</form>
<form method="post" action="${base}/due-date" novalidate>
${hidden}
<h3>Due date</h3>
<p>Now: ${a.dueAt ? when(a.dueAt) : 'none'}.</p>
${textField({ name: 'dueAt', label: 'New due date (UTC)', hint: 'In the future. The start link expires with it.', type: 'datetime-local', value: v.dueAt ?? forDateTimeField(a.dueAt), error: errorFor(form?.errors, 'dueAt') })}
<button type="submit" class="button primary">Save due date</button>
</form>
</div>
<div class="side-by-side">
<form method="post" action="${base}/start-link">
${hidden}
<h3>Start link</h3>
<p>For a link sent to the wrong person: every earlier link stops working, and the new one is shown once.</p>
<button type="submit" class="button">Issue a new start link</button>
</form>
<div>
<h3>Cancel</h3>
<p>Withdraws the test${a.status === 'started' ? ' while the student is taking it (the answers saved so far are kept)' : ''}. This cannot be undone.</p>
<p><a class="button danger" href="${scope.link(`${base}/cancel`)}">Cancel this assignment…</a></p>
</div>
</div>
</section>`;
}
