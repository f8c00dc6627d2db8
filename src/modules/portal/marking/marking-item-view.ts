import type { AppContext } from '../../../platform/context.js';
import type { Translator } from '../../../platform/i18n/catalogue.js';
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
import { pageTexts } from '../../student/pages/page-content.js';
import { markedTexts, ownText, type MarkedTexts } from '../../catalog/content/content-lang.js';
import { aiMarkingStatus } from '../../marking/ai/ai-status.js';
import { acceptForm, aiStatusNotice, aiSuggestionPanel } from './ai-suggestion-view.js';
import { richText } from '../ui/portal-text.js';
import { feedbackSummary, feedbackValues, overallFeedbackPanel, questionFeedbackField } from './feedback-fields.js';

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
  const { t } = scope;
  const fileOf = (questionId: string) => fileAnswerView(scope, opts.files?.get(questionId), { preview: true, download: true });
  const v = opened.view;
  const now = ctx.clock.now();
  const title = t.t('portal.marking.item.title', { test: v.title, student: studentText(v) });
  // The feedback fields start from the reviewer's draft, else from the feedback stored (sent through the operator API, say).
  const values = opts.submitted?.values ?? { ...draftValues(opened.draft?.marks ?? []), ...feedbackValues(opened.draft?.feedback ?? v.feedback) };
  const numberOf = (questionId: string) => v.items.findIndex((i) => i.questionId === questionId) + 1;
  const baseVersion = opts.submitted?.baseVersion ?? opened.version;
  const manual = v.items.filter((i) => i.needsMarking);
  const head = html`<nav class="breadcrumbs" aria-label="${t.t('portal.breadcrumb')}"><ol><li><a href="${scope.link('/portal/marking')}">${t.t('portal.marking.title')}</a></li><li aria-current="page">${studentText(v)}</li></ol></nav>
<div class="page-head"><h1>${richText(t, 'portal.marking.item.heading', {
    test: html`${ownText(textsOf(opened), v.title)}`,
    for: html`<span class="hint">${t.t('portal.marking.item.headingFor')}</span>`,
    student: studentLabel(v),
  })}</h1><p>${statusBadge(v.status, t)}</p></div>`;

  if (v.status !== 'marking') {
    const main = html`${head}
<p class="notice">${t.t('portal.marking.item.notWaiting', { status: v.status })}</p>
<dl class="facts">${scoreFacts(v.score, t)}</dl>
${grouped(t, opened, (item) => markView(item, t), fileOf)}
${feedbackSummary(t, v.feedback, numberOf)}
<p><a href="${scope.link(`/portal/assignments/${v.assignmentId}`)}">${t.t('portal.marking.item.openAssignment')}</a></p>`;
    return layoutFor(scope, { title, current: 'marking', main, flash: opts.flash ?? null });
  }

  const main = html`${head}
${opened.others.length > 0
  ? html`<div class="notice" role="status"><h2>${t.t('portal.marking.item.someoneElse')}</h2>${opened.others.map(
      (o) => html`<p>${richText(t, 'portal.marking.item.openedBy', { who: html`<strong>${o.label}</strong>`, ago: ago(o.openedAt, now, t) })}</p>`,
    )}<p>${t.t('portal.marking.item.agreeWhoMarks')}</p></div>`
  : ''}
${opened.draft && !opts.submitted
  ? html`<p class="notice">${t.t('portal.marking.item.draftFrom', { ago: ago(opened.draft.updatedAt, now, t) })}${
      opened.draft.baseVersion !== opened.version ? html` ${t.t('portal.marking.item.draftOutdated')}` : ''
    }</p>`
  : ''}
<dl class="facts">
<dt>${t.t('portal.marking.item.submitted')}</dt><dd>${when(v.submittedAt, t)}</dd>
${scoreFacts(v.score, t)}
<dt>${t.t('portal.marking.item.toMark')}</dt><dd>${t.t('portal.marking.item.items', { items: manual.length })}</dd>
</dl>
${v.items.some((i) => i.ai) ? aiStatusNotice(aiMarkingStatus(ctx.config), t) : ''}
${errorSummary(opts.errors, t)}
<form method="post" action="/portal/marking/${v.assignmentId}" novalidate>
${csrfField(scope.p.sessionCsrf)}${hiddenFields({ ...operatorField(scope), version: baseVersion })}
${grouped(t, opened, (item) => (item.needsMarking ? html`${markFields(t, item, values, opts.errors)}${questionFeedbackField(t, item, values, opts.errors)}` : markView(item, t)), fileOf)}
${overallFeedbackPanel(t, values, opts.errors)}
<div class="actions panel">
<button type="submit" name="action" value="save" class="button">${t.t('portal.marking.item.saveDraft')}</button>
<button type="submit" name="action" value="finish" class="button primary">${t.t('portal.marking.item.finish')}</button>
<p class="hint">${richText(t, 'portal.marking.item.finishHint', { event: html`<code>grading.done</code>` })}</p>
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
function grouped(t: Translator, opened: OpenedItem, rightOf: (item: MarkingItem) => SafeHtml, fileOf: (questionId: string) => SafeHtml): SafeHtml {
  const groups = sectionGroups(opened.view);
  // The fields name their item by its prompt in plain text (an accessible name holds no markup).
  const texts = textsOf(opened);
  const right = (item: MarkingItem) => rightOf({ ...item, prompt: texts.text(item.prompt) });
  if (groups.length === 1 && groups[0]!.title === null) return html`${groups[0]!.items.map(({ item, index }) => itemBlock(t, item, index, opened, right(item), 2, fileOf))}`;
  return html`${groups.map(
    (g, n) => html`<section aria-labelledby="section-${n + 1}">
<h2 class="section-head" id="section-${n + 1}">${ownText(texts, g.title)}</h2>
${g.items.map(({ item, index }) => itemBlock(t, item, index, opened, right(item), 3, fileOf))}
</section>`,
  )}`;
}

/** The version's texts for staff: rendered once per version, images from /portal/content-assets; marked with the test's language where it is not the page's. */
const textsOf = (opened: OpenedItem): MarkedTexts => markedTexts(pageTexts({ testVersionId: opened.view.testVersionId, contentFormat: opened.contentFormat }, staffContent), opened);

function itemBlock(t: Translator, item: MarkingItem, i: number, opened: OpenedItem, right: SafeHtml, level: 2 | 3, fileOf: (questionId: string) => SafeHtml): SafeHtml {
  const q = opened.view.items[i]!;
  const texts = textsOf(opened);
  const question = opened.questions.get(item.questionId);
  const sub = level + 1;
  return html`<section class="question" aria-labelledby="item-${i + 1}">
