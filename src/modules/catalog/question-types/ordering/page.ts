import { html, type SafeHtml } from '../../../../platform/web/html.js';
import type { AnswerJson, FieldContext, ReviewContext } from '../definition.js';
import type { OrderingQuestion } from './schema.js';
import { moveButtons } from '../move-buttons.js';

/**
 * The items in the order the student left them, else in the shown order
 * drawn for them (never the correct one). Nothing is saved until the first
 * move: `data-ordered` says whether the list is an answer yet.
 */
export function orderingPage(q: OrderingQuestion, { id, value, texts, shown }: FieldContext): SafeHtml {
  const byId = new Map(q.items.map((i) => [i.id, i]));
  const saved = Array.isArray(value) && value.length === q.items.length && value.every((v) => byId.has(v as string)) ? (value as readonly string[]) : null;
  const order = saved ?? shown.itemOrder[q.id] ?? q.items.map((i) => i.id);
  const last = order.length - 1;
  const { t } = texts;
  return html`<p class="hint" id="${id}-order-hint">${t.t('question.ordering.hint')}</p>
<ol class="order-list" data-ordered="${saved ? 'yes' : 'no'}" aria-describedby="${id}-order-hint">${order.map((itemId, j) => {
    const source = byId.get(itemId)!.text;
    // The buttons' names and the move announcement are plain text (formulas as TeX, images as their alt text).
    const text = texts.text(source);
    return html`<li class="order-item" data-item-id="${itemId}"${texts.markdown ? html` data-text="${text}"` : ''}><span class="order-text">${texts.inline(`${q.id}.items.${itemId}`, source)}</span>${moveButtons(t, 'data-move', text, j === 0, j === last)}</li>`;
  })}</ol>
<p class="sr-only order-live" role="status" aria-live="polite"></p>`;
}

/** The items as a numbered list in the student's order, each said to be in its correct place or not. */
export function orderingReview(q: OrderingQuestion, answer: AnswerJson, { texts }: ReviewContext): SafeHtml {
  if (!Array.isArray(answer) || answer.length === 0) return html`<p class="empty">Not answered.</p>`;
  const item = new Map(q.items.map((it, i) => [it.id, { text: texts.inline(`${q.id}.items.${it.id}`, it.text), place: i + 1 }]));
  return html`<ol class="answer-order">${answer.map((id, i) => {
    const it = item.get(id as string);
    const inPlace = it?.place === i + 1;
    return html`<li>${it?.text ?? id} ${inPlace ? html`<span class="badge badge-right">in its correct place</span>` : html`<span class="badge badge-wrong">not in place</span> <span class="hint">(belongs at ${it?.place ?? '–'})</span>`}</li>`;
  })}</ol>`;
}
