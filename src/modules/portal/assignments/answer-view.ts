import { formatPoints, html, plural, SafeHtml } from '../../../platform/web/html.js';
import type { AnswerValue } from '../../attempts/answer-values.js';
import type { MarkingItem } from '../../marking/get-marking-view.js';
import type { Score } from '../../lifecycle/score.js';
import type { BuiltInQuestion, Passage, Question } from '../../catalog/schemas.js';
import type { AnswerJson, BaseQuestion } from '../../catalog/question-types/definition.js';
import { questionType } from '../../catalog/question-types/registry.js';
import { passageName } from '../../catalog/passages.js';
import { partQuestion } from '../../catalog/composite.js';
import { markQuestion } from '../../marking/auto-mark.js';
import { dataTable, when } from '../ui/components.js';
import { plainTexts, type PageTexts } from '../../student/pages/page-content.js';

type Of<T extends BuiltInQuestion['type']> = Extract<BuiltInQuestion, { type: T }>;

/** A plain text in its paragraph as always; Markdown is block content, in a div that lets it flow. */
export function contentBlock(texts: PageTexts, className: string, field: string, source: string): SafeHtml {
  const shown = texts.block(field, source);
  return texts.markdown ? html`<div class="${className} content">${shown}</div>` : html`<p class="${className}">${shown}</p>`;
}

/**
 * The passage a question was shown with: its name, and its text behind a
 * disclosure (a reviewer mostly needs to know which passage; the text is
 * there when they do). Nothing for a question without one.
 */
export function passageNote(texts: PageTexts, question: { passageId?: string } | undefined, passages: readonly Passage[]): SafeHtml | '' {
  const p = question?.passageId !== undefined ? passages.find((x) => x.id === question.passageId) : undefined;
  if (!p) return '';
  return html`<details class="passage-note"><summary>Passage: ${passageName(p)}</summary>${contentBlock(texts, 'passage-text', `passages.${p.id}.text`, p.text)}</details>`;
}

const notAnswered = html`<p class="empty">Not answered.</p>`;
const isRecord = (v: AnswerValue): v is Readonly<Record<string, string>> => typeof v === 'object' && v !== null && !Array.isArray(v);
/** "right" or "wrong" in words beside each part, so the verdict never rests on colour. */
const verdict = (right: boolean) => (right ? html`<span class="badge badge-right">right</span>` : html`<span class="badge badge-wrong">wrong</span>`);

/**
 * A student's answer as people read it, never bare ids: for choice
 * questions the option texts (which were chosen, which are correct);
 * matching as "stem → choice" pairs; ordering as the numbered list the
 * student left; fill_blanks as the text with the blanks filled in, each
 * marked right or wrong; text answers as typed; a composite question as
 * each part (Part 1, Part 2, … as the student page names them) with its
 * prompt, its answer in its own type's words and its points. The test's texts are
 * rendered in its content format through `texts` (staff's cache, asset URLs
 * under /portal); the student's own answer is always shown as typed.
 */
export function answerView(q: Question | undefined, answer: AnswerValue, file?: SafeHtml, texts: PageTexts = plainTexts): SafeHtml {
  const shown = answerBody(q, answer, file, texts);
  // The key beside the answer is the item's declared correct response; the mark comes from running its processing, which may give other answers points too.
  if (q && 'scoring' in q && q.scoring) return html`<p class="hint">Marked by its imported QTI response processing: the correct answer shown is the item's declared one, and the mark may differ from it.</p>${shown}`;
  return shown;
}

function answerBody(question: Question | undefined, answer: AnswerValue, file: SafeHtml | undefined, texts: PageTexts): SafeHtml {
  // A registered type shows its own answer (catalog/question-types).
  const def = question ? questionType(question.type) : undefined;
  // A file answer's file is drawn by the caller, who knows the file and the reader (answer-file-view.ts).
  if (question && def) return def.review(question as BaseQuestion, (answer ?? null) as AnswerJson, file ? { texts, file } : { texts });
  const q = question as BuiltInQuestion | undefined;
  if (q?.type === 'composite') return compositeView(q, answer, texts);
  if (answer === null || (typeof answer === 'string' && answer.trim() === '')) return notAnswered;
  const text = Array.isArray(answer) ? answer.join(', ') : isRecord(answer) ? Object.values(answer).join(', ') : answer;
  return html`<p class="answer">${text}</p>`;
}

