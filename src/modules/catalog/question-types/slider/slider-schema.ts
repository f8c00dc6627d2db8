import { Type, type Static } from '@sinclair/typebox';
import { common, scoring } from '../common-fields.js';

/**
 * A slider question (QTI sliderInteraction): the candidate sets a value on
 * a scale from `min` to `max` in steps of `step`; right when it is within
 * `tolerance` of `correct` (inclusive).
 */
const Bound = Type.Number({ minimum: -1e9, maximum: 1e9 });
export const SliderSchema = Type.Object(
  {
    type: Type.Literal('slider'),
    ...common,
    min: { ...Bound, description: 'The lowest value of the scale' },
    max: { ...Bound, description: 'The highest value of the scale; more than min' },
    step: Type.Number({ exclusiveMinimum: 0, maximum: 2e9, description: 'The scale moves in steps of this size; it divides max − min (at most 100 000 steps)' }),
    correct: { ...Bound, description: 'The right value: on the scale (min plus a whole number of steps)' },
    tolerance: Type.Optional(Type.Number({ minimum: 0, maximum: 2e9, description: 'A value this far from correct, either side, is also right (inclusive); absent: 0' })),
    ...scoring,
  },
  { additionalProperties: false, title: 'SliderQuestion' },
);
/** As stored: every question has its id by then. */
export type SliderQuestion = Static<typeof SliderSchema> & { id: string };

export const MAX_STEPS = 100_000;

/** Slack for binary floating point: 0.1 × 3 is on a scale of tenths. */
const near = (x: number) => Math.abs(x - Math.round(x)) <= 1e-9 * Math.max(1, Math.abs(x));

/** How many steps the scale has, or null when the step does not divide the range. */
export function stepCount(min: number, max: number, step: number): number | null {
  const n = (max - min) / step;
  return near(n) ? Math.round(n) : null;
}

/** The value as a point of the scale (float noise removed), or null when it is off the scale. */
export function onScale(q: Pick<SliderQuestion, 'min' | 'max' | 'step'>, value: number): number | null {
  const k = (value - q.min) / q.step;
  if (!near(k)) return null;
  const steps = Math.round(k);
  const count = stepCount(q.min, q.max, q.step);
  if (steps < 0 || (count !== null && steps > count)) return null;
  return Number((q.min + steps * q.step).toPrecision(15));
}

/** Right: within the tolerance of the correct value, inclusive, with the same 1e-9 relative slack numeric questions have. */
export function sliderRight(q: Pick<SliderQuestion, 'correct' | 'tolerance'>, value: number): boolean {
  const slack = 1e-9 * Math.max(1, Math.abs(q.correct));
  return Math.abs(value - q.correct) <= (q.tolerance ?? 0) + slack;
}

/** A number as the page and review show it: no float noise. */
export const shown = (n: number) => String(Number(n.toPrecision(12)));
