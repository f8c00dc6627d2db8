import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestInput } from '../../src/modules/catalog/schemas.js';
import { createHarness, type Harness } from '../helpers/harness.js';
import { expectError } from '../helpers/expect-error.js';
import { rollUpAttempts } from '../../src/modules/results/statistics-repo.js';
import { expectClose, publishedVersion, seedAttempts } from '../helpers/results.js';

/**
 * Item statistics (GET /api/admin/v1/tests/{testId}/statistics) against a
 * hand-computed fixture and against an independent oracle: 200 scored
 * attempts (test/fixtures/statistics/fixture.json) whose figures numpy and
 * scipy compute (oracle.py, run here when python3 with scipy is present;
 * expected.json holds its output otherwise).
 */
const FIXTURES = path.join(import.meta.dirname, '../fixtures/statistics');
const fixture = JSON.parse(fs.readFileSync(path.join(FIXTURES, 'fixture.json'), 'utf8'));

function oracleFigures(): any {
  try {
    execFileSync('python3', ['-c', 'import numpy, scipy'], { stdio: 'ignore' });
  } catch {
    return JSON.parse(fs.readFileSync(path.join(FIXTURES, 'expected.json'), 'utf8'));
  }
  const out = execFileSync('python3', [path.join(FIXTURES, 'oracle.py'), path.join(FIXTURES, 'fixture.json')], { encoding: 'utf8' });
  // The committed figures are the script's output: a change to either shows here (to the last bits that
  // differ between numpy builds, 1e-12, far inside the 1e-9 the figures are held to).
  expectSame(JSON.parse(out), JSON.parse(fs.readFileSync(path.join(FIXTURES, 'expected.json'), 'utf8')), 'oracle');
  return JSON.parse(out);
}

/** Equal structures, numbers within 1e-12. */
function expectSame(actual: unknown, expected: unknown, at: string): void {
  if (typeof expected === 'number' && typeof actual === 'number') {
    expect(Math.abs(actual - expected), `${at}: ${actual} vs ${expected}`).toBeLessThanOrEqual(1e-12);
  } else if (expected !== null && typeof expected === 'object') {
    expect(actual !== null && typeof actual === 'object', at).toBe(true);
    expect(Object.keys(actual as object).sort(), at).toEqual(Object.keys(expected).sort());
    for (const k of Object.keys(expected)) expectSame((actual as Record<string, unknown>)[k], (expected as Record<string, unknown>)[k], `${at}.${k}`);
  } else {
    expect(actual, at).toEqual(expected);
  }
}

const SMALL: TestInput = {
  title: 'Three items',
  description: '',
  durationMinutes: 10,
  proctoring: 'none',
  marking: 'auto',
  resultVisibility: 'immediate',
  passPercent: 50,
  questions: [
    { id: 'q1', type: 'single_choice', prompt: 'Pick a', points: 1, options: [{ id: 'a', text: 'A' }, { id: 'b', text: 'B' }, { id: 'c', text: 'C' }], correctOptionId: 'a' },
    { id: 'q2', type: 'numeric', prompt: '1 + 1?', points: 1, answer: 2 },
    { id: 'q3', type: 'numeric', prompt: '2 + 2?', points: 1, answer: 4 },
  ],
};
const flat = { sections: [{ sectionId: 'main', questionIds: ['q1', 'q2', 'q3'] }], optionOrder: {}, itemOrder: {} };
const small = (who: string, q1: string, q2: number, q3: number) => ({
  externalUserId: who,
  delivery: flat,
  answers: { q1 },
  marks: { q1: q1 === 'a' ? 1 : 0, q2, q3 },
});

let h: Harness;
let smallTest: { testId: string; testVersionId: string };
let big: { testId: string; testVersionId: string };
beforeAll(async () => {
  h = await createHarness();
  smallTest = await publishedVersion(h, h.a, SMALL);
  // Totals 3, 2, 1, 0 (worked through in the first test).
  await seedAttempts(h, h.a, smallTest, 3, [small('s-a', 'a', 1, 1), small('s-b', 'a', 0, 1), small('s-c', 'b', 1, 0), small('s-d', 'b', 0, 0)]);
  big = await publishedVersion(h, h.a, fixture.test);
  await seedAttempts(h, h.a, big, fixture.maxPoints, fixture.attempts);
}, 120_000);
afterAll(() => h?.close());

const stats = (testId: string, query: string) => h.admin('GET', `/api/admin/v1/tests/${testId}/statistics?${query}`);

