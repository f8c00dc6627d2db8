import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ASSIGNMENT_STATUSES } from '../../src/modules/lifecycle/state-machine.js';
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

// The API schema, the portal filter and the changeable statuses are checked against the same list in
// src/modules/portal/assignments/assignment-statuses.test.ts, without a database.
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
});
