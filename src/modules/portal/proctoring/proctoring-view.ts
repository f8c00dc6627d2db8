import type { ErrorDetail } from '../../../platform/errors.js';
import { html, type SafeHtml } from '../../../platform/web/html.js';
import type { FlagView, ProctoringReport } from '../../proctoring/get-proctoring-report.js';
import { csrfField, dataTable, errorFor, errorSummary, hiddenFields, when, type Flash } from '../ui/components.js';
import { layoutFor, operatorField, type Scope } from '../ui/page.js';
import { clockTime, jumpButton, planTimeline, severityBadge, timelineSection, whenExact } from './proctoring-timeline.js';

/**
 * The proctoring record of one attempt for reviewers: one timeline (a
 * player for the whole recording with the flags at their moments, see
 * proctoring-timeline.ts), the flags as a table with Jump to, the evidence
 * snapshots, the segments as files (page's and server's times), and a review
 * form per critical flag not yet decided. File URLs are the report's signed
 * ones (15 minutes), so the page says when they stop working.
 */
const KIND_LABELS: Record<string, string> = {
  no_face: 'No face in view',
  multiple_faces: 'More than one face',
  left_test: 'Left the test page',
  fullscreen_exit: 'Left full screen',
  copy_paste: 'Copy or paste',
  camera_stopped: 'Camera stopped',
  second_screen: 'Second screen',
  proctoring_interrupted: 'Supervision interrupted',
};

export const kindLabel = (kind: string) => KIND_LABELS[kind] ?? kind;

function duration(seconds: number): string {
  if (seconds < 60) return `${Math.round(seconds)} s`;
  const m = Math.floor(seconds / 60);
  return `${m} min ${Math.round(seconds - m * 60)} s`;
}

function reviewCell(f: FlagView): SafeHtml | string {
  if (f.review) return html`<span class="badge badge-${f.review.outcome === 'confirmed' ? 'failed' : 'completed'}">${f.review.outcome === 'confirmed' ? 'Confirmed' : 'Dismissed'}</span>${
    f.review.reviewer ? html` <span class="hint">by ${f.review.reviewer}</span>` : ''
  }`;
  return f.severity === 'critical' ? html`<span class="badge badge-pending">Needs review</span>` : 'Not reviewed (not critical)';
}

export interface ReviewFormState {
  flagId: string;
  errors: ErrorDetail[];
  values: { outcome?: string; note?: string };
}

