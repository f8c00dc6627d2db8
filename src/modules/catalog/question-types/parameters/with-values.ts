import { evaluate, parseExpression } from './expression.js';
import { numbersOf } from './draw.js';
import { isParametrised, type DrawnValues } from './schema.js';

/**
 * A parametrised question as one candidate sees it: `{name}` in the prompt
 * replaced by their value; a numeric question's `answer` is the formula's
 * value for those values; a short-text question accepts the formula's value
 * written as text, beside its own accepted answers (whose `{name}`s are
 * replaced too). Every reader of an attempt (the page, the marking, the
 * review and report views, simulate) gets the question through here, by
 * way of catalog/delivery.ts's `deliver`, so they all see the candidate's
 * own numbers. A question without variables, or without values (an
 * attempt begun before it had any), is returned as it is. Pure.
 */

/** A number as people write it: no binary noise (0.1 + 0.2 is 0.3), no trailing zeros. */
export function formatNumber(x: number): string {
  if (!Number.isFinite(x)) return String(x);
  if (Number.isInteger(x) && Math.abs(x) < 1e21) return String(x);
  return String(Number(x.toPrecision(12)));
}

const PLACEHOLDER = /\{([A-Za-z_][A-Za-z0-9_]*)\}/g;

/** The names written `{name}` in a text, each once, in order. */
export function placeholdersIn(text: string): string[] {
  return [...new Set([...text.matchAll(PLACEHOLDER)].map((m) => m[1]!))];
}

/** `{name}` replaced by its value where the name is one of the values; anything else left as written. */
export function substitute(text: string, values: DrawnValues): string {
  return text.replace(PLACEHOLDER, (whole, name: string) => {
    if (!Object.hasOwn(values, name)) return whole;
    const v = values[name]!;
    return typeof v === 'number' ? formatNumber(v) : v;
  });
}

/** The formula's value for these values, without binary noise; NaN when it has none. */
export function formulaValue(formula: string, values: DrawnValues): number {
  const x = evaluate(parseExpression(formula), numbersOf(values));
  return Number.isFinite(x) ? Number(x.toPrecision(12)) : NaN;
}

type Instantiable = { type: string; prompt: string; answer?: number; acceptedAnswers?: unknown[]; answerFormula?: string };

export function withValues<Q extends { type: string; prompt: string }>(q: Q, values: DrawnValues | undefined): Q {
  if (!values || !isParametrised(q)) return q;
  const p = q as unknown as Instantiable;
  const shown: Instantiable = { ...p, prompt: substitute(p.prompt, values) };
  if (p.type === 'numeric' && p.answerFormula) shown.answer = formulaValue(p.answerFormula, values);
  if (p.type === 'short_text') {
    const own = (p.acceptedAnswers ?? []).map((a) =>
      typeof a === 'string' ? substitute(a, values) : { ...(a as { text: string }), text: substitute((a as { text: string }).text, values) },
    );
    shown.acceptedAnswers = p.answerFormula ? [formatNumber(formulaValue(p.answerFormula, values)), ...own] : own;
  }
  return shown as unknown as Q;
}
