import { describe, expect, it } from 'vitest';
import { FLAGS, cronbachAlpha, itemFigures, itemFlags, pearson, pointBiserial, totalFigures } from './item-statistics.js';

/** The formulas from centred sums, on data small enough to work by hand. */
const centred = (xs: number[]) => xs.length * xs.reduce((s, x) => s + x * x, 0) - xs.reduce((s, x) => s + x, 0) ** 2;
const cross = (xs: number[], ys: number[]) => xs.length * xs.reduce((s, x, i) => s + x * ys[i]!, 0) - xs.reduce((s, x) => s + x, 0) * ys.reduce((s, y) => s + y, 0);

describe('item statistics formulas', () => {
  it('pearson: perfect, inverse, none, and null without variance', () => {
    const x = [1, 2, 3, 4];
    expect(pearson(cross(x, [2, 4, 6, 8]), centred(x), centred([2, 4, 6, 8]))).toBeCloseTo(1, 12);
    expect(pearson(cross(x, [8, 6, 4, 2]), centred(x), centred([8, 6, 4, 2]))).toBeCloseTo(-1, 12);
    expect(pearson(cross(x, [1, -1, -1, 1]), centred(x), centred([1, -1, -1, 1]))).toBeCloseTo(0, 12);
    expect(pearson(0, centred(x), centred([5, 5, 5, 5]))).toBeNull();
  });

  it('sample SD of the percents, mean, and SEM from alpha', () => {
    const p = [100, 50, 0];
    const f = totalFigures({ n: 3, sumPercent: 150, centredPercent: centred(p) }, { n: 3, cff: centred([2, 1, 0]), items: [{ questionId: 'a', cxx: centred([1, 1, 0]) }, { questionId: 'b', cxx: centred([1, 0, 0]) }] });
    expect(f.meanPercent).toBe(50);
    expect(f.standardDeviation).toBeCloseTo(50, 12); // sample: √(5000 / 2)
    // var(a) = var(b) = 1/3, var(total) = 1: alpha = 2 · (1 − 2/3) = 2/3
    expect(f.alpha).toBeCloseTo(2 / 3, 12);
    expect(f.standardError).toBeCloseTo(50 * Math.sqrt(1 / 3), 12);
  });

  it('alpha needs two items and variance; a single attempt has no SD', () => {
    expect(cronbachAlpha({ n: 5, cff: 10, items: [{ questionId: 'a', cxx: 3 }] })).toBeNull();
    expect(cronbachAlpha({ n: 5, cff: 0, items: [{ questionId: 'a', cxx: 0 }, { questionId: 'b', cxx: 0 }] })).toBeNull();
    expect(totalFigures({ n: 1, sumPercent: 80, centredPercent: 0 }, { n: 1, cff: 0, items: [] })).toMatchObject({ attempts: 1, meanPercent: 80, standardDeviation: null, alpha: null, standardError: null });
  });

  it('facility counts partial credit as a fraction; an item nobody was given has no figures', () => {
    expect(itemFigures({ questionId: 'q', n: 4, sumX: 3, cxx: 1, cyy: 1, cxy: 0, ctt: 1, sumT: 0 }, 2).facility).toBe(0.375);
    expect(itemFigures(undefined, 2)).toEqual({ attempts: 0, facility: null, discrimination: null });
  });

  it('point-biserial of an option chosen by the two best of four (totals 3, 2, 1, 0) is 2/√5; of nobody, null', () => {
    const t = [3, 2, 1, 0];
    const item = { questionId: 'q', n: 4, sumX: 2, cxx: 4, cyy: 1, cxy: 1, ctt: centred(t), sumT: 6 };
    expect(pointBiserial({ questionId: 'q', optionId: 'a', chosen: 2, sumT: 5 }, item)).toBeCloseTo(2 / Math.sqrt(5), 12);
    expect(pointBiserial(undefined, item)).toBeNull();
  });

  it('flags in words, negative discrimination instead of low', () => {
    expect(itemFlags({ attempts: 10, facility: 0.5, discrimination: -0.3 }, undefined)).toEqual([FLAGS.few, FLAGS.negative]);
    expect(itemFlags({ attempts: 40, facility: 0.5, discrimination: 0.1 }, [{ chosen: 10, correct: true }, { chosen: 0, correct: false }])).toEqual([FLAGS.low, FLAGS.unchosen]);
    expect(itemFlags({ attempts: 40, facility: 0.5, discrimination: 0.45 }, [{ chosen: 10, correct: true }, { chosen: 3, correct: false }])).toEqual([]);
  });
});
