import type { AppContext } from '../../../platform/context.js';
import type { ErrorDetail } from '../../../platform/errors.js';
import { formatPoints, html, type SafeHtml } from '../../../platform/web/html.js';
import type { MarkingItem } from '../../marking/get-marking-view.js';
import type { DraftMark, OpenedItem } from '../../marking/reviewer-marking.js';
import { answerView, contentBlock, markView, passageNote, scoreFacts, sectionGroups } from '../assignments/answer-view.js';
import { fileAnswerView } from '../assignments/answer-file-view.js';
import type { AnswerFileSummary } from '../../attempts/answer-files.js';
import { ago, csrfField, errorFor, errorSummary, hiddenFields, statusBadge, textArea, textField, when, type Flash } from '../ui/components.js';
import { layoutFor, operatorField, type Scope } from '../ui/page.js';
import { staffContent } from '../../catalog/content/rendered-content.js';
import { pageTexts, type PageTexts } from '../../student/pages/page-content.js';
import { aiMarkingStatus } from '../../marking/ai/ai-status.js';
import { acceptForm, aiStatusNotice, aiSuggestionPanel } from './ai-suggestion-view.js';

/**
 * The marking form: each item's question, rubric and points beside the
 * student's answer; for items a reviewer marks, a points field whose label
 * holds the question's prompt, and a comment field.
 */
export function markingItemPage(
  ctx: AppContext,
  scope: Scope,
  opened: OpenedItem,
  opts: {
    flash?: Flash | null;
    errors?: ErrorDetail[];
    submitted?: { values: Record<string, string>; baseVersion: string };
    /** The files that answer file_upload questions, by question id. */
    files?: ReadonlyMap<string, AnswerFileSummary>;
  },
): string {
  const fileOf = (questionId: string) => fileAnswerView(scope, opts.files?.get(questionId), { preview: true, download: true });
  const v = opened.view;
  const now = ctx.clock.now();
  const title = `Marking: ${v.title} for ${studentText(v)}`;
  const values = opts.submitted?.values ?? draftValues(opened.draft?.marks ?? []);
  const baseVersion = opts.submitted?.baseVersion ?? opened.version;
  const manual = v.items.filter((i) => i.needsMarking);
  const head = html`<nav class="breadcrumbs" aria-label="Breadcrumb"><ol><li><a href="${scope.link('/portal/marking')}">Marking</a></li><li aria-current="page">${studentText(v)}</li></ol></nav>
<div class="page-head"><h1>${v.title} <span class="hint">for</span> ${studentLabel(v)}</h1><p>${statusBadge(v.status)}</p></div>`;

  if (v.status !== 'marking') {
    const main = html`${head}
<p class="notice">This submission is not waiting for marking: it is ${v.status}. The marks below are final.</p>
<dl class="facts">${scoreFacts(v.score)}</dl>
${grouped(opened, (item) => markView(item), fileOf)}
<p><a href="${scope.link(`/portal/assignments/${v.assignmentId}`)}">Open the assignment</a></p>`;
    return layoutFor(scope, { title, current: 'marking', main, flash: opts.flash ?? null });
  }

  const main = html`${head}
${opened.others.length > 0
  ? html`<div class="notice" role="status"><h2>Someone else is marking this</h2>${opened.others.map(
      (o) => html`<p><strong>${o.label}</strong> opened this ${ago(o.openedAt, now)}.</p>`,
    )}<p>Agree who marks it: if they finish first, your marks will not be saved and you will be shown theirs.</p></div>`
  : ''}
${opened.draft && !opts.submitted
  ? html`<p class="notice">Your draft from ${ago(opened.draft.updatedAt, now)} is filled in below.${
      opened.draft.baseVersion !== opened.version ? ' The marks changed since you saved it: check them before you finish.' : ''
    }</p>`
  : ''}
<dl class="facts">
<dt>Submitted</dt><dd>${when(v.submittedAt)}</dd>
${scoreFacts(v.score)}
<dt>To mark</dt><dd>${manual.length} item${manual.length === 1 ? '' : 's'}</dd>
</dl>
${v.items.some((i) => i.ai) ? aiStatusNotice(aiMarkingStatus(ctx.config)) : ''}
${errorSummary(opts.errors)}
<form method="post" action="/portal/marking/${v.assignmentId}" novalidate>
${csrfField(scope.p.sessionCsrf)}${hiddenFields({ ...operatorField(scope), version: baseVersion })}
${grouped(opened, (item) => (item.needsMarking ? markFields(item, values, opts.errors) : markView(item)), fileOf)}
<div class="actions panel">
<button type="submit" name="action" value="save" class="button">Save draft</button>
<button type="submit" name="action" value="finish" class="button primary">Finish marking</button>
<p class="hint">Finish marking releases the final score to the partner (<code>grading.done</code>). Every item needs points first.</p>
</div>
</form>
${acceptForm(scope, v.assignmentId, baseVersion, v.items)}`;
  return layoutFor(scope, { title, current: 'marking', main, flash: opts.flash ?? null });
}