/** Each part in a list item: its name, its points of its points (none when kept QTI processing marks the parts together), its prompt and the answer as its own type shows it. */
function compositeView(q: Of<'composite'>, answer: AnswerValue, texts: PageTexts): SafeHtml {
  const given = isRecord(answer) ? (answer as Readonly<Record<string, AnswerValue>>) : {};
  return html`<ol class="answer-parts">${q.parts.map((part, k) => {
    const shown = partQuestion(q, part);
    const value = given[part.id] ?? null;
    const mark = markQuestion(shown, value);
    const points = mark.kind === 'auto' ? `${formatPoints(mark.points)} of ${plural(Number(formatPoints(part.points)), 'point')}` : `of ${plural(Number(formatPoints(part.points)), 'point')}`;
    // Kept QTI processing marks the parts together: a part has no points of its own to show.
    const title = q.scoring ? html`<strong>Part ${k + 1}</strong>` : html`<strong>Part ${k + 1}</strong> <span class="hint">(${points})</span>`;
    return html`<li class="answer-part"><p class="answer-part-title">${title}</p>
${contentBlock(texts, 'prompt', `${shown.id}.prompt`, part.prompt)}
${answerView(shown, value, undefined, texts)}</li>`;
  })}</ol>`;
}

export function markView(item: MarkingItem): SafeHtml {
  if (!item.mark) return item.needsMarking ? html`<p><strong>Awaiting a reviewer’s mark</strong> (out of ${formatPoints(item.maxPoints)}).</p>` : html``;
  const m = item.mark;
  const by = m.source === 'auto' ? 'marked automatically' : `marked by ${m.markedBy ?? 'a reviewer'}`;
  return html`<p><strong>${formatPoints(m.points)} of ${plural(Number(formatPoints(item.maxPoints)), 'point')}</strong>, ${by}, ${when(m.markedAt)}.</p>
${m.criteria && m.criteria.length > 0
  ? dataTable({
      caption: html`Marks per criterion<span class="sr-only"> for “${item.prompt}”</span>`,
      stack: true,
      columns: [{ label: 'Criterion' }, { label: 'Points', numeric: true }, { label: 'Comment' }],
      rows: m.criteria.map((c) => [c.criterion, `${formatPoints(c.points)} of ${formatPoints(c.maxPoints)}`, c.comment ?? '–']),
    })
  : ''}
${m.comment ? html`<p class="hint">Comment: ${m.comment}</p>` : ''}`;
}

/** A score in a table cell: "7/8 (87.5%)", or "2/10 so far" while a reviewer has still to mark. */
export function formatScore(s: Score): string {
  return s.gradingStatus === 'pending_review'
    ? `${formatPoints(s.points)}/${formatPoints(s.maxPoints)} so far`
    : `${formatPoints(s.points)}/${formatPoints(s.maxPoints)} (${s.percent}%)`;
}

export function scoreFacts(s: Score | null): SafeHtml {
  if (!s) return html`<dt>Score</dt><dd>None yet</dd>`;
  if (s.gradingStatus === 'pending_review') {
    return html`<dt>Score</dt><dd>${formatPoints(s.points)} of ${formatPoints(s.maxPoints)} points so far, from the automatically marked items; waiting for a reviewer</dd>${sectionFacts(s)}`;
  }
  const passed = s.passed === null ? 'no pass mark' : s.passed ? 'passed' : 'not passed';
  return html`<dt>Score</dt><dd>${formatPoints(s.points)} of ${formatPoints(s.maxPoints)} points (${s.percent}%), ${passed}; final</dd>${sectionFacts(s)}`;
}

/** A sectioned test's score per section (absent for a flat test). */
function sectionFacts(s: Score): SafeHtml | string {
  if (!s.sections || s.sections.length === 0) return '';
  return html`<dt>Score per section${s.gradingStatus === 'pending_review' ? ' so far' : ''}</dt><dd><ul class="section-scores">${s.sections.map(
    (x) => html`<li>${x.title}: ${formatPoints(x.points)} of ${formatPoints(x.maxPoints)} points (${x.percent}%)</li>`,
  )}</ul></dd>`;
}

/**
 * The items of a marking view grouped by the sections the candidate was
 * given, in the order they saw them, numbered through the whole test; a
 * flat test is one group without a title.
 */
export function sectionGroups<T extends { questionId: string }>(view: {
  items: T[];
  sections?: Array<{ sectionId: string; title: string; questionIds: string[] }>;
}): Array<{ sectionId: string; title: string | null; items: Array<{ item: T; index: number }> }> {
  const numbered = view.items.map((item, index) => ({ item, index }));
  if (!view.sections) return [{ sectionId: '', title: null, items: numbered }];
  const byId = new Map(numbered.map((n) => [n.item.questionId, n]));
  return view.sections.map((s) => ({ sectionId: s.sectionId, title: s.title, items: s.questionIds.flatMap((id) => byId.get(id) ?? []) }));
}
