import { AppError, type ErrorDetail } from '../../../../platform/errors.js';
import { checkParameters } from './check.js';
import { sampleDraws, type Random } from './draw.js';
import { isParametrised, type DrawnValues, type Parametrised } from './schema.js';
import { formatNumber, formulaValue } from './with-values.js';

/**
 * The editor's "Sample draws": a few draws of a question as candidates would
 * get them, with the answer each gives, made by the same draw and evaluator
 * as an attempt's so the author sees what candidates will. A question the
 * authoring checks refuse is refused here with the same details.
 */
export interface SampleDraw {
  values: DrawnValues;
  /** The formula's value, as the candidate would have to write it; null without a formula (a short-text question's own answers). */
  answer: string | null;
}

export function sampleDrawsFor(q: Parametrised & { type: string; prompt: string; answer?: number }, random: Random, count = 3): { draws: SampleDraw[] } {
  const details: ErrorDetail[] = [];
  if (!isParametrised(q)) details.push({ field: 'question.variables', message: 'the question has no variables to draw' });
  else checkParameters(q, 'question', details);
  if (details.length > 0 || !isParametrised(q)) throw new AppError('invalid_request', `${details[0]!.field}: ${details[0]!.message}`, details);
  return {
    draws: sampleDraws(q, count, random).map((values) => ({ values, answer: q.answerFormula ? formatNumber(formulaValue(q.answerFormula, values)) : null })),
  };
}
