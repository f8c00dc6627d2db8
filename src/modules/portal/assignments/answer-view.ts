import type { Translator } from '../../../platform/i18n/catalogue.js';
import { formatPoints, html, SafeHtml } from '../../../platform/web/html.js';
import { portalTranslator, richText } from '../ui/portal-text.js';
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
export function passageNote(
  texts: PageTexts,
  question: { passageId?: string } | undefined,
  passages: readonly Passage[],
  t: Translator = portalTranslator(),
): SafeHtml | '' {
  const p = question?.passageId !== undefined ? passages.find((x) => x.id === question.passageId) : undefined;
  if (!p) return '';
  return html`<details class="passage-note"><summary>${t.t('portal.answer.passage', { name: passageName(p) })}</summary>${contentBlock(texts, 'passage-text', `passages.${p.id}.text`, p.text)}</details>`;
}

const notAnswered = (t: Translator) => html`<p class="empty">${t.t('portal.answer.notAnswered')}</p>`;
const isRecord = (v: AnswerValue): v is Readonly<Record<string, string>> => typeof v === 'object' && v !== null && !Array.isArray(v);
/** "right" or "wrong" in words beside each part, so the verdict never rests on colour. */
const verdict = (right: boolean, t: Translator = portalTranslator()) =>
  right ? html`<span class="badge badge-right">${t.t('portal.answer.right')}</span>` : html`<span class="badge badge-wrong">${t.t('portal.answer.wrong')}</span>`;

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
export function answerView(q: Question | undefined, answer: AnswerValue, file?: SafeHtml, texts: PageTexts = plainTexts, t: Translator = portalTranslator()): SafeHtml {
  const shown = answerBody(q, answer, file, texts, t);
  // The key beside the answer is the item's declared correct response; the mark comes from running its processing, which may give other answers points too.
  if (q && 'scoring' in q && q.scoring) return html`<p class="hint">${richText(t, 'portal.answer.qtiScoring')}</p>${shown}`;
  return shown;
}

function answerBody(question: Question | undefined, answer: AnswerValue, file: SafeHtml | undefined, texts: PageTexts, t: Translator): SafeHtml {
  // A registered type shows its own answer (catalog/question-types).
  const def = question ? questionType(question.type) : undefined;
  // A file answer's file is drawn by the caller, who knows the file and the reader (answer-file-view.ts).
  if (question && def) return def.review(question as BaseQuestion, (answer ?? null) as AnswerJson, file ? { texts, file } : { texts });
  const q = question as BuiltInQuestion | undefined;
  if (q?.type === 'composite') return compositeView(q, answer, texts, t);
  if (answer === null || (typeof answer === 'string' && answer.trim() === '')) return notAnswered(t);
  const text = Array.isArray(answer) ? answer.join(', ') : isRecord(answer) ? Object.values(answer).join(', ') : answer;
  // The candidate's own words run in their own direction, whatever the page's and the test's language.
  return html`<p class="answer" dir="auto">${text}</p>`;
}

/** Each part in a list item: its name, its points of its points (none when kept QTI processing marks the parts together), its prompt and the answer as its own type shows it. */
function compositeView(q: Of<'composite'>, answer: AnswerValue, texts: PageTexts, t: Translator): SafeHtml {
  const given = isRecord(answer) ? (answer as Readonly<Record<string, AnswerValue>>) : {};
  return html`<ol class="answer-parts">${q.parts.map((part, k) => {
    const shown = partQuestion(q, part);
    const value = given[part.id] ?? null;
    const mark = markQuestion(shown, value);
    const max = Number(formatPoints(part.points));
    const points =
      mark.kind === 'auto'
        ? t.t('portal.answer.partPoints', { points: formatPoints(mark.points), n: max, max: String(max) })
        : t.t('portal.answer.partPointsUnmarked', { n: max, max: String(max) });
    // Kept QTI processing marks the parts together: a part has no points of its own to show.
    const name = html`<strong>${t.t('portal.answer.part', { n: k + 1 })}</strong>`;
    const title = q.scoring ? name : html`${name} <span class="hint">${points}</span>`;
    return html`<li class="answer-part"><p class="answer-part-title">${title}</p>
${contentBlock(texts, 'prompt', `${shown.id}.prompt`, part.prompt)}
${answerView(shown, value, undefined, texts, t)}</li>`;
  })}</ol>`;
}

