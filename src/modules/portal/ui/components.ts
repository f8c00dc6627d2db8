import type { MessageKey, Translator } from '../../../platform/i18n/catalogue.js';
import { html, type SafeHtml, timeTag } from '../../../platform/web/html.js';
import type { ErrorDetail } from '../../../platform/errors.js';
import { portalTranslator } from './portal-text.js';

/** The portal's UI kit: tables with captions, form fields tied to their errors, messages, paging. */

export interface Flash {
  kind: 'success' | 'error';
  text: string;
}

export function flashMessage(f: Flash): SafeHtml {
  return f.kind === 'success'
    ? html`<div class="flash flash-success" role="status"><p>${f.text}</p></div>`
    : html`<div class="flash flash-error" role="alert"><p>${f.text}</p></div>`;
}

export interface Column {
  label: string;
  numeric?: boolean;
}

let captionSeq = 0;

/**
 * A real table with a caption. Wide tables (`stack`) become one card per row
 * on a narrow screen, each value under its column's name (`data-label`);
 * others sit in a region that scrolls sideways (focusable, so keyboard
 * users can scroll it too).
 */
export function dataTable(p: {
  caption: string | SafeHtml;
  columns: Column[];
  rows: Array<Array<unknown>>;
  empty?: string;
  captionHidden?: boolean;
  stack?: boolean;
  /** An extra class on the table, for a page's own column widths. */
  className?: string;
}): SafeHtml {
  const id = `table-caption-${++captionSeq}`;
  if (p.rows.length === 0 && p.empty) return html`<p class="empty">${p.empty}</p>`;
  const cls = (c: Column | undefined) => (c?.numeric ? html` class="num"` : '');
  return html`<div class="table-wrap${p.stack ? ' stack' : ''}" role="region" aria-labelledby="${id}" tabindex="0">
<table${p.className ? html` class="${p.className}"` : ''}>
<caption id="${id}"${p.captionHidden ? html` class="sr-only"` : ''}>${p.caption}</caption>
<thead><tr>${p.columns.map((c) => html`<th scope="col"${cls(c)}>${c.label}</th>`)}</tr></thead>
<tbody>
${p.rows.map(
  (r) =>
    html`<tr>${r.map((cell, i) =>
      i === 0 && !p.columns[0]?.numeric
        ? html`<th scope="row">${cell}</th>`
        : html`<td${cls(p.columns[i])} data-label="${p.columns[i]?.label ?? ''}">${cell}</td>`,
    )}</tr>`,
)}
</tbody>
</table>
</div>`;
}

/** At the top of a form that was refused: every problem, each a link to its field. */
export function errorSummary(details: ErrorDetail[] | undefined, t: Translator = portalTranslator()): SafeHtml {
  if (!details || details.length === 0) return html``;
  return html`<div class="error-summary" role="alert" tabindex="-1" id="error-summary">
<h2>${t.t('portal.form.problemHeading')}</h2>
<ul>${details.map((d) => html`<li><a href="#${fieldId(d.field)}">${d.message}</a></li>`)}</ul>
</div>`;
}

export function fieldId(name: string): string {
  return `f-${name.replace(/[^A-Za-z0-9_-]/g, '-')}`;
}

export function errorFor(details: ErrorDetail[] | undefined, name: string): string | null {
  return details?.find((d) => d.field === name)?.message ?? null;
}

interface FieldInput {
  name: string;
  label: string | SafeHtml;
  value?: string | null;
  hint?: string | SafeHtml;
  error?: string | null;
  required?: boolean;
  type?: 'text' | 'email' | 'number' | 'url' | 'date' | 'search' | 'datetime-local';
  autocomplete?: string;
  inputmode?: string;
  step?: string;
  min?: string;
  max?: string;
  maxlength?: number;
  className?: string;
  t?: Translator;
}

/** A field's error, led by a word for screen readers (the red alone says nothing to them). */
function fieldError(id: string, error: string, t: Translator = portalTranslator()): SafeHtml {
  return html`<p class="field-error" id="${id}-error"><span class="sr-only">${t.t('portal.form.errorPrefix')}</span> ${error}</p>`;
}

function describedBy(id: string, hint: unknown, error: unknown): SafeHtml | string {
  const ids = [hint ? `${id}-hint` : '', error ? `${id}-error` : ''].filter(Boolean).join(' ');
  return ids ? html` aria-describedby="${ids}"` : '';
}

export function textField(f: FieldInput): SafeHtml {
  const id = fieldId(f.name);
  return html`<div class="field${f.error ? ' has-error' : ''}${f.className ? ` ${f.className}` : ''}">
<label for="${id}">${f.label}</label>
${f.hint ? html`<p class="hint" id="${id}-hint">${f.hint}</p>` : ''}
${f.error ? fieldError(id, f.error, f.t) : ''}
<input id="${id}" name="${f.name}" type="${f.type ?? 'text'}" value="${f.value ?? ''}"${f.required ? html` required` : ''}${
    f.autocomplete ? html` autocomplete="${f.autocomplete}"` : ''
  }${f.inputmode ? html` inputmode="${f.inputmode}"` : ''}${f.step ? html` step="${f.step}"` : ''}${f.min !== undefined ? html` min="${f.min}"` : ''}${
    f.max !== undefined ? html` max="${f.max}"` : ''
  }${f.maxlength ? html` maxlength="${f.maxlength}"` : ''}${f.error ? html` aria-invalid="true"` : ''}${describedBy(id, f.hint, f.error)}>
</div>`;
}

