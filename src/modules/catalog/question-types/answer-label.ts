import { html, type SafeHtml } from '../../../platform/web/html.js';
import type { Translator } from '../../../platform/i18n/catalogue.js';

/**
 * The label of a typed answer's field (essay, numeric, short text): "Your
 * answer" shown, and the question it answers (`where`: "question 3",
 * "question 3, part 1") said to screen readers only, so a page of many such
 * fields gives each its own name.
 */
export function answerLabel(t: Translator, fieldId: string, where: string): SafeHtml {
  return html`<label class="answer-label" for="${fieldId}">${t.t('question.answerLabel')}<span class="sr-only">${t.t('question.answerLabelFor', { where })}</span></label>`;
}
