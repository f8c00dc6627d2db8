import { evaluate, holds, parseExpression, type Expr } from './expression.js';
import type { DrawnValues, Parametrised, Variable } from './schema.js';

/**
 * Drawing one candidate's values: each range variable uniformly over its
 * steps (min, min + step, … ≤ max), each list variable uniformly over its
 * values; a draw that breaks a constraint, or whose answer formula has no
 * finite value, is drawn again, up to MAX_TRIES times.
 *
 * The authoring check (`satisfiable`) runs SAMPLE_DRAWS draws from a fixed,
 * seeded sequence and refuses a question none of them satisfies. After
 * MAX_TRIES failed random tries a delivery falls back to the first
 * satisfying draw of that same sequence, so a question that passed the
 * check always gets values that meet its constraints. Pure: the randomness
 * comes in as a function.
 */
export const MAX_TRIES = 100;
export const SAMPLE_DRAWS = 1_000;

/** A uniform integer in [0, n). */
export type Random = (n: number) => number;

/** How many values a range variable has (guarded against a step that does not divide the range in binary). */
export function stepCount(v: { min: number; max: number; step: number }): number {
  return Math.floor((v.max - v.min) / v.step + 1e-9) + 1;
}

const decimals = (x: number): number => {
  const s = String(x);
  const e = /e-(\d+)$/.exec(s);
  if (e) return Number(e[1]) + (s.split('e')[0]!.split('.')[1]?.length ?? 0);
  return s.split('.')[1]?.length ?? 0;
};

/** The k-th value of a range, rounded to the decimals its min and step are written with (0.1 × 3 is 0.3, not 0.30000000000000004). */
export function rangeValue(v: { min: number; step: number }, k: number): number {
  const places = Math.min(15, Math.max(decimals(v.min), decimals(v.step)));
  return Number((v.min + k * v.step).toFixed(places));
}

function drawOnce(variables: readonly Variable[], random: Random): DrawnValues {
  const values: DrawnValues = {};
  for (const v of variables) values[v.name] = 'values' in v ? v.values[random(v.values.length)]! : rangeValue(v, random(stepCount(v)));
  return values;
}

/** The parsed constraints and formula of a question (each parsed once per draw, not per try). */
interface Compiled {
  constraints: Expr[];
  formula: Expr | null;
}
function compile(q: Parametrised): Compiled {
  return { constraints: (q.constraints ?? []).map(parseExpression), formula: q.answerFormula ? parseExpression(q.answerFormula) : null };
}

/** Only the numeric values: text values are for the prompt (the authoring check keeps them out of formulas). */
export function numbersOf(values: DrawnValues): Record<string, number> {
  return Object.fromEntries(Object.entries(values).filter((e): e is [string, number] => typeof e[1] === 'number'));
}

function acceptable(c: Compiled, values: DrawnValues): boolean {
  const numbers = numbersOf(values);
  if (!c.constraints.every((e) => holds(evaluate(e, numbers)))) return false;
  return c.formula === null || Number.isFinite(evaluate(c.formula, numbers));
}

/** A fixed pseudo-random sequence (mulberry32) for the sample draws, seeded from the question so its samples never change. */
export function seededRandom(seedText: string): Random {
  let seed = 2166136261;
  for (let i = 0; i < seedText.length; i++) seed = Math.imul(seed ^ seedText.charCodeAt(i), 16777619);
  return (n) => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = seed;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return Math.floor((((t ^ (t >>> 14)) >>> 0) / 4294967296) * n);
  };
}
const sampleSeed = (q: Parametrised) => JSON.stringify([q.variables, q.constraints ?? []]);

/** The first of the question's sample draws that is acceptable, or null when none of SAMPLE_DRAWS is. */
function firstSample(q: Parametrised & { variables: Variable[] }, c: Compiled): DrawnValues | null {
  const random = seededRandom(sampleSeed(q));
  for (let i = 0; i < SAMPLE_DRAWS; i++) {
    const values = drawOnce(q.variables, random);
    if (acceptable(c, values)) return values;
  }
  return null;
}

/** One candidate's values for a question that passed the authoring check. */
export function drawValues(q: Parametrised & { variables: Variable[] }, random: Random): DrawnValues {
  const c = compile(q);
  for (let tries = 0; tries < MAX_TRIES; tries++) {
    const values = drawOnce(q.variables, random);
    if (acceptable(c, values)) return values;
  }
  // Only after MAX_TRIES misses (a rare constraint): the check proved a sample draw exists.
  return firstSample(q, c) ?? drawOnce(q.variables, random);
}

/** Whether any of the question's sample draws meets its constraints (with a finite answer). Expressions must already parse. */
export function satisfiable(q: Parametrised & { variables: Variable[] }): boolean {
  return firstSample(q, compile(q)) !== null;
}

/** `count` acceptable draws for the editor's "Sample draws" (from the random source given). */
export function sampleDraws(q: Parametrised & { variables: Variable[] }, count: number, random: Random): DrawnValues[] {
  return Array.from({ length: count }, () => drawValues(q, random));
}