export function markView(item: MarkingItem, t: Translator = portalTranslator()): SafeHtml {
  if (!item.mark) {
    return item.needsMarking
      ? html`<p>${richText(t, 'portal.answer.awaitingMark', { awaiting: html`<strong>${t.t('portal.answer.awaiting')}</strong>`, max: formatPoints(item.maxPoints) })}</p>`
      : html``;
  }
  const m = item.mark;
  const max = Number(formatPoints(item.maxPoints));
  const points = html`<strong>${t.t('portal.answer.markPoints', { points: formatPoints(m.points), n: max, max: String(max) })}</strong>`;
  const by = m.source === 'auto' ? t.t('portal.answer.markedAutomatically') : t.t('portal.answer.markedBy', { by: m.markedBy ?? t.t('portal.marking.item.aReviewer') });
  return html`<p>${richText(t, 'portal.answer.mark', { points, by, when: when(m.markedAt, t) })}</p>
${m.criteria && m.criteria.length > 0
  ? dataTable({
      caption: html`${t.t('portal.answer.criteria.caption')}<span class="sr-only"> ${t.t('portal.marking.item.forPrompt', { prompt: item.prompt })}</span>`,
      stack: true,
      columns: [{ label: t.t('portal.ai.criteria.criterion') }, { label: t.t('portal.ai.criteria.points'), numeric: true }, { label: t.t('portal.marking.item.comment') }],
      rows: m.criteria.map((c) => [c.criterion, t.t('portal.ai.criteria.pointsOf', { points: formatPoints(c.points), max: formatPoints(c.maxPoints) }), c.comment ?? '–']),
    })
  : ''}
${m.comment ? html`<p class="hint">${t.t('portal.answer.comment', { comment: m.comment })}</p>` : ''}`;
}

/** A score in a table cell: "7/8 (87.5%)", or "2/10 so far" while a reviewer has still to mark. */
export function formatScore(s: Score, t: Translator = portalTranslator()): string {
  const values = { points: formatPoints(s.points), max: formatPoints(s.maxPoints), percent: String(s.percent) };
  return s.gradingStatus === 'pending_review' ? t.t('portal.score.shortSoFar', values) : t.t('portal.score.short', values);
}

export function scoreFacts(s: Score | null, t: Translator = portalTranslator()): SafeHtml {
  const label = t.t('portal.assignments.score');
  if (!s) return html`<dt>${label}</dt><dd>${t.t('portal.score.none')}</dd>`;
  const values = { points: formatPoints(s.points), max: formatPoints(s.maxPoints), percent: String(s.percent) };
  if (s.gradingStatus === 'pending_review') {
    return html`<dt>${label}</dt><dd>${t.t('portal.score.soFar', values)}</dd>${sectionFacts(s, t)}`;
  }
  const passed = s.passed === null ? 'none' : s.passed ? 'passed' : 'failed';
  return html`<dt>${label}</dt><dd>${t.t('portal.score.final', { ...values, passed })}</dd>${sectionFacts(s, t)}`;
}

/** A sectioned test's score per section (absent for a flat test). */
function sectionFacts(s: Score, t: Translator): SafeHtml | string {
  if (!s.sections || s.sections.length === 0) return '';
  return html`<dt>${s.gradingStatus === 'pending_review' ? t.t('portal.score.perSectionSoFar') : t.t('portal.score.perSection')}</dt><dd><ul class="section-scores">${s.sections.map(
    (x) => html`<li>${t.t('portal.score.section', { section: x.title, points: formatPoints(x.points), max: formatPoints(x.maxPoints), percent: String(x.percent) })}</li>`,
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