export function proctoringPage(
  scope: Scope,
  r: ProctoringReport,
  who: { externalUserId: string; title: string; status: string },
  opts: { canReview: boolean; flash?: Flash | null; form?: ReviewFormState },
): string {
  const pending = r.flags.filter((f) => f.severity === 'critical' && !f.review);
  const snapshotsOf = new Map(r.flags.map((f, i) => [f.id, i + 1]));
  const plan = r.purgedAt ? null : planTimeline(r);
  const main = html`<nav class="breadcrumbs" aria-label="Breadcrumb"><ol><li><a href="${scope.link('/portal/assignments')}">Assignments</a></li><li><a href="${scope.link(
    `/portal/assignments/${r.assignmentId}`,
  )}">${who.externalUserId}</a></li><li aria-current="page">Proctoring</li></ol></nav>
<div class="page-head"><h1>Proctoring of ${who.title} for ${who.externalUserId}</h1><p>${reviewBadge(r.summary.reviewStatus)}</p></div>
<dl class="facts">
<dt>Mode</dt><dd>${r.mode === 'live_ai' ? 'Recording with on-device face analysis' : r.mode === 'record' ? 'Recording' : 'Not proctored'}</dd>
<dt>Flags</dt><dd>${r.summary.critical} critical, ${r.summary.warning} warning, ${r.summary.info} info</dd>
<dt>Reviewed</dt><dd>${r.summary.confirmed} confirmed, ${r.summary.dismissed} dismissed</dd>
${r.purgedAt ? html`<dt>Recording</dt><dd>Deleted ${when(r.purgedAt)} (retention period over)</dd>` : ''}
</dl>
${errorSummary(summaryErrors(r, opts.form))}
${plan ? timelineSection(r, plan, kindLabel) : ''}
<h2 id="flags-title">Flags</h2>
${dataTable({
  caption: 'Flags, in the order they started (times in UTC)',
  stack: true,
  columns: [{ label: 'Kind' }, { label: 'Severity' }, { label: 'Started' }, { label: 'Duration', numeric: true }, { label: 'Evidence' }, { label: 'Review' }],
  rows: r.flags.map((f, i) => [
    html`<span id="flag-${i + 1}">${kindLabel(f.kind)}</span>`,
    severityBadge(f.severity),
    html`${whenExact(f.startedAt)}${jumpButton(plan, f, kindLabel(f.kind))}`,
    f.ongoing ? html`${duration(f.durationSeconds)} <span class="hint">(ongoing)</span>` : duration(f.durationSeconds),
    f.evidence.url ? html`<a href="#evidence-${i + 1}">Snapshot</a>` : '–',
    reviewCell(f),
  ]),
  empty: 'Nothing was flagged during this attempt.',
})}
${opts.canReview && pending.length > 0
  ? html`<h2 id="review-title">Review critical flags</h2>
<p class="hint">A decision is final and is sent to the partner: when every critical flag is decided, <code>integrity.reviewed</code> carries the counts. Proctoring never changes a status or a score by itself.</p>
${pending.map((f) => reviewForm(scope, r, f, snapshotsOf.get(f.id)!, opts.form?.flagId === f.id ? opts.form : undefined))}`
  : ''}
${!opts.canReview && pending.length > 0 ? html`<p class="notice">${pending.length} critical flag${pending.length === 1 ? ' waits' : 's wait'} for a reviewer.</p>` : ''}
<h2 id="evidence-title">Evidence snapshots</h2>
${r.flags.some((f) => f.evidence.url)
  ? html`<ul class="evidence">${r.flags.map((f, i) =>
      f.evidence.url
        ? html`<li id="evidence-${i + 1}"><img src="${f.evidence.url}" alt="Webcam snapshot taken for the flag “${kindLabel(f.kind)}” at ${clockTime(f.startedAt)}" width="320" height="240"><p class="hint">${kindLabel(f.kind)}, ${whenExact(f.startedAt)}${receivedNote(r, f.evidence.snapshotId)}</p></li>`
        : '',
    )}</ul>`
  : html`<p class="empty">No flag has an evidence snapshot.</p>`}
${r.snapshots.length > 0 ? html`<p class="hint">${r.snapshots.length} snapshot${r.snapshots.length === 1 ? ' was' : 's were'} kept in all, including the periodic ones.</p>` : ''}
<h2 id="recording-title">Recording</h2>
${r.recording.segmentCount === 0
  ? html`<p class="empty">No recording was uploaded for this attempt.</p>`
  : html`<p>${r.recording.segmentCount} segment${r.recording.segmentCount === 1 ? '' : 's'}, ${duration(r.recording.totalDurationMs / 1000)} in all. The links work until ${when(r.urlsExpireAt)}; reload the page for fresh ones.</p>
<details class="segment-files"><summary>Segment files, with the page’s and the server’s times</summary>
${dataTable({
  caption: 'Recording segments: when the page says each began, and when the server received it (UTC)',
  stack: true,
  columns: [{ label: 'Segment' }, { label: 'Began (page’s clock)' }, { label: 'Received (server’s clock)' }, { label: 'Length', numeric: true }],
  rows: r.recording.segments.map((s) => [
    html`<a href="${s.url}">Segment ${s.seq + 1}</a>`,
    whenExact(s.startedAt),
    s.receivedAt ? whenExact(s.receivedAt) : html`<span class="hint">Not kept (stored before the server kept it)</span>`,
    duration(s.durationMs / 1000),
  ]),
})}
</details>`}`;
  return layoutFor(scope, { title: `Proctoring of ${who.externalUserId}`, current: 'assignments', main, flash: opts.flash ?? null });
}

