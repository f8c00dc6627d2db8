import { html, type SafeHtml } from '../../../../platform/web/html.js';
import type { AnswerJson, FieldContext } from '../definition.js';
import { onScale, shown, sliderRight, type SliderQuestion } from './slider-schema.js';

/**
 * The element that holds a question's (or part's) prompt on the test page:
 * `question-3-prompt` for question 3 (field prefix `q3`), `q3-p2-prompt` for
 * its second part (test-page.ts and question-parts.ts write these ids).
 */
export function promptIdOf(fieldId: string): string {
  const whole = /^q(\d+)$/.exec(fieldId);
  return whole ? `question-${whole[1]}-prompt` : `${fieldId}-prompt`;
}

/**
 * A native range input named by the prompt, the scale's ends shown beside
 * it and the value in an `<output>`. A range input always has a value, so
 * the page says "Not answered yet" (and the output stays empty) until the
 * candidate moves it: student.js marks it answered then, and Clear makes it
 * unanswered again. Arrow keys move it a step (the browser's own keys).
 */
export function sliderPage(q: SliderQuestion, ctx: FieldContext): SafeHtml {
  const { id } = ctx;
  const saved = typeof ctx.value === 'number' ? onScale(q, ctx.value) : null;
  // Unanswered, the thumb rests on the scale point nearest the middle; it is no answer until moved.
  const rest = saved ?? onScale(q, q.min + Math.round((q.max - q.min) / q.step / 2) * q.step) ?? q.min;
  const answered = saved !== null;
  const { t } = ctx.texts;
  return html`<div class="slider" data-answered="${answered ? 'yes' : 'no'}">
<p class="hint" id="${id}-scale">${t.t('question.slider.hint', { min: shown(q.min), max: shown(q.max), step: shown(q.step) })}</p>
<div class="slider-track"><span class="slider-end" aria-hidden="true">${shown(q.min)}</span><input type="range" class="slider-input" id="${id}-range" min="${q.min}" max="${q.max}" step="${q.step}" value="${rest}" aria-labelledby="${promptIdOf(id)}" aria-describedby="${id}-scale ${id}-state"><span class="slider-end" aria-hidden="true">${shown(q.max)}</span></div>
<p class="slider-reading">${t.t('question.slider.yourAnswer')} <output class="slider-value" for="${id}-range">${answered ? shown(saved!) : ''}</output> <span class="slider-state" id="${id}-state" role="status">${answered ? '' : t.t('question.slider.notAnswered')}</span></p>
<button type="button" class="button slider-clear">${t.t('question.slider.clear')}<span class="sr-only">${t.t('question.slider.clearFor', { where: ctx.where })}</span></button>
</div>`;
}

/** The value set against the correct one (and the tolerance), right or wrong in words. */
export function sliderReview(q: SliderQuestion, value: AnswerJson): SafeHtml {
  const key = q.tolerance ? `${shown(q.correct)} ± ${shown(q.tolerance)} (${shown(q.correct - q.tolerance)} to ${shown(q.correct + q.tolerance)})` : shown(q.correct);
  const scale = html`<p class="hint">Scale ${shown(q.min)} to ${shown(q.max)} in steps of ${shown(q.step)}.</p>`;
  if (typeof value !== 'number') return html`<p class="empty">Not answered.</p><p class="hint">Correct: ${key}</p>${scale}`;
  const right = sliderRight(q, value);
  return html`<p class="answer">${shown(value)} ${right ? html`<span class="badge badge-right">right</span>` : html`<span class="badge badge-wrong">wrong</span>`}</p><p class="hint">Correct: ${key}</p>${scale}`;
}