/** Who submitted: the name the partner sent, with their external user id beside it; the id alone without a name. */
export function studentLabel(s: { studentName: string | null; externalUserId: string }): SafeHtml {
  return s.studentName ? html`${s.studentName} <span class="hint">(${s.externalUserId})</span>` : html`${s.externalUserId}`;
}

export function studentText(s: { studentName: string | null; externalUserId: string }): string {
  return s.studentName ? `${s.studentName} (${s.externalUserId})` : s.externalUserId;
}

function draftValues(marks: DraftMark[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const m of marks) {
    out[`points-${m.questionId}`] = m.points === null ? '' : String(m.points);
    out[`comment-${m.questionId}`] = m.comment;
    m.criteria?.forEach((c, n) => {
      out[`criterion-${m.questionId}-${n}`] = c.points === null ? '' : String(c.points);
      out[`criterion-comment-${m.questionId}-${n}`] = c.comment;
    });
  }
  return out;
}

/**
 * The items in the order the candidate saw them (only the questions drawn
 * for them); a test with sections puts each section's items under its title.
 */
function grouped(opened: OpenedItem, rightOf: (item: MarkingItem) => SafeHtml, fileOf: (questionId: string) => SafeHtml): SafeHtml {
  const groups = sectionGroups(opened.view);
  // The fields name their item by its prompt in plain text (an accessible name holds no markup).
  const texts = textsOf(opened);
  const right = (item: MarkingItem) => rightOf({ ...item, prompt: texts.text(item.prompt) });
  if (groups.length === 1 && groups[0]!.title === null) return html`${groups[0]!.items.map(({ item, index }) => itemBlock(item, index, opened, right(item), 2, fileOf))}`;
  return html`${groups.map(
    (g, n) => html`<section aria-labelledby="section-${n + 1}">
<h2 class="section-head" id="section-${n + 1}">${g.title}</h2>
${g.items.map(({ item, index }) => itemBlock(item, index, opened, right(item), 3, fileOf))}
</section>`,
  )}`;
}

/** The version's texts for staff: rendered once per version, images from /portal/content-assets. */
const textsOf = (opened: OpenedItem): PageTexts => pageTexts({ testVersionId: opened.view.testVersionId, contentFormat: opened.contentFormat }, staffContent);

