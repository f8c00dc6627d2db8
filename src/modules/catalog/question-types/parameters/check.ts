import type { ErrorDetail } from '../../../../platform/errors.js';
import { expressionProblem, parseExpression, RESERVED_NAMES, variablesOf } from './expression.js';
import { satisfiable, stepCount } from './draw.js';
import { placeholdersIn } from './with-values.js';
import { isParametrised, MAX_VARIABLES, type Parametrised } from './schema.js';

/** A range may hold at most this many steps: beyond it a "step" is a slip (0.0001 over 0–1e9). */
const MAX_STEPS = 1_000_000;

/**
 * The authoring rules of a parametrised question (numeric or short_text),
 * each problem named under `at`:
 * - variable names unique, not a function or constant's name, at most 20 variables;
 * - a range's min ≤ max, step > 0, at most a million steps;
 * - every `{name}` in the prompt is a variable;
 * - the formula and constraints parse and read only variables, and only number-valued ones;
 * - the constraints are met by at least one of 1,000 sample draws (with a finite answer);
 * - numeric: `answerFormula` or `answer`, not both; constraints and a formula need variables.
 */
export function checkParameters(q: Parametrised & { type: string; prompt: string; answer?: number }, at: string, details: ErrorDetail[]): void {
  const before = details.length;
  const variables = q.variables ?? [];
  if (q.type === 'numeric') {
    if (q.answerFormula !== undefined && q.answer !== undefined) details.push({ field: `${at}.answer`, message: 'give answer or answerFormula, not both' });
    if (q.answerFormula === undefined && q.answer === undefined) details.push({ field: `${at}.answer`, message: 'is required (or answerFormula, with variables)' });
  }
  if (!isParametrised(q)) {
    if (q.answerFormula !== undefined) details.push({ field: `${at}.answerFormula`, message: 'needs variables to calculate with' });
    if (q.constraints?.length) details.push({ field: `${at}.constraints`, message: 'needs variables to constrain' });
    return;
  }
  if (variables.length > MAX_VARIABLES) details.push({ field: `${at}.variables`, message: `has ${variables.length} variables; at most ${MAX_VARIABLES}` });
  const numeric = new Set<string>();
  const seen = new Set<string>();
  variables.forEach((v, j) => {
    const field = `${at}.variables.${j}`;
    if (seen.has(v.name)) details.push({ field: `${field}.name`, message: `duplicates variable "${v.name}"` });
    if (RESERVED_NAMES.has(v.name)) details.push({ field: `${field}.name`, message: `"${v.name}" is a function or constant of formulas; choose another name` });
    seen.add(v.name);
    if ('values' in v) {
      if (v.values.length === 0) details.push({ field: `${field}.values`, message: 'needs at least one value' });
      if (v.values.every((x) => typeof x === 'number')) numeric.add(v.name);
      return;
    }
    numeric.add(v.name);
    if (!(v.step > 0)) details.push({ field: `${field}.step`, message: 'must be more than 0' });
    else if (v.min > v.max) details.push({ field: `${field}.max`, message: `is ${v.max}, less than min ${v.min}` });
    else if (stepCount(v) > MAX_STEPS) details.push({ field: `${field}.step`, message: `gives more than ${MAX_STEPS.toLocaleString('en-GB')} values from ${v.min} to ${v.max}; use a larger step` });
  });
  for (const name of placeholdersIn(q.prompt)) {
    if (!seen.has(name)) details.push({ field: `${at}.prompt`, message: `{${name}} is not a variable of the question` });
  }
  const expression = (field: string, src: string) => {
    const problem = expressionProblem(src, seen);
    if (problem) return details.push({ field, message: problem });
    for (const [name, position] of variablesOf(parseExpression(src))) {
      if (!numeric.has(name)) details.push({ field, message: `variable \`${name}\` holds text, not a number, at ${position}` });
    }
  };
  q.constraints?.forEach((c, j) => expression(`${at}.constraints.${j}`, c));
  if (q.answerFormula !== undefined) expression(`${at}.answerFormula`, q.answerFormula);
  // The sample draws only mean something when every rule above holds.
  if (details.length === before && !satisfiable(q)) {
    details.push({
      field: q.constraints?.length ? `${at}.constraints` : `${at}.answerFormula`,
      message: `no draw of 1,000 tries meets the constraints${q.answerFormula ? ' with a calculable answer' : ''}; widen the variables or loosen the constraints`,
    });
  }
}
