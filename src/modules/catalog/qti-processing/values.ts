import type { QtiBaseType, QtiData, QtiScalar } from './types.js';

/**
 * Values by base type: reading them from a file's text or a candidate's
 * answer, comparing them, and the numeric rules (tolerances, rounding) of
 * QTI 3.0's equal and equalRounded.
 */

const INTEGER = /^[+-]?\d+$/;
const FLOAT = /^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/;

/** The value `text` spells in `base`, or undefined when it is not one (an item's value: refused at compile). */
export function readScalar(text: string, base: QtiBaseType): QtiScalar | undefined {
  const t = text.trim();
  switch (base) {
    case 'integer':
      return INTEGER.test(t) && Number.isSafeInteger(Number(t)) ? Number(t) : undefined;
    case 'float':
    case 'duration': {
      if (t === 'INF') return Infinity;
      if (t === '-INF') return -Infinity;
      return FLOAT.test(t) ? Number(t) : undefined;
    }
    case 'boolean':
      return t === 'true' || t === '1' ? true : t === 'false' || t === '0' ? false : undefined;
    case 'point': {
      const parts = t.split(/\s+/);
      return parts.length === 2 && parts.every((p) => INTEGER.test(p)) ? [Number(parts[0]), Number(parts[1])] : undefined;
    }
    case 'pair':
    case 'directedPair': {
      const parts = t.split(/\s+/);
      return parts.length === 2 && parts[0] !== '' ? [parts[0]!, parts[1]!] : undefined;
    }
    case 'identifier':
    case 'uri':
    case 'file':
      return t === '' ? undefined : t;
    case 'string':
      // Strings are as written (xsd:string is not whitespace-collapsed).
      return text;
  }
}

/** A candidate's value for `base`, leniently: numbers may come as text, pairs and points as "a b"; anything else is NULL. */
export function coerceScalar(v: unknown, base: QtiBaseType | null): QtiScalar | null {
  if (v === null || v === undefined) return null;
  if (base === null) return typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean' ? v : null;
  if (Array.isArray(v)) {
    if (v.length !== 2) return null;
    if (base === 'point') return typeof v[0] === 'number' && typeof v[1] === 'number' ? [v[0], v[1]] : null;
    if (base === 'pair' || base === 'directedPair') return typeof v[0] === 'string' && typeof v[1] === 'string' ? [v[0], v[1]] : null;
    return null;
  }
  if (typeof v === 'number') {
    if (base === 'integer') return Number.isInteger(v) ? v : null;
    if (base === 'float' || base === 'duration') return Number.isNaN(v) ? null : v;
    if (base === 'string' || base === 'identifier') return String(v);
    return null;
  }
  if (typeof v === 'boolean') return base === 'boolean' ? v : null;
  if (typeof v !== 'string') return null;
  if (base === 'string') return v === '' ? null : v;
  return readScalar(v, base) ?? null;
}

export const isNumeric = (b: QtiBaseType | null) => b === 'integer' || b === 'float';

/** Whether two values of one base type are the same value (a pair is unordered, a directedPair is not). */
export function sameScalar(a: QtiScalar, b: QtiScalar, base: QtiBaseType | null): boolean {
  if (Array.isArray(a) && Array.isArray(b)) {
    if (a[0] === b[0] && a[1] === b[1]) return true;
    return base === 'pair' && a[0] === b[1] && a[1] === b[0];
  }
  return a === b;
}

/** QTI's NULL for empty strings and containers; other values unchanged. */
export function normalise(v: QtiData): QtiData {
  return v === '' || (Array.isArray(v) && v.length === 0) ? null : v;
}

/**
 * equal's test with a tolerance: `b` within [a − t0, a + t1] (absolute) or
 * [a·(1 − t0/100), a·(1 + t1/100)] (relative), each end included unless
 * told otherwise; exact is plain equality.
 */
export function withinTolerance(
  a: number,
  b: number,
  mode: 'exact' | 'absolute' | 'relative',
  t: [number, number],
  includeLower: boolean,
  includeUpper: boolean,
): boolean {
  if (mode === 'exact') return a === b;
  const low = mode === 'absolute' ? a - t[0] : a * (1 - t[0] / 100);
  const high = mode === 'absolute' ? a + t[1] : a * (1 + t[1] / 100);
  const lo = Math.min(low, high);
  const hi = Math.max(low, high);
  return (includeLower ? b >= lo : b > lo) && (includeUpper ? b <= hi : b < hi);
}

/**
 * Rounds `x` to `figures` significant figures or decimal places, half away
 * from zero, on its shortest decimal spelling (so 1.005 to 2 places is 1.01,
 * as a person reading the item would round it, not 1.00 as its binary value would).
 */
export function roundTo(x: number, mode: 'significantFigures' | 'decimalPlaces', figures: number): number {
  if (!Number.isFinite(x) || x === 0) return x;
  const neg = x < 0;
  const [mant, expPart] = Math.abs(x).toExponential().split('e') as [string, string];
  const digits = mant.replace('.', '');
  const exp = Number(expPart); // value = 0.d1d2… × 10^(exp+1)
  const keep = mode === 'significantFigures' ? figures : exp + 1 + figures;
  if (keep < 0) return 0;
  if (keep >= digits.length) return x;
  let kept = keep === 0 ? 0n : BigInt(digits.slice(0, keep));
  if (Number(digits[keep]) >= 5) kept += 1n;
  const value = Number(`${kept}e${exp + 1 - keep}`);
  return neg ? -value : value;
}
