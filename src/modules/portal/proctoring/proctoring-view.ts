import type { ErrorDetail } from '../../../platform/errors.js';
import type { MessageKey, Translator } from '../../../platform/i18n/catalogue.js';
import { html, type SafeHtml } from '../../../platform/web/html.js';
import { portalTranslator, richText } from '../ui/portal-text.js';
import type { FlagView, ProctoringReport } from '../../proctoring/get-proctoring-report.js';
import { csrfField, dataTable, errorFor, errorSummary, hiddenFields, when, type Flash } from '../ui/components.js';
import { layoutFor, operatorField, type Scope } from '../ui/page.js';
import { TIMELINE_SCRIPT_MESSAGES, clockTime, jumpButton, planTimeline, severityBadge, timelineSection, whenExact } from './proctoring-timeline.js';

/**
 * The proctoring record of one attempt for reviewers: one timeline (a
 * player for the whole recording with the flags at their moments, see
 * proctoring-timeline.ts), the flags as a table with Jump to, the evidence
 * snapshots, the segments as files (page's and server's times), and a review
 * form per critical flag not yet decided. File URLs are the report's signed
 * ones (15 minutes), so the page says when they stop working.
 */
const KIND_LABELS: Record<string, MessageKey> = {
  no_face: 'portal.proctoring.kind.noFace',
  multiple_faces: 'portal.proctoring.kind.multipleFaces',
  left_test: 'portal.proctoring.kind.leftTest',
  fullscreen_exit: 'portal.proctoring.kind.fullscreenExit',
  copy_paste: 'portal.proctoring.kind.copyPaste',
  camera_stopped: 'portal.proctoring.kind.cameraStopped',
  second_screen: 'portal.proctoring.kind.secondScreen',
  proctoring_interrupted: 'portal.proctoring.kind.proctoringInterrupted',
};

export function kindLabel(kind: string, t: Translator = portalTranslator()): string {
  const key = KIND_LABELS[kind];
  return key ? t.t(key) : kind;
}

function duration(t: Translator, seconds: number): string {
  if (seconds < 60) return t.t('portal.proctoring.seconds', { s: String(Math.round(seconds)) });
  const m = Math.floor(seconds / 60);
  return t.t('portal.proctoring.minutesSeconds', { m: String(m), s: String(Math.round(seconds - m * 60)) });
}