describe('item statistics, hand-computed', () => {
  it('gives the figures worked out by hand for four attempts of three one-point items', async () => {
    const res = await stats(smallTest.testId, `institutionId=${h.a.institutionId}`);
    expect(res.statusCode, res.body).toBe(200);
    const s = res.json();
    // Totals 3, 2, 1, 0 of 3: percents 100, 66.67, 33.33, 0; mean 50; sample SD (100/3)·√(5/3).
    expect(s.attempts).toBe(4);
    expectClose(s.meanPercent, 50, 'mean');
    expectClose(s.standardDeviation, (100 / 3) * Math.sqrt(5 / 3), 'sd');
    // Each item's variance 1/3, the total's 5/3: alpha = 3/2 · (1 − 1 / (5/3)) = 0.6.
    expectClose(s.alpha, 0.6, 'alpha');
    expectClose(s.standardError, (100 / 3) * Math.sqrt(5 / 3) * Math.sqrt(0.4), 'sem');
    const [q1, q2, q3] = s.items;
    // q1 marks 1,1,0,0 against the rest 2,1,1,0: r = 1/√2. q2 marks 1,0,1,0 against 2,2,0,0: r = 0.
    expect(q1).toMatchObject({ questionId: 'q1', prompt: 'Pick a', type: 'single_choice', attempts: 4, facility: 0.5 });
    expectClose(q1.discrimination, Math.SQRT1_2, 'q1 discrimination');
    expectClose(q2.discrimination, 0, 'q2 discrimination');
    expectClose(q3.discrimination, Math.SQRT1_2, 'q3 discrimination');
    // Option a chosen by the totals 3 and 2: r with 3,2,1,0 = 2/√5; b the opposite; c by nobody (no variance).
    expect(q1.options.map((o: any) => [o.optionId, o.chosen, o.correct])).toEqual([['a', 2, true], ['b', 2, false], ['c', 0, false]]);
    expectClose(q1.options[0].pointBiserial, 2 / Math.sqrt(5), 'a');
    expectClose(q1.options[1].pointBiserial, -2 / Math.sqrt(5), 'b');
    expect(q1.options[2].pointBiserial).toBeNull();
    expect(q1.flags).toEqual(['few attempts: under 30', 'a distractor nobody chose']);
    expect(q2.flags).toEqual(['few attempts: under 30', 'low discrimination']);
    expect(q2.options).toBeUndefined();
  });

  it('counts partial credit as a fraction of the points', async () => {
    const partial = await publishedVersion(h, h.a, { ...SMALL, title: 'Partial', questions: [{ ...SMALL.questions![1]!, points: 4 }, SMALL.questions![2]!] });
    const ids = (await h.admin('GET', `/api/admin/v1/tests/${partial.testId}`)).json().questions.map((q: any) => q.id);
    const d = { sections: [{ sectionId: 'main', questionIds: ids }], optionOrder: {}, itemOrder: {} };
    await seedAttempts(h, h.a, partial, 5, [
      { externalUserId: 'p-1', delivery: d, answers: {}, marks: { [ids[0]]: 1, [ids[1]]: 1 } },
      { externalUserId: 'p-2', delivery: d, answers: {}, marks: { [ids[0]]: 2.5, [ids[1]]: 0 } },
    ]);
    const s = (await stats(partial.testId, `institutionId=${h.a.institutionId}`)).json();
    // (1 + 2.5) / 2 / 4
    expectClose(s.items[0].facility, 3.5 / 2 / 4, 'facility');
    expectClose(s.meanPercent, ((2 / 5) * 100 + (2.5 / 5) * 100) / 2, 'mean');
  });
});

describe('item statistics against the scipy oracle (200 attempts, a pool)', () => {
  // Live figures come from the rollup, test-mode ones from an aggregate at read time: both must match.
  it.each([true, false])('matches every figure to 1e-9 (livemode=%s)', async (livemode) => {
    const expected = oracleFigures();
    if (!livemode) await seedAttempts(h, h.a, big, fixture.maxPoints, fixture.attempts.map((a: any) => ({ ...a, externalUserId: `t-${a.externalUserId}` })), { livemode });
    const res = await stats(big.testId, `institutionId=${h.a.institutionId}&version=1&livemode=${livemode}`);
    expect(res.statusCode, res.body).toBe(200);
    const s = res.json();
    expect(s.attempts).toBe(expected.attempts);
    for (const k of ['meanPercent', 'standardDeviation', 'alpha', 'standardError']) expectClose(s[k], expected[k], k);
    expect(s.alphaItems).toBe(5);
    expect(s.items.map((i: any) => i.questionId)).toEqual(expected.items.map((i: any) => i.questionId));
    for (const [i, e] of expected.items.entries()) {
      const got = s.items[i];
      expect(got.attempts, e.questionId).toBe(e.attempts);
      expectClose(got.facility, e.facility, `${e.questionId} facility`);
      expectClose(got.discrimination, e.discrimination, `${e.questionId} discrimination`);
      if (!e.options) continue;
      for (const [j, o] of e.options.entries()) {
        expect(got.options[j].chosen, `${e.questionId}.${o.optionId} chosen`).toBe(o.chosen);
        expectClose(got.options[j].pointBiserial, o.pointBiserial, `${e.questionId}.${o.optionId} point-biserial`);
      }
    }
    // A pool's questions are counted over the attempts that drew them.
    const pool = s.items.filter((i: any) => i.section === 'Pool');
    expect(pool.map((i: any) => i.attempts).reduce((a: number, b: number) => a + b, 0)).toBe(400);
    expect(s.items.find((i: any) => i.questionId === 'q_short').flags).toContain('negative discrimination: check the key');
    expect(s.items.find((i: any) => i.questionId === 'q_p3').flags).toContain('a distractor nobody chose');
    expect(s.items.find((i: any) => i.questionId === 'q_sc1').flags).toEqual([]);
  });
});