/** When the server received a flag's evidence snapshot (the caption's first time is the page's). */
function receivedNote(r: ProctoringReport, snapshotId: string | null): SafeHtml | string {
  const received = r.snapshots.find((s) => s.snapshotId === snapshotId)?.receivedAt;
  return received ? html`; the server received it at ${clockTime(received)}` : '';
}

/** The summary links to the fields of the flag's own form (every form has an outcome and a note). */
function summaryErrors(r: ProctoringReport, form: ReviewFormState | undefined): ErrorDetail[] | undefined {
  if (!form) return undefined;
  const n = r.flags.findIndex((f) => f.id === form.flagId) + 1;
  return form.errors.map((e) => ({ ...e, field: e.field === 'outcome' ? `outcome-${n}-confirmed` : e.field === 'note' ? `note-${n}` : e.field }));
}

function reviewBadge(status: string): SafeHtml {
  if (status === 'pending') return html`<span class="badge badge-pending">Review pending</span>`;
  if (status === 'reviewed') return html`<span class="badge badge-completed">Reviewed</span>`;
  return html`<span class="badge">No review needed</span>`;
}

function reviewForm(scope: Scope, r: ProctoringReport, f: FlagView, n: number, state: ReviewFormState | undefined): SafeHtml {
  const values = state?.values ?? {};
  const outcomeError = errorFor(state?.errors, 'outcome');
  const noteError = errorFor(state?.errors, 'note');
  const label = `${kindLabel(f.kind)} at ${f.startedAt.toISOString().slice(11, 19)} UTC`;
  return html`<form method="post" action="/portal/assignments/${r.assignmentId}/proctoring/review" class="panel review-form" aria-labelledby="review-${n}-title" novalidate>
${csrfField(scope.p.sessionCsrf)}${hiddenFields({ ...operatorField(scope), flagId: f.id })}
<h3 id="review-${n}-title">${label} <span class="hint">(${duration(f.durationSeconds)})</span></h3>
<fieldset${outcomeError ? html` class="has-error" aria-describedby="outcome-${n}-error"` : ''}>
<legend>Outcome for “${label}”</legend>
${outcomeError ? html`<p class="field-error" id="outcome-${n}-error"><span class="sr-only">Error:</span> ${outcomeError}</p>` : ''}
<div class="checks">
<div class="check"><input type="radio" name="outcome" value="confirmed" id="f-outcome-${n}-confirmed"${values.outcome === 'confirmed' ? html` checked` : ''}><label for="f-outcome-${n}-confirmed">Confirmed: a breach of the rules</label></div>
<div class="check"><input type="radio" name="outcome" value="dismissed" id="f-outcome-${n}-dismissed"${values.outcome === 'dismissed' ? html` checked` : ''}><label for="f-outcome-${n}-dismissed">Dismissed: no breach</label></div>
</div>
</fieldset>
<div class="field${noteError ? ' has-error' : ''}">
<label for="f-note-${n}">Note<span class="sr-only"> on “${label}”</span></label>
<p class="hint" id="note-${n}-hint">Why you decided so. The partner sees the outcome; the note stays with this record.</p>
${noteError ? html`<p class="field-error" id="note-${n}-error"><span class="sr-only">Error:</span> ${noteError}</p>` : ''}
<textarea id="f-note-${n}" name="note" rows="3" maxlength="2000" aria-describedby="note-${n}-hint${noteError ? ` note-${n}-error` : ''}"${noteError ? html` aria-invalid="true"` : ''}>
${values.note ?? ''}</textarea>
</div>
<button type="submit" class="button primary">Record the review<span class="sr-only"> of “${label}”</span></button>
</form>`;
}
