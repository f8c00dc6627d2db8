import { html, type SafeHtml, timeTag } from '../../../platform/web/html.js';
import type { ErrorDetail } from '../../../platform/errors.js';

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
export function errorSummary(details: ErrorDetail[] | undefined): SafeHtml {
  if (!details || details.length === 0) return html``;
  return html`<div class="error-summary" role="alert" tabindex="-1" id="error-summary">
<h2>There is a problem</h2>
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
${f.error ? html`<p class="field-error" id="${id}-error"><span class="sr-only">Error:</span> ${f.error}</p>` : ''}
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
${f.error ? html`<p class="field-error" id="${id}-error"><span class="sr-only">Error:</span> ${f.error}</p>` : ''}
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

export function pager(p: { label: string; newerHref: string | null; olderHref: string | null; newerText?: string; olderText?: string }): SafeHtml {
  if (!p.newerHref && !p.olderHref) return html``;
  return html`<nav class="pager" aria-label="${p.label}">
${p.newerHref ? html`<a href="${p.newerHref}" rel="prev">← ${p.newerText ?? 'Newer'}</a>` : html`<span></span>`}
${p.olderHref ? html`<a href="${p.olderHref}" rel="next">${p.olderText ?? 'Older'} →</a>` : ''}
</nav>`;
}

const STATUS_LABELS: Record<string, string> = {
  assigned: 'Assigned',
  started: 'Started',
  submitted: 'Submitted',
  marking: 'Marking',
  completed: 'Completed',
  expired: 'Expired',
  cancelled: 'Cancelled',
  pending: 'Pending',
  succeeded: 'Succeeded',
  failed: 'Failed',
  enabled: 'Enabled',
  disabled: 'Disabled',
  active: 'Active',
  suspended: 'Suspended',
  revoked: 'Revoked',
};

export function statusLabel(status: string): string {
  return STATUS_LABELS[status] ?? status;
}

/** Marks a test-mode object (made with an `ak_test_` key) wherever it is listed beside live ones. */
export function testBadge(): SafeHtml {
  return html`<span class="badge badge-test">Test</span>`;
}

export function statusBadge(status: string): SafeHtml {
  return html`<span class="badge badge-${status}">${statusLabel(status)}</span>`;
}

/** A date for people (UTC, said so) or a dash. */
export function when(d: Date | null | undefined): SafeHtml {
  return d ? timeTag(d) : html`<span class="none">–</span>`;
}

const SHORT = new Intl.DateTimeFormat('en-GB', { day: 'numeric', month: 'short', year: 'numeric', hour: '2-digit', minute: '2-digit', timeZone: 'UTC' });

/** A compact date for tables: "3 May 2025, 14:05 UTC". */
export function whenShort(d: Date | null | undefined): SafeHtml {
  return d ? html`<time datetime="${d.toISOString()}">${SHORT.format(d)} UTC</time>` : html`<span class="none">–</span>`;
}

/** "2 minutes ago", for presence and "last used". */
export function ago(d: Date, now: Date): string {
  const s = Math.max(0, Math.round((now.getTime() - d.getTime()) / 1000));
  if (s < 60) return 'just now';
  const m = Math.round(s / 60);
  if (m < 60) return `${m} minute${m === 1 ? '' : 's'} ago`;
  const h = Math.round(m / 60);
  if (h < 48) return `${h} hour${h === 1 ? '' : 's'} ago`;
  const days = Math.round(h / 24);
  return `${days} days ago`;
}
