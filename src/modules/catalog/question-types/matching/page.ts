import { html, type SafeHtml } from '../../../../platform/web/html.js';
import type { AnswerJson, FieldContext, ReviewContext } from '../definition.js';
import type { MatchingQuestion } from './schema.js';

const asRecord = (v: AnswerJson): Readonly<Record<string, AnswerJson>> => (v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Readonly<Record<string, AnswerJson>>) : {});

/**
 * One select of the choices per stem. Each stem's label holds its rendered
 * inline content (so it names the select); a choice is an `<option>`, which
 * holds text only.
 */
export function matchingPage(q: MatchingQuestion, { id, value, texts }: FieldContext): SafeHtml {
  const chosen = asRecord(value);
  const { t } = texts;
  return html`<p class="hint">${t.t('question.matching.hint')}</p><div class="matches">${q.stems.map(
    (s, j) => html`<div class="match"><label for="${id}-m${j + 1}">${texts.inline(`${q.id}.stems.${s.id}`, s.text)}</label><select id="${id}-m${j + 1}" data-stem-id="${s.id}"${texts.markdown ? html` aria-label="${texts.text(s.text)}"` : ''}>
<option value="">${t.t('question.choose')}</option>${q.choices.map((c) => html`<option value="${c.id}"${chosen[s.id] === c.id ? html` selected` : ''}>${texts.text(c.text)}</option>`)}
</select></div>`,
  )}</div>`;
}

/** "right" or "wrong" in words beside each stem, so the verdict never rests on colour. */
const verdict = (right: boolean) => (right ? html`<span class="badge badge-right">right</span>` : html`<span class="badge badge-wrong">wrong</span>`);

/** Each stem with the choice the student matched to it (or "not matched"), right or wrong, and the correct choice when wrong. */
export function matchingReview(q: MatchingQuestion, answer: AnswerJson, { texts }: ReviewContext): SafeHtml {
  const given = asRecord(answer);
  if (!q.stems.some((s) => given[s.id] !== undefined)) return html`<p class="empty">Not answered.</p>`;
  const choice = new Map(q.choices.map((c) => [c.id, texts.inline(`${q.id}.choices.${c.id}`, c.text)]));
  return html`<ul class="answer-pairs">${q.stems.map((s) => {
    const picked = given[s.id];
    const right = picked !== undefined && picked === q.correct[s.id];
    return html`<li>${texts.inline(`${q.id}.stems.${s.id}`, s.text)} <span aria-hidden="true">→</span><span class="sr-only"> matched to</span> ${
      picked === undefined ? html`<em>not matched</em>` : (choice.get(String(picked)) ?? String(picked))
    } ${verdict(right)}${right ? '' : html` <span class="hint">(correct: ${choice.get(q.correct[s.id] ?? '') ?? '–'})</span>`}</li>`;
  })}</ul>`;
}
