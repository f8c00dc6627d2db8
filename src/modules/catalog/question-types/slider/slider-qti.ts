import { capped, declOf, mappingOf, promptOf, round, rpReason, type Ctx } from '../../interchange/qti-item-context.js';
import { allOrNothing, base, f, type Decl } from '../../interchange/qti-writer.js';
import { esc, type XElement } from '../../interchange/xml.js';
import type { QtiMapping } from '../definition.js';
import { MAX_STEPS, onScale, stepCount, type SliderQuestion } from './slider-schema.js';

/**
 * slider as QTI's sliderInteraction (`lower-bound`, `upper-bound`, `step`),
 * its response integer when every number of the scale is whole, else float.
 * Marking both ways: match_correct (or its body with the points), or
 * qti-equal with an absolute tolerance, inclusive — Assay's rule. Read back
 * also: a relative tolerance with an exact absolute equal, and map_response
 * scoring one value. `step-label`, `orientation` and `reverse` are
 * presentation that the page does not follow; the import says so. An item
 * scored otherwise keeps its processing (`scoring`) when it declares a
 * correct value on the scale: read with `ctx.keyOnly` (as match_correct),
 * that value is the question's key.
 */
export const sliderQti: QtiMapping<SliderQuestion> = {
  interactions: ['qti-slider-interaction'],

  read(ctx: Ctx, it: XElement): Omit<SliderQuestion, 'id'> | string {
    const decl = declOf(ctx, it);
    if (typeof decl === 'string') return decl;
    if (decl.cardinality !== 'single') return 'a slider with a multiple response cannot be expressed';
    if (decl.baseType !== 'integer' && decl.baseType !== 'float') return `a slider of base type "${decl.baseType}" is not supported`;
    const min = Number(it.attrs['lower-bound']);
    let max = Number(it.attrs['upper-bound']);
    if (!Number.isFinite(min) || !Number.isFinite(max) || !(min < max)) return 'a slider needs numeric lower and upper bounds, lower below upper';
    for (const attr of ['step-label', 'orientation', 'reverse'] as const) {
      if (it.attrs[attr] !== undefined) ctx.notes.push(`the slider's ${attr} is not shown: the page draws every slider the same way`);
    }

    let points: number;
    let correct: number;
    let tolerance = 0;
    const rp = ctx.rp;
    if (rp.kind === 'match_correct' || (rp.kind === 'conditional' && (rp.op === 'match' || rp.op === 'equal'))) {
      points = rp.kind === 'match_correct' ? 1 : rp.points;
      correct = decl.correct.length === 1 ? Number(decl.correct[0]) : NaN;
      if (!Number.isFinite(correct)) return 'the item declares no numeric correct response';
      if (rp.kind === 'conditional' && rp.op === 'equal') {
        const t = toleranceOf(rp, correct);
        if (typeof t === 'string') return t;
        tolerance = t;
      }
    } else if (rp.kind === 'map_response') {
      const m = mappingOf(ctx, decl);
      if (typeof m === 'string') return m;
      const positive = m.entries.filter((e) => e.value > 0);
      if (positive.length !== 1 || m.defaultValue !== 0 || m.entries.some((e) => e.value < 0)) return 'map_response scoring several values cannot be expressed (a slider has one correct value)';
      correct = Number(positive[0]!.key);
      if (!Number.isFinite(correct)) return 'the mapped key is not a number';
      points = capped(m, positive[0]!.value);
    } else return rpReason(rp);
    if (!(points > 0)) return 'the item gives no points for the correct value';

    const step = stepOf(ctx, it, decl.baseType, min, max, correct);
    if (typeof step === 'string') return step;
    // QTI's slider stops at the last step below the upper bound: Assay's scale ends there.
    const steps = stepCount(min, max, step) ?? Math.floor((max - min) / step);
    if (steps > MAX_STEPS) return `a slider of more than ${MAX_STEPS} steps is not supported`;
    if (stepCount(min, max, step) === null) {
      max = Number((min + steps * step).toPrecision(15));
      ctx.notes.push(`the slider's step does not divide its range: the scale ends at ${max}, its last step`);
    }
    const onIt = onScale({ min, max, step }, correct);
    if (onIt === null) return `the correct value ${correct} is not on the slider's scale (${min} to ${max} in steps of ${step})`;
    return { type: 'slider', prompt: promptOf(ctx, it), points: round(points), min, max, step, correct: onIt, ...(tolerance > 0 ? { tolerance } : {}) };
  },

  write(q, resp, w) {
    const decls: Decl[] = [{ id: resp, cardinality: 'single', baseType: baseTypeOf(q), correct: [f(q.correct)] }];
    const body = w.block(q.prompt) + `<qti-slider-interaction response-identifier="${esc(resp)}" lower-bound="${f(q.min)}" upper-bound="${f(q.max)}" step="${f(q.step)}"/>`;
    return { decls, body, rp: allOrNothing(q.points, q.tolerance ?? 0) };
  },

  summed(q, resp) {
    const v = `<qti-variable identifier="${esc(resp)}"/><qti-correct identifier="${esc(resp)}"/>`;
    const t = q.tolerance ?? 0;
    const cond = t > 0 ? `<qti-equal tolerance-mode="absolute" tolerance="${f(t)} ${f(t)}" include-lower-bound="true" include-upper-bound="true">${v}</qti-equal>` : `<qti-match>${v}</qti-match>`;
    return [`<qti-response-condition><qti-response-if>${cond}<qti-set-outcome-value identifier="SCORE"><qti-sum><qti-variable identifier="SCORE"/>${base('float', q.points)}</qti-sum></qti-set-outcome-value></qti-response-if></qti-response-condition>`];
  },
};

