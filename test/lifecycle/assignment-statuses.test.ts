import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ASSIGNMENT_STATUSES, CHANGEABLE_STATUSES, isAssignmentStatus } from '../../src/modules/lifecycle/state-machine.js';
import { AssignmentStatusSchema } from '../../src/modules/assignments/schemas.js';
import { parseFilters } from '../../src/modules/portal/assignments/assignment-filters.js';
import { createTestDatabase } from '../helpers/database.js';

let db: Awaited<ReturnType<typeof createTestDatabase>>;
let client: pg.Client;
beforeAll(async () => {
  db = await createTestDatabase();
  client = new pg.Client({ connectionString: db.url });
  await client.connect();
});
afterAll(async () => {
  await client.end();
  await db.drop();
});

describe('the assignment status list, defined once', () => {
  it("the database's CHECK on assignments.status allows exactly the list, in its order", async () => {
    const { rows } = await client.query<{ def: string }>(
      `SELECT pg_get_constraintdef(c.oid) AS def FROM pg_constraint c
        WHERE c.conrelid = 'assignments'::regclass AND c.contype = 'c' AND pg_get_constraintdef(c.oid) LIKE '%status%'`,
    );
    expect(rows).toHaveLength(1);
    const allowed = [...rows[0]!.def.matchAll(/'([a-z_]+)'::text/g)].map((m) => m[1]);
    expect(allowed).toEqual([...ASSIGNMENT_STATUSES]);
  });

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
