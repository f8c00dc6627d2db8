import { expect } from 'vitest';
import type { Harness, Tenant } from './harness.js';
import { Student, assign } from './student.js';

/**
 * One candidate's answers to sectionedTest() (test/helpers/sectioned.ts),
 * saved through the page's autosave and submitted. Hand-computed marks:
 * - Pool (draw 2 of 5, 2 points each): the first drawn question right, the
 *   second wrong: 2 of 4;
 * - Skills: matching 2 of 3 stems right → 3 × 2 ÷ 3 = 2; ordering (partial
 *   credit) Mercury and Venus in place, Earth and Mars swapped → 4 × 2 ÷ 4 = 2;
 *   fill_blanks 1 of 2 blanks right → 1: 5 of 9;
 * - Writing: the essay, for a reviewer (5 points).
 */
export const SECTIONED_ANSWERS = {
  match: { paris: 'fr', rome: 'it', bern: 'fr' },
  order: ['me', 've', 'ma', 'ea'],
  blanks: { temp: ' 100 ', pressure: 'low' },
  essay: 'A small town by a river, with a market on Saturdays.',
};

export async function submittedSectioned(h: Harness, tenant: Tenant, testId: string, externalUserId: string): Promise<{ assignmentId: string; drawn: string[] }> {
  const a = await assign(h, tenant, { testId, externalUserId });
  const s = new Student(h);
  await s.start(a.startUrl);
  expect((await s.page(a.assignmentId)).statusCode).toBe(200);
  // The pool questions drawn for this candidate, in the order shown.
  const { rows } = await h.pool.query('SELECT delivery FROM attempts WHERE assignment_id = $1', [a.assignmentId]);
  const drawn: string[] = rows[0].delivery.sections[0].questionIds;
  expect(drawn).toHaveLength(2);
  const saved = await s.save(a.assignmentId, [
    { questionId: drawn[0]!, value: 'a', version: 1 },
    { questionId: drawn[1]!, value: 'b', version: 1 },
    { questionId: 'match', value: SECTIONED_ANSWERS.match, version: 1 },
    { questionId: 'order', value: SECTIONED_ANSWERS.order, version: 1 },
    { questionId: 'blanks', value: SECTIONED_ANSWERS.blanks, version: 1 },
    { questionId: 'essay', value: SECTIONED_ANSWERS.essay, version: 1 },
  ]);
  expect(saved.statusCode).toBe(200);
  expect((await s.submit(a.assignmentId)).statusCode).toBe(303);
  return { assignmentId: a.assignmentId, drawn };
}