/** integer when the whole scale and the key are whole numbers (QTI then compares exactly), else float. */
const baseTypeOf = (q: SliderQuestion) => ([q.min, q.max, q.step, q.correct].every(Number.isInteger) ? 'integer' : 'float');

type Conditional = { toleranceMode: string; tolerance: number[]; includeLower: boolean; includeUpper: boolean };

/** The absolute tolerance qti-equal gives, when Assay's one symmetric, inclusive tolerance is the same. */
function toleranceOf(rp: Conditional, correct: number): number | string {
  if (!rp.includeLower || !rp.includeUpper) return 'a tolerance that excludes its bounds cannot be expressed (Assay includes them)';
  const [t0 = 0, t1 = t0] = rp.tolerance;
  if (!(t0 >= 0) || !(t1 >= 0)) return 'the tolerance is not a number';
  if (t0 !== t1) return 'an asymmetric tolerance cannot be expressed (Assay has one tolerance either side)';
  if (rp.toleranceMode === 'exact') return 0;
  if (rp.toleranceMode === 'absolute') return t0;
  if (rp.toleranceMode === 'relative') {
    // ± t percent of the correct value: the same interval as an absolute tolerance of |correct| × t ÷ 100.
    const abs = (Math.abs(correct) * t0) / 100;
    return round(abs) === abs ? abs : 'a relative tolerance that has no exact absolute equivalent is not imported';
  }
  return `tolerance mode "${rp.toleranceMode}" is not supported`;
}

/**
 * The step: as given; absent, 1 for an integer slider, and for a float one
 * the coarsest of 1, 0.1, … 0.000001 that the bounds and the key sit on
 * (QTI leaves the float slider's resolution to the delivery system).
 */
function stepOf(ctx: Ctx, it: XElement, baseType: string, min: number, max: number, correct: number): number | string {
  const given = it.attrs['step'];
  if (given !== undefined && given.trim() !== '') {
    const step = Number(given);
    return Number.isFinite(step) && step > 0 ? step : `the slider's step "${given}" is not a positive number`;
  }
  if (baseType === 'integer') return 1;
  for (let d = 0; d <= 6; d++) {
    const step = 10 ** -d;
    if (stepCount(min, max, step) !== null && onScale({ min, max, step }, correct) !== null) {
      ctx.notes.push(`the float slider gives no step: it moves in steps of ${step}`);
      return step;
    }
  }
  return 'a float slider without a step whose bounds are not on a scale of millionths cannot be expressed';
}