export function textArea(f: FieldInput & { rows?: number }): SafeHtml {
  const id = fieldId(f.name);
  return html`<div class="field${f.error ? ' has-error' : ''}${f.className ? ` ${f.className}` : ''}">
<label for="${id}">${f.label}</label>
${f.hint ? html`<p class="hint" id="${id}-hint">${f.hint}</p>` : ''}
${f.error ? fieldError(id, f.error, f.t) : ''}
<textarea id="${id}" name="${f.name}" rows="${f.rows ?? 4}"${f.maxlength ? html` maxlength="${f.maxlength}"` : ''}${f.error ? html` aria-invalid="true"` : ''}${describedBy(
    id,
    f.hint,
    f.error,
  )}>
${f.value ?? ''}</textarea>
</div>`;
}

export function selectField(f: { name: string; label: string; value?: string | null; options: Array<{ value: string; label: string }>; hint?: string }): SafeHtml {
  const id = fieldId(f.name);
  return html`<div class="field">
<label for="${id}">${f.label}</label>
${f.hint ? html`<p class="hint" id="${id}-hint">${f.hint}</p>` : ''}
<select id="${id}" name="${f.name}"${describedBy(id, f.hint, null)}>
${f.options.map((o) => html`<option value="${o.value}"${o.value === (f.value ?? '') ? html` selected` : ''}>${o.label}</option>`)}
</select>
</div>`;
}

export function csrfField(csrf: string): SafeHtml {
  return html`<input type="hidden" name="csrf" value="${csrf}">`;
}

export function hiddenFields(fields: Record<string, string | null | undefined>): SafeHtml {
  return html`${Object.entries(fields)
    .filter(([, v]) => v !== undefined && v !== null)
    .map(([k, v]) => html`<input type="hidden" name="${k}" value="${v}">`)}`;
}

/** A one-button form (POST with the session's CSRF token). */
export function postButton(p: {
  action: string;
  label: string | SafeHtml;
  csrf: string;
  fields?: Record<string, string | null | undefined>;
  variant?: 'primary' | 'secondary' | 'danger';
  describedBy?: string;
}): SafeHtml {
  return html`<form method="post" action="${p.action}" class="inline-form">
${csrfField(p.csrf)}${hiddenFields(p.fields ?? {})}
<button type="submit" class="button ${p.variant ?? 'secondary'}"${p.describedBy ? html` aria-describedby="${p.describedBy}"` : ''}>${p.label}</button>
</form>`;
}

export function pager(p: {
  label: string;
  newerHref: string | null;
  olderHref: string | null;
  newerText?: string;
  olderText?: string;
  t?: Translator;
}): SafeHtml {
  if (!p.newerHref && !p.olderHref) return html``;
  const t = p.t ?? portalTranslator();
  return html`<nav class="pager" aria-label="${p.label}">
${p.newerHref ? html`<a href="${p.newerHref}" rel="prev">${t.t('portal.pager.newerLink', { text: p.newerText ?? t.t('portal.pager.newer') })}</a>` : html`<span></span>`}
${p.olderHref ? html`<a href="${p.olderHref}" rel="next">${t.t('portal.pager.olderLink', { text: p.olderText ?? t.t('portal.pager.older') })}</a>` : ''}
</nav>`;
}

/** The statuses of assignments, deliveries, endpoints, institutions and keys, in words. */
const STATUS_LABELS: Record<string, MessageKey> = {
  assigned: 'portal.status.assigned',
  started: 'portal.status.started',
  submitted: 'portal.status.submitted',
  marking: 'portal.status.marking',
  completed: 'portal.status.completed',
  expired: 'portal.status.expired',
  cancelled: 'portal.status.cancelled',
  pending: 'portal.status.pending',
  succeeded: 'portal.status.succeeded',
  failed: 'portal.status.failed',
  enabled: 'portal.status.enabled',
  disabled: 'portal.status.disabled',
  active: 'portal.status.active',
  suspended: 'portal.status.suspended',
  revoked: 'portal.status.revoked',
};

export function statusLabel(status: string, t: Translator = portalTranslator()): string {
  const key = STATUS_LABELS[status];
  return key ? t.t(key) : status;
}

/** Marks a test-mode object (made with an `ak_test_` key) wherever it is listed beside live ones. */
export function testBadge(t: Translator = portalTranslator()): SafeHtml {
  return html`<span class="badge badge-test">${t.t('portal.badge.test')}</span>`;
}

export function statusBadge(status: string, t: Translator = portalTranslator()): SafeHtml {
  return html`<span class="badge badge-${status}">${statusLabel(status, t)}</span>`;
}

/** A date for people in the page's language (its zone said) or a dash. */
export function when(d: Date | null | undefined, t: Translator = portalTranslator()): SafeHtml {
  return d ? timeTag(d, t) : html`<span class="none">–</span>`;
}

/** A compact date for tables: "3 May 2025, 14:05 UTC" in English. */
export function whenShort(d: Date | null | undefined, t: Translator = portalTranslator()): SafeHtml {
  return d ? html`<time datetime="${d.toISOString()}">${t.dateTimeShort(d)}</time>` : html`<span class="none">–</span>`;
}

/** "2 minutes ago", for presence and "last used". */
export function ago(d: Date, now: Date, t: Translator = portalTranslator()): string {
  const s = Math.max(0, Math.round((now.getTime() - d.getTime()) / 1000));
  if (s < 60) return t.t('portal.ago.justNow');
  const minutes = Math.round(s / 60);
  if (minutes < 60) return t.t('portal.ago.minutes', { minutes });
  const hours = Math.round(minutes / 60);
  if (hours < 48) return t.t('portal.ago.hours', { hours });
  const days = Math.round(hours / 24);
  return t.t('portal.ago.days', { days, count: String(days) });
}
