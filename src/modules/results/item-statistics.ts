import type { AlphaSums, ItemSums, OptionSums, TotalSums } from './statistics-repo.js';

/**
 * Classical test theory from the sums of statistics-repo.ts. Pure, so the
 * formulas are tested without a database.
 *
 * Conventions (docs/results.md):
 * - standardDeviation is the **sample** standard deviation (n − 1, numpy's
 *   ddof=1) of the attempts' percents; the item and total variances inside
 *   Cronbach's alpha use n − 1 too (the ratio is the same either way).
 * - facility = mean mark ÷ the item's points (partial credit as a fraction).
 * - discrimination = Pearson r of the item's mark with the total minus that
 *   item (corrected item-total correlation), over the attempts given it.
 * - pointBiserial = Pearson r of "chose this option" (0/1) with the total,
 *   over the attempts given the question.
 * - alpha = k/(k−1) · (1 − Σ var(item) / var(sum of the k items)) over the k
 *   questions every attempt was given (every question outside a pool); a
 *   pool's questions, each seen by some attempts only, are left out of it.
 * - standardError = SD × √(1 − alpha), in percent like the SD.
 * A figure that cannot be computed (no variance, fewer than 2 attempts,
 * fewer than 2 items for alpha) is null.
 */
export const FEW_ATTEMPTS = 30;
export const LOW_DISCRIMINATION = 0.2;

export const FLAGS = {
  few: `few attempts: under ${FEW_ATTEMPTS}`,
  low: 'low discrimination',
  negative: 'negative discrimination: check the key',
  unchosen: 'a distractor nobody chose',
} as const;

/** Pearson r from centred sums (n·Σxy − ΣxΣy over √((n·Σx² − (Σx)²)(n·Σy² − (Σy)²))), null without variance. */
export function pearson(cxy: number, cxx: number, cyy: number): number | null {
  if (!(cxx > 0) || !(cyy > 0)) return null;
  const r = cxy / Math.sqrt(cxx * cyy);
  return Math.max(-1, Math.min(1, r));
}

export interface TotalFigures {
  attempts: number;
  meanPercent: number | null;
  standardDeviation: number | null;
  alpha: number | null;
  standardError: number | null;
}

export function totalFigures(t: TotalSums, a: AlphaSums): TotalFigures {
  const n = t.n;
  const meanPercent = n > 0 ? t.sumPercent / n : null;
  // Sample variance: (n·Σp² − (Σp)²) / (n·(n − 1)).
  const standardDeviation = n > 1 ? Math.sqrt(Math.max(0, t.centredPercent) / (n * (n - 1))) : null;
  const alpha = cronbachAlpha(a);
  const standardError = standardDeviation !== null && alpha !== null ? standardDeviation * Math.sqrt(Math.max(0, 1 - alpha)) : null;
  return { attempts: n, meanPercent, standardDeviation, alpha, standardError };
}

/** Cronbach's alpha from centred sums; the common factor 1/(n(n−1)) cancels. */
export function cronbachAlpha(a: AlphaSums): number | null {
  const k = a.items.length;
  if (k < 2 || a.n < 2 || !(a.cff > 0)) return null;
  const itemVar = a.items.reduce((s, i) => s + i.cxx, 0);
  return (k / (k - 1)) * (1 - itemVar / a.cff);
}

export interface ItemFigures {
  attempts: number;
  facility: number | null;
  discrimination: number | null;
}

export function itemFigures(s: ItemSums | undefined, points: number): ItemFigures {
  if (!s || s.n === 0) return { attempts: 0, facility: null, discrimination: null };
  return {
    attempts: s.n,
    facility: points > 0 ? s.sumX / s.n / points : null,
    discrimination: s.n > 1 ? pearson(s.cxy, s.cxx, s.cyy) : null,
  };
}

/** Point-biserial of one option over the attempts given its question (item sums n, Σt, centred Σt²). */
export function pointBiserial(o: OptionSums | undefined, item: ItemSums | undefined): number | null {
  if (!item || item.n < 2) return null;
  const c = o?.chosen ?? 0;
  const sct = o?.sumT ?? 0;
  const n = item.n;
  // c is 0/1: Σc = Σc² = chosen, Σct = sct.
  return pearson(n * sct - c * item.sumT, n * c - c * c, item.ctt);
}

export function itemFlags(f: ItemFigures, options: Array<{ chosen: number; correct: boolean }> | undefined): string[] {
  const flags: string[] = [];
  if (f.attempts < FEW_ATTEMPTS) flags.push(FLAGS.few);
  if (f.discrimination !== null && f.discrimination < 0) flags.push(FLAGS.negative);
  else if (f.discrimination !== null && f.discrimination < LOW_DISCRIMINATION) flags.push(FLAGS.low);
  if (f.attempts > 0 && options?.some((o) => !o.correct && o.chosen === 0)) flags.push(FLAGS.unchosen);
  return flags;
}