function itemBlock(item: MarkingItem, i: number, opened: OpenedItem, right: SafeHtml, level: 2 | 3, fileOf: (questionId: string) => SafeHtml): SafeHtml {
  const q = opened.view.items[i]!;
  const texts = textsOf(opened);
  const question = opened.questions.get(item.questionId);
  const sub = level + 1;
  return html`<section class="question" aria-labelledby="item-${i + 1}">
<div class="side-by-side">
<div>
<h${level} id="item-${i + 1}">Question ${i + 1} <span class="hint">(${formatPoints(q.maxPoints)} point${q.maxPoints === 1 ? '' : 's'}${q.needsMarking ? ', marked by a reviewer' : ', marked automatically'})</span></h${level}>
${passageNote(texts, question, opened.passages)}
${contentBlock(texts, 'prompt', `${item.questionId}.prompt`, item.prompt)}
${item.scoring ? html`<p class="hint scoring-note">${item.scoring.note}</p>` : ''}
${item.rubric ? html`<h${sub}>Rubric</h${sub}>${contentBlock(texts, 'rubric', `${item.questionId}.rubric`, item.rubric)}` : ''}
</div>
<div>
<h${sub}>Answer${item.wordCount !== null ? html` <span class="hint">(${item.wordCount} word${item.wordCount === 1 ? '' : 's'}${item.maxWords ? ` of at most ${item.maxWords}` : ''})</span>` : ''}</h${sub}>
${answerView(question, item.answer, question?.type === 'file_upload' ? fileOf(item.questionId) : undefined, texts)}
${item.ai ? aiSuggestionPanel(item, i + 1) : ''}
${right}
</div>
</div>
</section>`;
}

function markFields(item: MarkingItem, values: Record<string, string>, errors: ErrorDetail[] | undefined): SafeHtml {
  if (item.criteria) return criteriaFields(item, item.criteria, values, errors);
  const points = `points-${item.questionId}`;
  const comment = `comment-${item.questionId}`;
  return html`<div class="mark-fields">
${textField({
  name: points,
  // The prompt is in the accessible name (which item these points are for); the eye has it beside the field.
  label: html`Points<span class="sr-only"> for “${item.prompt}”</span>`,
  hint: `0 to ${formatPoints(item.maxPoints)}`,
  type: 'number',
  // Prefilled with the model's suggestion: the reviewer confirms or changes it.
  value: values[points] ?? (item.mark ? String(item.mark.points) : item.ai?.status === 'suggested' && item.ai.points !== null ? String(item.ai.points) : ''),
  error: errorFor(errors, points),
  min: '0',
  max: String(item.maxPoints),
  step: 'any',
  inputmode: 'decimal',
})}
${textArea({ name: comment, label: html`Comment<span class="sr-only"> on “${item.prompt}”</span>`, value: values[comment] ?? item.mark?.comment ?? '', hint: 'Optional. Kept with the mark.', error: errorFor(errors, comment), rows: 3, maxlength: 10_000 })}
</div>
${item.mark ? html`<p class="hint">Currently: ${formatPoints(item.mark.points)} points, by ${item.mark.markedBy ?? 'a reviewer'}.</p>` : ''}`;
}

/**
 * An item with criteria: a points field per criterion (its label the
 * criterion, with the prompt for screen readers; bounded by the criterion's
 * points) and an optional comment on each, then the question's total, their
 * sum: computed, never typed. The total is an <output> (a polite live region)
 * that portal.js keeps in step as points are typed; without the script it
 * shows the sum of the values the page was drawn with.
 */
