import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHarness, type Harness } from '../helpers/harness.js';
import { Student, assign, createPublishedTest } from '../helpers/student.js';
import { POOL_IDS, sectionedTest } from '../helpers/sectioned.js';

/**
 * 200 assignments of one pooled test (draw 2 of 5), each begun through the
 * student page: the draw must spread evenly over the pool. No fixed seed:
 * the deliveries come from the CSPRNG, and a chi-square goodness-of-fit
 * test computed here must not reject uniformity at p ≤ 0.001 (a correct
 * implementation fails this about once in a thousand runs).
 */

const RUNS = 200;
let h: Harness;
const deliveries: Array<{ sections: Array<{ sectionId: string; questionIds: string[] }>; optionOrder: Record<string, string[]>; itemOrder: Record<string, string[]> }> = [];

beforeAll(async () => {
  h = await createHarness();
  const testId = await createPublishedTest(h, h.a, sectionedTest());
  for (let i = 0; i < RUNS; i++) {
    const a = await assign(h, h.a, { testId, externalUserId: `spread-${i}` });
    await new Student(h).start(a.startUrl);
  }
  const { rows } = await h.pool.query('SELECT delivery FROM attempts a JOIN assignments s ON s.id = a.assignment_id WHERE s.test_id = $1', [testId]);
  deliveries.push(...rows.map((r) => r.delivery));
}, 240_000);
afterAll(() => h.close());

/** Pearson's chi-square statistic of observed counts against equal expected counts. */
function chiSquare(counts: number[]): number {
  const total = counts.reduce((a, b) => a + b, 0);
  const expected = total / counts.length;
  return counts.reduce((sum, c) => sum + (c - expected) ** 2 / expected, 0);
}

/**
 * P(X ≥ x) for a chi-square variable with an even number of degrees of
 * freedom k: e^(−x/2) · Σ_{i<k/2} (x/2)^i / i! (exact).
 */
function chiSquarePValue(x: number, k: number): number {
  if (k % 2 !== 0) throw new Error('even degrees of freedom only');
  let term = 1;
  let sum = 1;
  for (let i = 1; i < k / 2; i++) {
    term *= x / 2 / i;
    sum += term;
  }
  return Math.exp(-x / 2) * sum;
}

describe('the pool spread over 200 assignments', () => {
  it('the p-value helper matches known chi-square quantiles', () => {
    // χ²(4) at 18.467 and χ²(2) at 13.816 are the 0.001 critical values.
    expect(chiSquarePValue(18.467, 4)).toBeCloseTo(0.001, 4);
    expect(chiSquarePValue(13.816, 2)).toBeCloseTo(0.001, 4);
    expect(chiSquarePValue(0, 4)).toBe(1);
  });

  it('every attempt was begun and draws 2 distinct questions of the pool', () => {
    expect(deliveries).toHaveLength(RUNS);
    for (const d of deliveries) {
      const pool = d.sections.find((s) => s.sectionId === 'pool')!.questionIds;
      expect(pool).toHaveLength(2);
      expect(new Set(pool).size).toBe(2);
      for (const id of pool) expect(POOL_IDS).toContain(id);
    }
  });

  it('draws each of the 5 questions about 80 times (chi-square, 4 degrees of freedom, p > 0.001)', () => {
    const counts = POOL_IDS.map((id) => deliveries.filter((d) => d.sections[0]!.questionIds.includes(id)).length);
    expect(counts.reduce((a, b) => a + b, 0)).toBe(2 * RUNS);
    const p = chiSquarePValue(chiSquare(counts), POOL_IDS.length - 1);
    expect(p, `counts ${counts.join(', ')}`).toBeGreaterThan(0.001);
  });

  it('shows each drawn question first about as often as second (the section is shuffled)', () => {
    const firsts = POOL_IDS.map((id) => deliveries.filter((d) => d.sections[0]!.questionIds[0] === id).length);
    const p = chiSquarePValue(chiSquare(firsts), POOL_IDS.length - 1);
    expect(p, `first places ${firsts.join(', ')}`).toBeGreaterThan(0.001);
  });

  it('shuffles the options of each drawn question, keeping the fixed "None of these" last in every delivery', () => {
    const firstOption = { a: 0, b: 0, c: 0 } as Record<string, number>;
    for (const d of deliveries) {
      for (const id of d.sections[0]!.questionIds) {
        const order = d.optionOrder[id]!;
        expect(order).toHaveLength(4);
        expect(order[3]).toBe('none');
        expect([...order].sort()).toEqual(['a', 'b', 'c', 'none']);
        firstOption[order[0]!]!++;
      }
      // Questions not drawn have no option order.
      expect(Object.keys(d.optionOrder).sort()).toEqual([...d.sections[0]!.questionIds].sort());
    }
    const counts = Object.values(firstOption);
    const p = chiSquarePValue(chiSquare(counts), counts.length - 1);
    expect(p, `first options ${counts.join(', ')}`).toBeGreaterThan(0.001);
  });

  it('never shows the ordering question in its correct order, and shows the other 23 orders', () => {
    const correct = ['me', 've', 'ea', 'ma'];
    const seen = new Set<string>();
    for (const d of deliveries) {
      const order = d.itemOrder['order']!;
      expect([...order].sort()).toEqual([...correct].sort());
      expect(order).not.toEqual(correct);
      seen.add(order.join(','));
    }
    // 200 uniform draws from the 23 wrong orders leave on average 23 × (22/23)^200 ≈ 0.003 of them unseen;
    // a broken scramble (one rotation, a fixed swap) shows only a handful.
    expect(seen.size).toBeGreaterThanOrEqual(20);
  });
});