function reviewCell(t: Translator, f: FlagView): SafeHtml | string {
  if (f.review) return html`<span class="badge badge-${f.review.outcome === 'confirmed' ? 'failed' : 'completed'}">${f.review.outcome === 'confirmed' ? t.t('portal.proctoring.review.confirmed') : t.t('portal.proctoring.review.dismissed')}</span>${
    f.review.reviewer ? html` <span class="hint">${t.t('portal.proctoring.review.by', { reviewer: f.review.reviewer })}</span>` : ''
  }`;
  return f.severity === 'critical' ? html`<span class="badge badge-pending">${t.t('portal.proctoring.review.needed')}</span>` : t.t('portal.proctoring.review.notCritical');
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
  const { t } = scope;
  const kind = (k: string) => kindLabel(k, t);
  const pending = r.flags.filter((f) => f.severity === 'critical' && !f.review);
  const snapshotsOf = new Map(r.flags.map((f, i) => [f.id, i + 1]));
  const plan = r.purgedAt ? null : planTimeline(r);
  const main = html`<nav class="breadcrumbs" aria-label="${t.t('portal.breadcrumb')}"><ol><li><a href="${scope.link('/portal/assignments')}">${t.t('portal.nav.assignments')}</a></li><li><a href="${scope.link(
    `/portal/assignments/${r.assignmentId}`,
  )}">${who.externalUserId}</a></li><li aria-current="page">${t.t('portal.proctoring.record.crumb')}</li></ol></nav>
<div class="page-head"><h1>${t.t('portal.proctoring.record.heading', { test: who.title, student: who.externalUserId })}</h1><p>${reviewBadge(t, r.summary.reviewStatus)}</p></div>
<dl class="facts">
<dt>${t.t('portal.proctoring.record.mode')}</dt><dd>${t.t('portal.proctoring.record.modeValue', { mode: r.mode })}</dd>
<dt>${t.t('portal.proctoring.record.flags')}</dt><dd>${t.t('portal.proctoring.record.flagCounts', {
    critical: String(r.summary.critical),
    warning: String(r.summary.warning),
    info: String(r.summary.info),
  })}</dd>
<dt>${t.t('portal.proctoring.record.reviewed')}</dt><dd>${t.t('portal.proctoring.record.reviewCounts', { confirmed: String(r.summary.confirmed), dismissed: String(r.summary.dismissed) })}</dd>
${r.purgedAt ? html`<dt>${t.t('portal.proctoring.record.recording')}</dt><dd>${richText(t, 'portal.proctoring.record.deleted', { when: when(r.purgedAt, t) })}</dd>` : ''}
</dl>
${errorSummary(summaryErrors(r, opts.form), t)}
${plan ? timelineSection(r, plan, kind, t) : ''}
<h2 id="flags-title">${t.t('portal.proctoring.record.flags')}</h2>
${dataTable({
  caption: t.t('portal.proctoring.flags.caption'),
  stack: true,
  columns: [
    { label: t.t('portal.proctoring.flags.kind') },
    { label: t.t('portal.proctoring.flags.severity') },
    { label: t.t('portal.proctoring.flags.started') },
    { label: t.t('portal.proctoring.flags.duration'), numeric: true },
    { label: t.t('portal.proctoring.flags.evidence') },
    { label: t.t('portal.proctoring.flags.review') },
  ],
  rows: r.flags.map((f, i) => [
    html`<span id="flag-${i + 1}">${kind(f.kind)}</span>`,
    severityBadge(f.severity, t),
    html`${whenExact(f.startedAt, t)}${jumpButton(plan, f, kind(f.kind), t)}`,
    f.ongoing ? html`${duration(t, f.durationSeconds)} <span class="hint">${t.t('portal.proctoring.flags.ongoing')}</span>` : duration(t, f.durationSeconds),
    f.evidence.url ? html`<a href="#evidence-${i + 1}">${t.t('portal.proctoring.flags.snapshot')}</a>` : '–',
    reviewCell(t, f),
  ]),
  empty: t.t('portal.proctoring.flags.none'),
})}
${opts.canReview && pending.length > 0
  ? html`<h2 id="review-title">${t.t('portal.proctoring.review.heading')}</h2>
<p class="hint">${richText(t, 'portal.proctoring.review.hint', { event: html`<code>integrity.reviewed</code>` })}</p>
${pending.map((f) => reviewForm(scope, r, f, snapshotsOf.get(f.id)!, opts.form?.flagId === f.id ? opts.form : undefined))}`
  : ''}
${!opts.canReview && pending.length > 0 ? html`<p class="notice">${t.t('portal.proctoring.review.waiting', { flags: pending.length })}</p>` : ''}
<h2 id="evidence-title">${t.t('portal.proctoring.evidence.heading')}</h2>
${r.flags.some((f) => f.evidence.url)
  ? html`<ul class="evidence">${r.flags.map((f, i) =>
      f.evidence.url
        ? html`<li id="evidence-${i + 1}"><img src="${f.evidence.url}" alt="${t.t('portal.proctoring.evidence.alt', { kind: kind(f.kind), time: clockTime(f.startedAt, t) })}" width="320" height="240"><p class="hint">${richText(
            t,
            'portal.proctoring.evidence.caption',
            { kind: kind(f.kind), when: whenExact(f.startedAt, t) },
          )}${receivedNote(t, r, f.evidence.snapshotId)}</p></li>`
        : '',
    )}</ul>`
  : html`<p class="empty">${t.t('portal.proctoring.evidence.none')}</p>`}
${r.snapshots.length > 0 ? html`<p class="hint">${t.t('portal.proctoring.evidence.kept', { snapshots: r.snapshots.length, count: String(r.snapshots.length) })}</p>` : ''}
<h2 id="recording-title">${t.t('portal.proctoring.record.recording')}</h2>
${r.recording.segmentCount === 0
  ? html`<p class="empty">${t.t('portal.proctoring.recording.none')}</p>`
  : html`<p>${richText(t, 'portal.proctoring.recording.summary', {
      segments: r.recording.segmentCount,
      count: String(r.recording.segmentCount),
      duration: duration(t, r.recording.totalDurationMs / 1000),
      until: when(r.urlsExpireAt, t),
    })}</p>
<details class="segment-files"><summary>${t.t('portal.proctoring.recording.files')}</summary>
${dataTable({
  caption: t.t('portal.proctoring.recording.caption'),
  stack: true,
  columns: [
    { label: t.t('portal.proctoring.recording.segment') },
    { label: t.t('portal.proctoring.recording.began') },
    { label: t.t('portal.proctoring.recording.received') },
    { label: t.t('portal.proctoring.recording.length'), numeric: true },
  ],
  rows: r.recording.segments.map((s) => [
    html`<a href="${s.url}">${t.t('portal.proctoring.recording.segmentN', { n: s.seq + 1 })}</a>`,
    whenExact(s.startedAt, t),
    s.receivedAt ? whenExact(s.receivedAt, t) : html`<span class="hint">${t.t('portal.proctoring.recording.notKept')}</span>`,
    duration(t, s.durationMs / 1000),
  ]),
})}
</details>`}`;
  return layoutFor(scope, {
    title: t.t('portal.proctoring.record.title', { student: who.externalUserId }),
    current: 'assignments',
    main,
    flash: opts.flash ?? null,
    clientMessages: plan ? TIMELINE_SCRIPT_MESSAGES : [],
  });
}

