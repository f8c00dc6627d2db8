import fc from 'fast-check';
import { unzipSync } from 'fflate';
import { describe, expect, it } from 'vitest';
import type { Question, QuestionInput } from '../schemas.js';
import { exactWeights } from './exact-weights.js';
import { exportQti3, type ExportableTest } from './qti-export.js';
import { importQtiPackage } from './qti-package.js';

/**
 * The shares an export writes add up, in document order and in IEEE
 * doubles, to exactly the question's points (another engine never gives
 * 3.9999999999999996 for a fully correct answer), and the package reads
 * back as the same question.
 */
const test = (q: QuestionInput): ExportableTest => ({ testId: 'tst_weights', title: 'Weights', durationMinutes: 10, questions: [q as Question] });
const ids = (n: number, p: string) => Array.from({ length: n }, (_, i) => ({ id: `${p}${i + 1}`, text: `${p} ${i + 1}` }));

/** Points as authors write them: whole or with up to two decimals, 0.01 to 1000. */
const points = fc.integer({ min: 1, max: 100_000 }).map((c) => c / 100);
const count = fc.integer({ min: 1, max: 40 });

function question(kind: number, pts: number, n: number): QuestionInput {
  switch (kind) {
    case 0:
      return { id: 'q', type: 'multiple_choice', prompt: 'Pick', points: pts, options: [...ids(n, 'o'), { id: 'wrong', text: 'wrong' }], correctOptionIds: ids(n, 'o').map((o) => o.id), partialCredit: true };
    case 1:
      return { id: 'q', type: 'matching', prompt: 'Match', points: pts, stems: ids(n, 's'), choices: ids(Math.max(n, 2), 'c'), correct: Object.fromEntries(ids(n, 's').map((s, i) => [s.id, `c${i + 1}`])), partialCredit: true };
    case 2:
      return { id: 'q', type: 'ordering', prompt: 'Order', points: pts, items: ids(Math.max(n, 2), 'i'), partialCredit: true };
    default:
      return {
        id: 'q',
        type: 'fill_blanks',
        prompt: 'Fill',
        points: pts,
        text: ids(n, 'b').map((b) => `{{${b.id}}}`).join(' and '),
        blanks: ids(n, 'b').map((b) => ({ id: b.id, kind: 'text' as const, acceptedAnswers: ['x'] })),
      };
  }
}

/** The positive shares of the item, in document order: mapped values, or the `SCORE + w` of each position. */
function sharesOf(xml: string): number[] {
  const mapped = [...xml.matchAll(/mapped-value="([^"]+)"/g)].map((m) => Number(m[1]));
  const added = [...xml.matchAll(/<qti-variable identifier="SCORE"\/><qti-base-value base-type="float">([^<]+)</g)].map((m) => Number(m[1]));
  return [...mapped, ...added].filter((v) => v > 0);
}

describe('exact partial-credit weights', () => {
  it('exactWeights: n near-equal shares whose left-to-right sum is the points', () => {
    fc.assert(
      fc.property(points, count, (pts, n) => {
        const w = exactWeights(pts, n);
        expect(w).toHaveLength(n);
        expect(w.reduce((a, b) => a + b, 0)).toBe(pts);
        for (const x of w) expect(Math.abs(x - pts / n)).toBeLessThan(1e-12 * Math.max(1, pts));
      }),
      { numRuns: 2000 },
    );
    // The case that prompted it: 4 points in 3 shares written as 4/3 each sum to 3.9999999999999996... in some orders; these sum to 4.
    expect(exactWeights(4, 3).reduce((a, b) => a + b, 0)).toBe(4);
    expect(0.1 + 0.1 + 0.1).not.toBe(0.3);
    expect(exactWeights(0.3, 3).reduce((a, b) => a + b, 0)).toBe(0.3);
  });

  it('an exported item writes shares that sum exactly to the points in document order, and imports back as the same question', async () => {
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 0, max: 3 }), points, count, async (kind, pts, n) => {
        const q = question(kind, pts, n);
        const files = unzipSync(exportQti3(test(q)));
        const xml = new TextDecoder().decode(files['items/q.xml']!);
        const shares = sharesOf(xml);
        expect(shares.length).toBeGreaterThan(0);
        expect(shares.reduce((a, b) => a + b, 0)).toBe(pts);
        const { input, report } = await importQtiPackage(exportQti3(test(q)));
        expect(report.skipped).toEqual([]);
        expect(input!.questions![0]).toMatchObject(q as object);
      }),
      { numRuns: 300 },
    );
  });
});