function criteriaFields(
  item: MarkingItem,
  criteria: NonNullable<MarkingItem['criteria']>,
  values: Record<string, string>,
  errors: ErrorDetail[] | undefined,
): SafeHtml {
  const q = item.questionId;
  const byName = new Map((item.mark?.criteria ?? []).map((c) => [c.criterion, c]));
  const aiByName = new Map(item.ai?.status === 'suggested' ? (item.ai.criteria ?? []).map((c) => [c.criterion, c]) : []);
  const shown = criteria.map((c, n) => {
    const field = `criterion-${q}-${n}`;
    const comment = `criterion-comment-${q}-${n}`;
    // Prefilled from the stored mark, else the model's suggestion: the reviewer confirms or changes it.
    const stored = byName.get(c.criterion);
    const ai = aiByName.get(c.criterion);
    return { c, field, comment, points: values[field] ?? (stored ? String(stored.points) : ai ? String(ai.points) : ''), note: values[comment] ?? stored?.comment ?? '' };
  });
  const numbers = shown.map((s) => (/^\d+(\.\d+)?$/.test(s.points.trim()) ? Number(s.points.trim()) : null));
  const total = numbers.every((x) => x !== null) ? formatPoints(numbers.reduce<number>((a, x) => a + x!, 0)) : null;
  const fieldIds = shown.map((s) => `f-${s.field}`).join(' ');
  return html`<fieldset class="mark-fields criteria-marks" data-total="total-${q}">
<legend>Points per criterion<span class="sr-only"> for “${item.prompt}”</span></legend>
${shown.map(
  (s) => html`<div class="criterion-mark">
${textField({
  name: s.field,
  label: html`${s.c.criterion}<span class="sr-only"> points for “${item.prompt}”</span>`,
  hint: html`0 to ${formatPoints(s.c.points)}${s.c.description ? html`. ${s.c.description}` : ''}`,
  type: 'number',
  value: s.points,
  error: errorFor(errors, s.field),
  min: '0',
  max: String(s.c.points),
  step: 'any',
  inputmode: 'decimal',
  className: 'criterion-points',
})}
${textArea({ name: s.comment, label: html`Comment on ${s.c.criterion}<span class="sr-only"> for “${item.prompt}”</span>`, value: s.note, hint: 'Optional.', error: errorFor(errors, s.comment), rows: 2, maxlength: 10_000 })}
</div>`,
)}
<p class="criteria-total">Total: <output id="total-${q}" for="${fieldIds}" aria-live="polite">${total ?? '–'}</output> of ${formatPoints(item.maxPoints)} points <span class="hint">(the sum of the criteria)</span></p>
${textArea({ name: `comment-${q}`, label: html`Overall comment<span class="sr-only"> on “${item.prompt}”</span>`, value: values[`comment-${q}`] ?? item.mark?.comment ?? '', hint: 'Optional. Kept with the mark.', error: errorFor(errors, `comment-${q}`), rows: 3, maxlength: 10_000 })}
</fieldset>
${item.mark ? html`<p class="hint">Currently: ${formatPoints(item.mark.points)} points, by ${item.mark.markedBy ?? 'a reviewer'}.</p>` : ''}`;
}

/** A save or finish refused because the marks changed meanwhile: what is stored now, beside what this reviewer entered. */
export function conflictPage(scope: Scope, now: OpenedItem, mine: DraftMark[]): string {
  const v = now.view;
  const texts = textsOf(now);
  const main = html`<div class="conflict" role="alert">
<h1>Your marks were not saved</h1>
<p>The marks of this submission changed after you opened it${v.status === 'marking' ? '' : html`, and marking has been finished (it is now ${v.status})`}. Nothing you entered was stored, and nothing of the other marks was replaced.</p>
</div>
<h2>The marks now</h2>
<dl class="facts">${scoreFacts(v.score)}</dl>
${v.items.filter((i) => i.needsMarking).map((shown) => {
  // A heading and the marks' caption name the item by its prompt in plain words.
  const item = { ...shown, prompt: texts.text(shown.prompt) };
  const m = mine.find((x) => x.questionId === item.questionId);
  return html`<section class="question"><h3>${item.prompt}</h3>
${markView(item)}
<p class="hint">You entered: ${m && m.points !== null ? `${formatPoints(m.points)} points` : 'no points'}${
    m?.criteria ? html` (${m.criteria.map((c, n) => html`${n > 0 ? '; ' : ''}${c.criterion}: ${c.points === null ? 'no points' : formatPoints(c.points)}`)})` : ''
  }${m?.comment ? html`, comment “${m.comment}”` : ''}.</p></section>`;
})}
<p class="actions">${v.status === 'marking' ? html`<a class="button primary" href="${scope.link(`/portal/marking/${v.assignmentId}`)}">Open it again with the current marks</a>` : ''}
<a class="button" href="${scope.link('/portal/marking')}">Back to the queue</a></p>`;
  return layoutFor(scope, { title: 'Your marks were not saved', current: 'marking', main });
}