/** When the server received a flag's evidence snapshot (the caption's first time is the page's). */
function receivedNote(t: Translator, r: ProctoringReport, snapshotId: string | null): SafeHtml | string {
  const received = r.snapshots.find((s) => s.snapshotId === snapshotId)?.receivedAt;
  return received ? html`${t.t('portal.proctoring.evidence.received', { time: clockTime(received, t) })}` : '';
}

/** The summary links to the fields of the flag's own form (every form has an outcome and a note). */
function summaryErrors(r: ProctoringReport, form: ReviewFormState | undefined): ErrorDetail[] | undefined {
  if (!form) return undefined;
  const n = r.flags.findIndex((f) => f.id === form.flagId) + 1;
  return form.errors.map((e) => ({ ...e, field: e.field === 'outcome' ? `outcome-${n}-confirmed` : e.field === 'note' ? `note-${n}` : e.field }));
}

function reviewBadge(t: Translator, status: string): SafeHtml {
  if (status === 'pending') return html`<span class="badge badge-pending">${t.t('portal.proctoring.badge.pending')}</span>`;
  if (status === 'reviewed') return html`<span class="badge badge-completed">${t.t('portal.proctoring.badge.reviewed')}</span>`;
  return html`<span class="badge">${t.t('portal.proctoring.badge.notNeeded')}</span>`;
}

function reviewForm(scope: Scope, r: ProctoringReport, f: FlagView, n: number, state: ReviewFormState | undefined): SafeHtml {
  const { t } = scope;
  const values = state?.values ?? {};
  const outcomeError = errorFor(state?.errors, 'outcome');
  const noteError = errorFor(state?.errors, 'note');
  const label = t.t('portal.proctoring.kindAt', { kind: kindLabel(f.kind, t), time: `${f.startedAt.toISOString().slice(11, 19)} UTC` });
  return html`<form method="post" action="/portal/assignments/${r.assignmentId}/proctoring/review" class="panel review-form" aria-labelledby="review-${n}-title" novalidate>
${csrfField(scope.p.sessionCsrf)}${hiddenFields({ ...operatorField(scope), flagId: f.id })}
<h3 id="review-${n}-title">${label} <span class="hint">${t.t('portal.proctoring.form.duration', { duration: duration(t, f.durationSeconds) })}</span></h3>
<fieldset${outcomeError ? html` class="has-error" aria-describedby="outcome-${n}-error"` : ''}>
<legend>${t.t('portal.proctoring.form.outcomeFor', { flag: label })}</legend>
${outcomeError ? html`<p class="field-error" id="outcome-${n}-error"><span class="sr-only">${t.t('portal.form.errorPrefix')}</span> ${outcomeError}</p>` : ''}
<div class="checks">
<div class="check"><input type="radio" name="outcome" value="confirmed" id="f-outcome-${n}-confirmed"${values.outcome === 'confirmed' ? html` checked` : ''}><label for="f-outcome-${n}-confirmed">${t.t('portal.proctoring.form.confirmed')}</label></div>
<div class="check"><input type="radio" name="outcome" value="dismissed" id="f-outcome-${n}-dismissed"${values.outcome === 'dismissed' ? html` checked` : ''}><label for="f-outcome-${n}-dismissed">${t.t('portal.proctoring.form.dismissed')}</label></div>
</div>
</fieldset>
<div class="field${noteError ? ' has-error' : ''}">
<label for="f-note-${n}">${t.t('portal.proctoring.form.note')}<span class="sr-only"> ${t.t('portal.proctoring.form.onFlag', { flag: label })}</span></label>
<p class="hint" id="note-${n}-hint">${t.t('portal.proctoring.form.noteHint')}</p>
${noteError ? html`<p class="field-error" id="note-${n}-error"><span class="sr-only">${t.t('portal.form.errorPrefix')}</span> ${noteError}</p>` : ''}
<textarea id="f-note-${n}" name="note" rows="3" maxlength="2000" aria-describedby="note-${n}-hint${noteError ? ` note-${n}-error` : ''}"${noteError ? html` aria-invalid="true"` : ''}>
${values.note ?? ''}</textarea>
</div>
<button type="submit" class="button primary">${t.t('portal.proctoring.form.submit')}<span class="sr-only"> ${t.t('portal.proctoring.form.ofFlag', { flag: label })}</span></button>
</form>`;
}
