import type { Queryable } from '../../platform/db.js';
import { deliver, type DeliveredTest } from '../catalog/delivery.js';
import { loadTestVersion } from '../catalog/test-versions.js';
import type { Attempt } from './find-attempt.js';

/**
 * The test as this candidate was given it (catalog/delivery.ts): the
 * version's questions narrowed to the ones drawn, in shown order, with the
 * stored orders. Every reader of an attempt's questions (the page, the
 * autosave, marking, the review pages, simulate) goes through here, so they
 * all count the same questions.
 */
export async function deliveredTest(db: Queryable, attempt: Pick<Attempt, 'testVersionId' | 'delivery'>): Promise<DeliveredTest> {
  return deliver(await loadTestVersion(db, attempt.testVersionId), attempt.delivery);
}

/**
 * The same for an assignment known by id: its attempt's delivery, or (not
 * begun, so nothing was drawn) every question of the version it pins.
 */
export async function deliveredTestOf(
  db: Queryable,
  assignment: { id: string; institutionId: string; testVersionId: string },
): Promise<DeliveredTest> {
  const { rows } = await db.query<{ delivery: Attempt['delivery'] }>('SELECT delivery FROM attempts WHERE assignment_id = $1 AND institution_id = $2', [
    assignment.id,
    assignment.institutionId,
  ]);
  return deliver(await loadTestVersion(db, assignment.testVersionId), rows[0]?.delivery ?? null);
}
