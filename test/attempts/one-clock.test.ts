import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Clock } from '../../src/platform/clock.js';
import { createDatabaseClock, type DatabaseClock } from '../../src/platform/database-clock.js';
import { assignmentBody, createHarness, type Harness } from '../helpers/harness.js';
import { Student } from '../helpers/student.js';

/**
 * Deadlines from one clock: a process whose host clock is 90 s off (slow or
 * fast) neither shortens nor lengthens an attempt. The process keeps the
 * database's time (platform/database-clock.ts); before it, a slow host began
 * attempts 90 s in the past, so their auto-submit was due 90 s early.
 */
const SKEW_MS = 90_000;
let h: Harness;
let local = () => Date.now();
let dbClock: DatabaseClock;
// The harness's clock: the database clock of a host whose own clock `local` gives.
const clock: Clock = { now: () => dbClock.now() };

beforeAll(async () => {
  h = await createHarness({ clock });
});
afterAll(async () => {
  dbClock?.stop();
  await h.close();
});

async function beginOnHost(skewMs: number) {
  local = () => Date.now() + skewMs;
  dbClock = createDatabaseClock(h.pool, { localNow: () => local() });
  await dbClock.start();
  const created = await h.partner(h.a, 'POST', '/api/partner/v1/assignments', assignmentBody(h.a, { externalUserId: `host-${skewMs}` }));
  expect(created.statusCode).toBe(201);
  const student = new Student(h);
  const assignmentId = await student.start(created.json().startUrl);
  const { rows } = await h.pool.query(
    `SELECT extract(epoch FROM now() - a.started_at) * 1000 AS age_ms, extract(epoch FROM a.deadline_at - a.started_at) AS seconds,
            extract(epoch FROM j.run_at - a.deadline_at) AS job_after_deadline
       FROM attempts a JOIN jobs j ON j.kind = 'attempt.auto_submit' AND j.payload->>'assignmentId' = a.assignment_id
      WHERE a.assignment_id = $1`,
    [assignmentId],
  );
  return { assignmentId, row: rows[0] as { age_ms: number; seconds: number; job_after_deadline: number } };
}

describe('one clock', () => {
  for (const [name, skew] of [
    ['90 s slow', -SKEW_MS],
    ['90 s fast', SKEW_MS],
  ] as const) {
    it(`a host ${name} begins the attempt at the database's time, with the whole duration, and it is not submitted early`, async () => {
      const { assignmentId, row } = await beginOnHost(skew);
      expect(Math.abs(dbClock.offsetMs() + skew)).toBeLessThan(1_000);
      // Begun now by the database's clock (not 90 s ago or ahead), with the test's 20 minutes.
      expect(Math.abs(row.age_ms)).toBeLessThan(2_000);
      expect(row.seconds).toBe(20 * 60);
      expect(row.job_after_deadline).toBeGreaterThanOrEqual(0);
      // Any worker on this clock finds nothing due: the attempt stays open.
      await h.runJobs();
      const read = await h.partner(h.a, 'GET', `/api/partner/v1/assignments/${assignmentId}`);
      expect(read.json().status).toBe('started');
      dbClock.stop();
    });
  }
});