describe('who sees what', () => {
  it('keeps test-mode attempts apart: livemode=false counts them only, the live figures ignore them', async () => {
    const before = (await stats(smallTest.testId, `institutionId=${h.a.institutionId}`)).json();
    await seedAttempts(h, h.a, smallTest, 3, [small('t-1', 'c', 1, 1), small('t-2', 'c', 1, 1), small('t-3', 'a', 0, 0)], { livemode: false });
    const live = (await stats(smallTest.testId, `institutionId=${h.a.institutionId}&livemode=true`)).json();
    expect(live).toEqual(before);
    const test = (await stats(smallTest.testId, `institutionId=${h.a.institutionId}&livemode=false`)).json();
    expect(test.livemode).toBe(false);
    expect(test.attempts).toBe(3);
    expect(test.items[0].options.map((o: any) => o.chosen)).toEqual([1, 0, 2]);
  });

  it("counts only the institution's own attempts, and hides a test the institution cannot see", async () => {
    const before = (await stats(smallTest.testId, `institutionId=${h.a.institutionId}`)).json();
    expect((await h.admin('PUT', `/api/admin/v1/tests/${smallTest.testId}/publications/${h.b.institutionId}`)).statusCode).toBe(204);
    await seedAttempts(h, h.b, smallTest, 3, [small('b-1', 'c', 1, 1), small('b-2', 'b', 0, 1)]);
    expect((await stats(smallTest.testId, `institutionId=${h.a.institutionId}`)).json()).toEqual(before);
    expect((await stats(smallTest.testId, `institutionId=${h.b.institutionId}`)).json().attempts).toBe(2);
    // The fixture's test is published to A only: B's id gets the same 404 as an unknown test.
    const other = expectError(await stats(big.testId, `institutionId=${h.b.institutionId}`), 404, 'not_found');
    const unknown = expectError(await stats('tst_nope', `institutionId=${h.a.institutionId}`), 404, 'not_found');
    expect(other.error.message).toBe(unknown.error.message);
    expectError(await stats(big.testId, `institutionId=ins_nope`), 404, 'not_found');
    expectError(await stats(big.testId, `institutionId=${h.a.institutionId}&version=9`), 404, 'not_found');
  });

  it('counts completed attempts with a final score only', async () => {
    const before = (await stats(smallTest.testId, `institutionId=${h.a.institutionId}`)).json();
    const [pending, submitted] = await seedAttempts(h, h.a, smallTest, 3, [small('x-1', 'c', 1, 1), small('x-2', 'c', 1, 1)], { rollUp: false });
    await h.pool.query(`UPDATE assignments SET score = jsonb_set(score, '{gradingStatus}', '"pending_review"') WHERE id = $1`, [pending]);
    await h.pool.query(`UPDATE assignments SET status = 'submitted' WHERE id = $1`, [submitted]);
    expect(await rollUpAttempts(h.pool, [pending!, submitted!])).toBe(0);
    expect((await stats(smallTest.testId, `institutionId=${h.a.institutionId}`)).json()).toEqual(before);
  });

  it('refuses bad input with the error envelope, and asks for the operator token', async () => {
    expectError(await stats(big.testId, ''), 400, 'invalid_request');
    expectError(await stats(big.testId, `institutionId=${h.a.institutionId}&livemode=maybe`), 400, 'invalid_request');
    expectError(await stats(big.testId, `institutionId=${h.a.institutionId}&version=0`), 400, 'invalid_request');
    expectError(await stats(big.testId, `institutionId=${h.a.institutionId}&extra=1`), 400, 'invalid_request');
    const anon = await h.app.inject({ method: 'GET', url: `/api/admin/v1/tests/${big.testId}/statistics?institutionId=${h.a.institutionId}` });
    expectError(anon, 401, 'unauthenticated');
    const partnerKey = await h.partner(h.a, 'GET', `/api/admin/v1/tests/${big.testId}/statistics?institutionId=${h.a.institutionId}`);
    expectError(partnerKey, 401, 'unauthenticated');
  });
});
