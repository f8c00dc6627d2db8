import { Type } from '@sinclair/typebox';
import type { ErrorDetail } from '../../../../platform/errors.js';
import { defineQuestionType, type AnswerJson, type CheckedValue } from '../definition.js';
import { sliderPage, sliderReview } from './slider-page.js';
import { sliderQti } from './slider-qti.js';
import { MAX_STEPS, onScale, shown, sliderRight, SliderSchema, stepCount, type SliderQuestion } from './slider-schema.js';

/**
 * slider: a value set on a scale (QTI sliderInteraction). The answer is the
 * number set, a point of the scale; no value until the candidate moves the
 * slider. Marking: all or nothing, right within `tolerance` of `correct`
 * inclusive (exact but for a 1e-9 relative slack without one).
 */

export const SliderAnswer = Type.Number({ description: 'slider: the value set, a point of the scale' });

function check(q: SliderQuestion, at: string, details: ErrorDetail[]): void {
  if (!(q.min < q.max)) {
    details.push({ field: `${at}.max`, message: `is ${q.max}; it must be more than min (${q.min})` });
    return;
  }
  const steps = stepCount(q.min, q.max, q.step);
  if (steps === null) {
    details.push({ field: `${at}.step`, message: `${q.step} does not divide the range ${q.min} to ${q.max} into whole steps` });
    return;
  }
  if (steps > MAX_STEPS) {
    details.push({ field: `${at}.step`, message: `makes ${steps} steps from ${q.min} to ${q.max}; at most ${MAX_STEPS}` });
    return;
  }
  if (onScale(q, q.correct) === null) {
    details.push({ field: `${at}.correct`, message: `${q.correct} is not on the scale: ${q.min} to ${q.max} in steps of ${q.step}` });
  }
}

function checkAnswer(q: SliderQuestion, value: AnswerJson): CheckedValue {
  if (value === null) return { ok: true, value: null };
  if (typeof value !== 'number' || !Number.isFinite(value)) return { ok: false, message: 'a slider answer is a number' };
  const point = onScale(q, value);
  if (point === null) return { ok: false, message: `${shown(value)} is not on the scale: ${shown(q.min)} to ${shown(q.max)} in steps of ${shown(q.step)}` };
  return { ok: true, value: point };
}

/** A point of the scale the key does not accept: the end farther from the correct value, if it is outside the tolerance. */
function wrongValue(q: SliderQuestion): number | null {
  const far = Math.abs(q.max - q.correct) >= Math.abs(q.correct - q.min) ? q.max : q.min;
  return sliderRight(q, far) ? null : far;
}

export const sliderType = defineQuestionType<SliderQuestion>({
  type: 'slider',
  label: 'Slider',
  schema: SliderSchema,
  part: { title: 'SliderPart' },
  autoMarkable: true,
  check,
  contentFields: () => [],
  answer: { schema: SliderAnswer, check: checkAnswer, answered: (_q, value) => typeof value === 'number' },
  mark: (q, value) => ({ kind: 'auto', points: typeof value === 'number' && sliderRight(q, value) ? q.points : 0 }),
  simulate: { correct: (q) => q.correct, wrong: wrongValue },
  page: sliderPage,
  review: (q, value) => sliderReview(q, value),
  answerText: (_q, value) => (typeof value === 'number' ? shown(value) : ''),
  scripts: { student: new URL('./student.js', import.meta.url), editor: new URL('./editor.js', import.meta.url) },
  editorMessages: [
    'portal.editor.type.slider', 'portal.editor.slider.min', 'portal.editor.slider.max', 'portal.editor.slider.step',
    'portal.editor.slider.stepHint', 'portal.editor.slider.correct', 'portal.editor.slider.correctHint', 'portal.editor.slider.tolerance',
    'portal.editor.slider.toleranceHint',
  ],
  clientMessages: ['question.slider.notAnswered'],
  styles: { student: new URL('./student.css', import.meta.url) },
  qti: sliderQti,
});
