import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestInput } from '../../src/modules/catalog/schemas.js';
import { createHarness, type Harness } from '../helpers/harness.js';
import { Student, assign, createPublishedTest } from '../helpers/student.js';

/**
 * Autosave checks each answer against the questions of the candidate's own
 * test version, looked up in an index kept with the cached version (built
 * once per version, not per save), and against the questions drawn for the
 * candidate. Two versions of one test, both cached, must each be checked
 * against their own questions.
 */
const EXAM = JSON.parse(fs.readFileSync(path.resolve(import.meta.dirname, '../../docs/examples/tests/sectioned-exam.json'), 'utf8')) as TestInput;

let h: Harness;
beforeAll(async () => {
  h = await createHarness();
});
afterAll(() => h.close());

async function seated(testId: string, externalUserId: string) {
  const a = await assign(h, h.a, { externalUserId, testId });
  const s = new Student(h);
  await s.start(a.startUrl);
  await s.page(a.assignmentId);
  const { rows } = await h.pool.query<{ delivery: { sections: Array<{ sectionId: string; questionIds: string[] }> } }>(
    'SELECT delivery FROM attempts WHERE assignment_id = $1',
    [a.assignmentId],
  );
  return { assignmentId: a.assignmentId, s, drawn: rows[0]!.delivery.sections.flatMap((x) => x.questionIds) };
}
const stored = async (assignmentId: string) =>
  (await h.pool.query('SELECT question_id, value FROM answers WHERE assignment_id = $1 ORDER BY question_id', [assignmentId])).rows;

describe('autosave against the candidate’s own version and draw', () => {
  it('checks each save against its own version when two versions of a test are in use', async () => {
    const testId = await createPublishedTest(h, h.a, EXAM);
    const first = await seated(testId, 'index-v1');

    // Version 2 renames a blank of b2; an attempt of version 1 keeps the old name.
    const v2 = structuredClone(EXAM);
    const b2 = v2.sections![1]!.questions.find((q) => q.id === 'b2')! as Extract<NonNullable<TestInput['questions']>[number], { type: 'fill_blanks' }>;
    b2.text = b2.text.replace('{{meniscus}}', '{{reading}}');
    b2.blanks = b2.blanks.map((b) => (b.id === 'meniscus' ? { ...b, id: 'reading' } : b));
    expect((await h.admin('PUT', `/api/admin/v1/tests/${testId}`, v2)).statusCode).toBe(200);
    const second = await seated(testId, 'index-v2');

    for (let round = 1; round <= 2; round++) {
      // Twice, so the second pass reads both versions' indexes from the cache.
      const old = await first.s.save(first.assignmentId, [{ questionId: 'b2', value: { meniscus: `meniscus ${round}` }, version: round }]);
      expect(old.statusCode).toBe(200);
      const refused = await second.s.save(second.assignmentId, [{ questionId: 'b2', value: { meniscus: 'meniscus' }, version: 10 + round }]);
      expect(refused.statusCode).toBe(400);
      expect(refused.json().error.details[0].message).toBe('"meniscus" is not a blank of this question');
      const renamed = await second.s.save(second.assignmentId, [{ questionId: 'b2', value: { reading: `meniscus ${round}` }, version: round }]);
      expect(renamed.statusCode).toBe(200);
      const refusedOld = await first.s.save(first.assignmentId, [{ questionId: 'b2', value: { reading: 'meniscus' }, version: 10 + round }]);
      expect(refusedOld.statusCode).toBe(400);
    }
    expect(await stored(first.assignmentId)).toEqual([{ question_id: 'b2', value: { meniscus: 'meniscus 2' } }]);
    expect(await stored(second.assignmentId)).toEqual([{ question_id: 'b2', value: { reading: 'meniscus 2' } }]);
  });

  it('stores an answer to a drawn question and refuses one to an undrawn question of the same pool, storing nothing', async () => {
    const testId = await createPublishedTest(h, h.a, EXAM);
    const { assignmentId, s, drawn } = await seated(testId, 'index-pool');
    const pool = EXAM.sections![0]!.questions.map((q) => q.id!);
    const given = pool.filter((id) => drawn.includes(id));
    const notGiven = pool.filter((id) => !drawn.includes(id));
    expect(given).toHaveLength(EXAM.sections![0]!.draw!);
    expect(notGiven).toHaveLength(pool.length - EXAM.sections![0]!.draw!);

    const refused = await s.save(assignmentId, [{ questionId: notGiven[0]!, value: null, version: 1 }]);
    expect(refused.statusCode).toBe(400);
    expect(refused.json().error).toMatchObject({ code: 'invalid_request', details: [{ field: 'answers.0.questionId', message: 'was not drawn for this assignment' }] });
    expect(await stored(assignmentId)).toEqual([]);

    const ok = await s.save(assignmentId, [{ questionId: given[0]!, value: null, version: 1 }]);
    expect(ok.statusCode).toBe(200);
    expect(await stored(assignmentId)).toEqual([{ question_id: given[0], value: null }]);
  });
});