<div class="side-by-side">
<div>
<h${level} id="item-${i + 1}">${t.t('portal.marking.item.question', { n: i + 1 })} <span class="hint">${t.t('portal.marking.item.questionPoints', {
  max: q.maxPoints,
  points: formatPoints(q.maxPoints),
  by: q.needsMarking ? 'reviewer' : 'automatic',
})}</span></h${level}>
${passageNote(texts, question, opened.passages, t)}
${contentBlock(texts, 'prompt', `${item.questionId}.prompt`, item.prompt)}
${item.scoring ? html`<p class="hint scoring-note">${item.scoring.note}</p>` : ''}
${item.rubric ? html`<h${sub}>${t.t('portal.marking.item.rubric')}</h${sub}>${contentBlock(texts, 'rubric', `${item.questionId}.rubric`, item.rubric)}` : ''}
</div>
<div>
<h${sub}>${t.t('portal.marking.item.answer')}${item.wordCount !== null ? html` <span class="hint">${wordCount(t, item.wordCount, item.maxWords)}</span>` : ''}</h${sub}>
${answerView(question, item.answer, question?.type === 'file_upload' ? fileOf(item.questionId) : undefined, texts, t)}
${item.ai ? aiSuggestionPanel(item, i + 1, t) : ''}
${right}
</div>
</div>
</section>`;
}

/** "(120 words of at most 300)": counts as digits without grouping, as the candidate's counter shows them. */
function wordCount(t: Translator, words: number, maxWords: number | null | undefined): string {
  return maxWords
    ? t.t('portal.marking.item.wordCountOf', { words, count: String(words), max: String(maxWords) })
    : t.t('portal.marking.item.wordCount', { words, count: String(words) });
}

function markFields(t: Translator, item: MarkingItem, values: Record<string, string>, errors: ErrorDetail[] | undefined): SafeHtml {
  if (item.criteria) return criteriaFields(t, item, item.criteria, values, errors);
  const points = `points-${item.questionId}`;
  const comment = `comment-${item.questionId}`;
  return html`<div class="mark-fields">
${textField({
  name: points,
  // The prompt is in the accessible name (which item these points are for); the eye has it beside the field.
  label: html`${t.t('portal.marking.item.points')}<span class="sr-only"> ${t.t('portal.marking.item.forPrompt', { prompt: item.prompt })}</span>`,
  hint: t.t('portal.marking.item.pointsRange', { max: formatPoints(item.maxPoints) }),
  type: 'number',
  // Prefilled with the model's suggestion: the reviewer confirms or changes it.
  value: values[points] ?? (item.mark ? String(item.mark.points) : item.ai?.status === 'suggested' && item.ai.points !== null ? String(item.ai.points) : ''),
  error: errorFor(errors, points),
  min: '0',
  max: String(item.maxPoints),
  step: 'any',
  inputmode: 'decimal',
  t,
})}
${textArea({
  name: comment,
  label: html`${t.t('portal.marking.item.comment')}<span class="sr-only"> ${t.t('portal.marking.item.onPrompt', { prompt: item.prompt })}</span>`,
  value: values[comment] ?? item.mark?.comment ?? '',
  hint: t.t('portal.marking.item.commentHint'),
  error: errorFor(errors, comment),
  rows: 3,
  maxlength: 10_000,
  t,
})}
</div>
${currentMark(t, item)}`;
}

/** The mark stored now, under the fields that may change it. */
function currentMark(t: Translator, item: MarkingItem): SafeHtml | string {
  return item.mark
    ? html`<p class="hint">${t.t('portal.marking.item.currently', { points: formatPoints(item.mark.points), by: item.mark.markedBy ?? t.t('portal.marking.item.aReviewer') })}</p>`
    : '';
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
  t: Translator,
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
<legend>${t.t('portal.marking.item.pointsPerCriterion')}<span class="sr-only"> ${t.t('portal.marking.item.forPrompt', { prompt: item.prompt })}</span></legend>
${shown.map(
  (s) => html`<div class="criterion-mark">
