import { describe, expect, it } from 'vitest';
import { ASSIGNMENT_STATUSES, CHANGEABLE_STATUSES, isAssignmentStatus } from '../../lifecycle/state-machine.js';
import { AssignmentStatusSchema } from '../../assignments/schemas.js';
import { parseFilters } from './assignment-filters.js';

// The database's CHECK on assignments.status is compared with the same list in
// test/lifecycle/assignment-statuses.test.ts.
describe('the assignment status list, defined once', () => {
  it('the API schema enumerates the same list', () => {
    expect(AssignmentStatusSchema.enum).toEqual([...ASSIGNMENT_STATUSES]);
  });

  it("the portal's status filter takes every status, cancelled included, and nothing else", () => {
    for (const status of ASSIGNMENT_STATUSES) expect(parseFilters('ins_1', { status }).filter.status).toBe(status);
    expect(parseFilters('ins_1', { status: 'withdrawn' }).filter.status).toBeUndefined();
    expect(isAssignmentStatus('cancelled')).toBe(true);
    expect(isAssignmentStatus('Cancelled')).toBe(false);
  });

  it('the statuses an institution may still change are statuses of the list', () => {
    for (const s of CHANGEABLE_STATUSES) expect(ASSIGNMENT_STATUSES).toContain(s);
  });
});
