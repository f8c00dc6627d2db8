import { html, type SafeHtml } from '../../../platform/web/html.js';
import type { PageTexts } from '../content/page-texts.js';
import type { ErrorDetail } from '../../../platform/errors.js';
import type { ShownOrder } from './definition.js';

/**
 * What the two choice types (single-choice/, multiple-choice/) share: their
 * options' ids checked unique, the options in the order a candidate was
 * shown them, the page's radio buttons or checkboxes, and the staff's list
 * of options with the chosen and the correct ones said in words.
 */
export interface ChoiceOption {
  id: string;
  text: string;
  fixed?: boolean;
}

/** Option ids must be unique; returns them. */
export function uniqueOptionIds(options: readonly ChoiceOption[], at: string, details: ErrorDetail[]): Set<string> {
  const ids = new Set<string>();
  options.forEach((o, j) => {
    if (ids.has(o.id)) details.push({ field: `${at}.options.${j}.id`, message: `duplicates option id "${o.id}"` });
    ids.add(o.id);
  });
  return ids;
}

/** The options' texts in the content format, by their place (as validation errors name them). */
export const optionFields = (options: readonly ChoiceOption[]): Array<[string, string]> => options.map((o, j): [string, string] => [`options.${j}.text`, o.text]);

/** A choice question's options in the order this candidate sees them (shuffled per candidate when the question says so). */
export function shownOptions<O extends { id: string }>(questionId: string, options: readonly O[], shown: ShownOrder): O[] {
  const order = shown.optionOrder[questionId];
  if (!order) return [...options];
  const byId = new Map(options.map((o) => [o.id, o]));
  return order.map((id) => byId.get(id)!);
}

/**
 * A Markdown label (a formula, an image) gives its control no name that every
 * assistive technology computes, so the control also carries the text as
 * plain words (formulas as TeX, images as their alt text). Plain tests: none.
 */
export function plainName(texts: PageTexts, source: string): SafeHtml | '' {
  return texts.markdown ? html` aria-label="${texts.text(source)}"` : '';
}

/** The page's options: one radio button (single) or checkbox (multiple) each, labelled by its text, in shown order. */
export function optionsInput(
  q: { id: string; options: readonly ChoiceOption[] },
  ctx: { id: string; texts: PageTexts; shown: ShownOrder },
  kind: 'radio' | 'checkbox',
  chosen: ReadonlySet<unknown>,
): SafeHtml {
  const { id, texts } = ctx;
  return html`<div class="options">${shownOptions(q.id, q.options, ctx.shown).map(
    (o, j) =>
      html`<div class="option"><input type="${kind}" name="${id}" id="${id}-o${j + 1}" value="${o.id}"${chosen.has(o.id) ? html` checked` : ''}${plainName(texts, o.text)}><label for="${id}-o${j + 1}">${texts.inline(`${q.id}.options.${o.id}`, o.text)}</label></div>`,
  )}</div>`;
}

/** Staff's view: every option, the chosen ones badged "Chosen", the key's "(correct answer)". */
export function optionsReview(q: { id: string; options: readonly ChoiceOption[] }, chosen: ReadonlySet<unknown>, correct: ReadonlySet<string>, texts: PageTexts): SafeHtml {
  return html`${chosen.size === 0 ? html`<p class="empty">Not answered.</p>` : ''}
<ul class="options-list">${q.options.map(
    (o) =>
      html`<li${chosen.has(o.id) ? html` class="chosen"` : ''}>${texts.inline(`${q.id}.options.${o.id}`, o.text)}${chosen.has(o.id) ? html` <span class="badge">Chosen</span>` : ''}${
        correct.has(o.id) ? html` <span class="hint">(correct answer)</span>` : ''
      }</li>`,
  )}</ul>`;
}

/** A value quoted in a message, cut short: a refusal never echoes a long text back. */
export function quoted(value: unknown): string {
  const text = typeof value === 'string' ? value : JSON.stringify(value) ?? String(value);
  return JSON.stringify(text.length > 64 ? `${text.slice(0, 64)}…` : text);
}

/** The options' texts of the chosen ids, in one line. */
export const chosenText = (options: readonly ChoiceOption[], ids: readonly unknown[]): string =>
  ids.map((id) => options.find((o) => o.id === id)?.text ?? String(id)).join(', ');
