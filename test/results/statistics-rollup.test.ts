import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHarness, type Harness } from '../helpers/harness.js';
import { Student, assign } from '../helpers/student.js';
import { rollUpAttempts } from '../../src/modules/results/statistics-repo.js';

/**
 * The live statistics read a rollup that a completion feeds through the
 * `results.roll_up` job, enqueued in the transaction that makes the score
 * final: a real submission shows in the figures once the job has run, and a
 * second run of the job adds nothing.
 */
let h: Harness;
beforeAll(async () => {
  h = await createHarness();
});
afterAll(() => h?.close());

async function submitWith(who: string, choice: string, numeric: string): Promise<string> {
  const { startUrl } = await assign(h, h.a, { externalUserId: who });
  const student = new Student(h);
  const id = await student.start(startUrl);
  const test = (await h.admin('GET', `/api/admin/v1/tests/${h.a.testId}`)).json();
  const [sc, num] = test.questions;
  expect((await student.save(id, [{ questionId: sc.id, value: choice, version: 1 }, { questionId: num.id, value: numeric, version: 1 }])).statusCode).toBe(200);
  expect((await student.submit(id)).statusCode).toBe(303);
  return id;
}

const stats = async () => (await h.admin('GET', `/api/admin/v1/tests/${h.a.testId}/statistics?institutionId=${h.a.institutionId}`)).json();

describe('the statistics rollup', () => {
  it('adds a submitted attempt once its job has run, and only once', async () => {
    expect((await stats()).attempts).toBe(0);
    const first = await submitWith('roll-1', 'b', '2.5');
    await submitWith('roll-2', 'a', '3');
    // Until the worker runs the jobs, the rollup does not have them.
    expect((await stats()).attempts).toBe(0);
    await h.runJobs();
    const s = await stats();
    expect(s.attempts).toBe(2);
    expect(s.meanPercent).toBe(50);
    expect(s.items[0]).toMatchObject({ attempts: 2, facility: 0.5 });
    expect(s.items[0].options.map((o: any) => o.chosen)).toEqual([1, 1]);
    // The job again, or the batch function on the same attempt: nothing is added twice.
    expect(await rollUpAttempts(h.pool, [first])).toBe(0);
    expect(await stats()).toEqual(s);
  });
});
