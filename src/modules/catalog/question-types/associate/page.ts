import { html, type SafeHtml } from '../../../../platform/web/html.js';
import type { Translator } from '../../../../platform/i18n/catalogue.js';
import type { PageTexts } from '../../content/page-texts.js';
import type { AnswerJson, FieldContext, ReviewContext } from '../definition.js';
import { chosenKeys, pairKey, type AssociateQuestion } from './rules.js';

/**
 * The student's part: no drag and drop. The items are listed; two selects
 * (First item, Second item) and an Add pair button make a pair; the pairs
 * made are listed below, each with a button named "Remove pair: A and B".
 * Two selects and a button fit a 360 px screen in one column and are
 * announced plainly by screen readers, where a "Pair with…" select per item
 * would let an item have only one partner. student.js keeps the list and
 * says each change in the status line (polite).
 */
export function associatePage(q: AssociateQuestion, ctx: FieldContext): SafeHtml {
  const { id, texts } = ctx;
  const made = pairsOf(q, ctx.value);
  const max = q.maxAssociations;
  const { t } = texts;
  const choose = (cls: string, label: string) =>
    html`<div class="assoc-field"><label for="${id}-${cls}">${label}</label><select id="${id}-${cls}" class="assoc-${cls}"><option value="">${t.t('question.choose')}</option>${q.items.map(
      (it) => html`<option value="${it.id}">${texts.text(it.text)}</option>`,
    )}</select></div>`;
  return html`<p class="hint" id="${id}-assoc-hint">${max !== undefined ? t.t('question.associate.hintMax', { max }) : t.t('question.associate.hint')}</p>
<div class="assoc"${max !== undefined ? html` data-max="${max}"` : ''}>
<ul class="assoc-items" aria-label="${t.t('question.associate.itemsLabel')}">${q.items.map(
    (it) => html`<li data-item-id="${it.id}" data-text="${texts.text(it.text)}"><span class="assoc-item-text">${texts.inline(`${q.id}.items.${it.id}`, it.text)}</span></li>`,
  )}</ul>
<div class="assoc-builder" role="group" aria-label="${t.t('question.associate.builderLabel')}" aria-describedby="${id}-assoc-hint">${choose('first', t.t('question.associate.first'))}${choose('second', t.t('question.associate.second'))}<button type="button" class="button assoc-add"${max !== undefined && made.length >= max ? html` aria-disabled="true"` : ''}>${t.t('question.associate.add')}</button></div>
<p class="assoc-made" id="${id}-made">${t.t('question.associate.yourPairs')} <span class="assoc-count">${countText(t, made.length, max)}</span></p>
<ul class="assoc-pairs" aria-labelledby="${id}-made">${made.map(([a, b]) => pairRow(q, texts, a, b))}</ul>
<p class="assoc-status" role="status" aria-live="polite"></p>
</div>`;
}

/** "none yet", "1 of at most 3": the count beside "Your pairs". student.js writes the same words. */
const countText = (t: Translator, n: number, max: number | undefined) =>
  n === 0 ? t.t('question.associate.noneYet') : max !== undefined ? t.t('question.associate.countOfMax', { n, max }) : t.number(n);

function pairRow(q: AssociateQuestion, texts: PageTexts, a: string, b: string): SafeHtml {
  const item = (itemId: string) => q.items.find((it) => it.id === itemId)!;
  const { t } = texts;
  const name = t.t('question.associate.pair', { a: texts.text(item(a).text), b: texts.text(item(b).text) });
  return html`<li class="assoc-pair" data-a="${a}" data-b="${b}"><span class="assoc-pair-text"><span class="assoc-a">${texts.inline(`${q.id}.items.${a}`, item(a).text)}</span> <span aria-hidden="true">↔</span><span class="sr-only">${t.t('question.associate.pairJoin')}</span> <span class="assoc-b">${texts.inline(`${q.id}.items.${b}`, item(b).text)}</span></span><button type="button" class="assoc-remove" aria-label="${t.t('question.associate.removeLabel', { pair: name })}">${t.t('question.associate.remove')}</button></li>`;
}

/** The saved pairs that still name two of the question's items (a stored answer is normalised already). */
function pairsOf(q: AssociateQuestion, value: AnswerJson): Array<[string, string]> {
  if (!Array.isArray(value)) return [];
  const ids = new Set(q.items.map((it) => it.id));
  return value.flatMap((p) => (Array.isArray(p) && typeof p[0] === 'string' && typeof p[1] === 'string' && ids.has(p[0]) && ids.has(p[1]) && p[0] !== p[1] ? [[p[0], p[1]] as [string, string]] : []));
}

/** Staff's view: each pair made, said right or wrong in words, then the keyed pairs not made. */
export function associateReview(q: AssociateQuestion, value: AnswerJson, ctx: ReviewContext): SafeHtml {
  const made = pairsOf(q, value);
  const text = (itemId: string) => ctx.texts.inline(`${q.id}.items.${itemId}`, q.items.find((it) => it.id === itemId)?.text ?? itemId);
  const keyed = new Set(q.pairs.map((p) => pairKey(q, p.a, p.b)));
  const madeKeys = new Set(chosenKeys(q, made));
  const missed = q.pairs.filter((p) => !madeKeys.has(pairKey(q, p.a, p.b)));
  const verdict = (right: boolean) => (right ? html`<span class="badge badge-right">right</span>` : html`<span class="badge badge-wrong">wrong</span>`);
  const both = (a: string, b: string) => html`${text(a)} <span aria-hidden="true">↔</span><span class="sr-only"> and</span> ${text(b)}`;
  return html`${
    made.length === 0
      ? html`<p class="empty">Not answered.</p>`
      : html`<ul class="answer-pairs">${made.map(([a, b]) => html`<li>${both(a, b)} ${verdict(keyed.has(pairKey(q, a, b)))}</li>`)}</ul>`
  }${missed.length > 0 ? html`<p class="hint">Correct pairs not made:</p><ul class="answer-pairs">${missed.map((p) => html`<li>${both(p.a, p.b)}</li>`)}</ul>` : ''}`;
}

/** "Paris and France; Rome and Italy" (item texts as plain text); '' when unanswered. */
export function associateAnswerText(q: AssociateQuestion, value: AnswerJson): string {
  const text = (itemId: string) => q.items.find((it) => it.id === itemId)?.text ?? itemId;
  return pairsOf(q, value)
    .map(([a, b]) => `${text(a)} and ${text(b)}`)
    .join('; ');
}