${textField({
  name: s.field,
  label: html`${s.c.criterion}<span class="sr-only"> ${t.t('portal.marking.item.pointsForPrompt', { prompt: item.prompt })}</span>`,
  hint: s.c.description
    ? t.t('portal.marking.item.pointsRangeDescribed', { max: formatPoints(s.c.points), description: s.c.description })
    : t.t('portal.marking.item.pointsRange', { max: formatPoints(s.c.points) }),
  type: 'number',
  value: s.points,
  error: errorFor(errors, s.field),
  min: '0',
  max: String(s.c.points),
  step: 'any',
  inputmode: 'decimal',
  className: 'criterion-points',
  t,
})}
${textArea({
  name: s.comment,
  label: html`${t.t('portal.marking.item.commentOnCriterion', { criterion: s.c.criterion })}<span class="sr-only"> ${t.t('portal.marking.item.forPrompt', { prompt: item.prompt })}</span>`,
  value: s.note,
  hint: t.t('portal.marking.item.optional'),
  error: errorFor(errors, s.comment),
  rows: 2,
  maxlength: 10_000,
  t,
})}
</div>`,
)}
<p class="criteria-total">${richText(t, 'portal.marking.item.criteriaTotal', {
    total: html`<output id="total-${q}" for="${fieldIds}" aria-live="polite">${total ?? '–'}</output>`,
    max: formatPoints(item.maxPoints),
  })} <span class="hint">${t.t('portal.marking.item.sumOfCriteria')}</span></p>
${textArea({
  name: `comment-${q}`,
  label: html`${t.t('portal.marking.item.overallComment')}<span class="sr-only"> ${t.t('portal.marking.item.onPrompt', { prompt: item.prompt })}</span>`,
  value: values[`comment-${q}`] ?? item.mark?.comment ?? '',
  hint: t.t('portal.marking.item.commentHint'),
  error: errorFor(errors, `comment-${q}`),
  rows: 3,
  maxlength: 10_000,
  t,
})}
</fieldset>
${currentMark(t, item)}`;
}

/** A save or finish refused because the marks changed meanwhile: what is stored now, beside what this reviewer entered. */
export function conflictPage(scope: Scope, now: OpenedItem, mine: DraftMark[]): string {
  const { t } = scope;
  const v = now.view;
  const texts = textsOf(now);
  const main = html`<div class="conflict" role="alert">
<h1>${t.t('portal.marking.conflict.title')}</h1>
<p>${v.status === 'marking' ? t.t('portal.marking.conflict.changed') : t.t('portal.marking.conflict.changedAndFinished', { status: v.status })}</p>
</div>
<h2>${t.t('portal.marking.conflict.marksNow')}</h2>
<dl class="facts">${scoreFacts(v.score, t)}</dl>
${v.items.filter((i) => i.needsMarking).map((shown) => {
  // A heading and the marks' caption name the item by its prompt in plain words.
  const item = { ...shown, prompt: texts.text(shown.prompt) };
  const m = mine.find((x) => x.questionId === item.questionId);
  return html`<section class="question"><h3>${item.prompt}</h3>
${markView(item, t)}
<p class="hint">${t.t('portal.marking.conflict.youEntered', { entered: entered(t, m) })}</p></section>`;
})}
<p class="actions">${v.status === 'marking' ? html`<a class="button primary" href="${scope.link(`/portal/marking/${v.assignmentId}`)}">${t.t('portal.marking.conflict.openAgain')}</a>` : ''}
<a class="button" href="${scope.link('/portal/marking')}">${t.t('portal.marking.conflict.backToQueue')}</a></p>`;
  return layoutFor(scope, { title: t.t('portal.marking.conflict.title'), current: 'marking', main });
}

/** What the refused form held for one item: its points, each criterion's, and the comment. */
function entered(t: Translator, m: DraftMark | undefined): string {
  const points = m && m.points !== null ? t.t('portal.marking.conflict.points', { points: formatPoints(m.points) }) : t.t('portal.marking.conflict.noPoints');
  const criteria = m?.criteria
    ? t.t('portal.marking.conflict.criteria', {
        points,
        criteria: m.criteria
          .map((c) => t.t('portal.marking.conflict.criterion', { criterion: c.criterion, points: c.points === null ? t.t('portal.marking.conflict.noPoints') : formatPoints(c.points) }))
          .join('; '),
      })
    : points;
  return m?.comment ? t.t('portal.marking.conflict.withComment', { marks: criteria, comment: m.comment }) : criteria;
}
