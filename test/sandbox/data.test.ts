import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { enqueueJob } from '../../src/platform/jobs.js';
import { TEST_DATA_PURGE_KEY, testDataPurgeJob } from '../../src/modules/sandbox/sandbox-jobs.js';
import { assignmentBody, createHarness, manualClock, type Harness, type Tenant } from '../helpers/harness.js';
import { testModeTenant } from '../helpers/test-mode.js';

/** Deleting test-mode data: the partner's wipe (DELETE /test-data) and the 30-day purge. Live data is never touched. */
const P = '/api/partner/v1';
const DAY = 86_400_000;

async function create(h: Harness, t: Tenant, externalUserId: string): Promise<string> {
  const res = await h.partner(t, 'POST', `${P}/assignments`, assignmentBody(t, { externalUserId }));
  expect(res.statusCode, res.body).toBe(201);
  return res.json().assignmentId;
}

/** Begins and submits through simulate (test mode) or a PATCH (live), so each has events. */
async function withEvents(h: Harness, t: Tenant, id: string): Promise<void> {
  const res = await h.partner(t, 'PATCH', `${P}/assignments/${id}`, { accommodations: { extraTimeMinutes: 5 } });
  expect(res.statusCode, res.body).toBe(200);
}

const count = async (h: Harness, sql: string, params: unknown[]) => (await h.pool.query<{ n: number }>(sql, params)).rows[0]!.n;

describe('DELETE /test-data', () => {
  let h: Harness;
  let live: Tenant;
  let test: Tenant;
  beforeAll(async () => {
    h = await createHarness({ config: { allowInsecureUrls: true } });
    live = h.a;
    test = await testModeTenant(h, h.a);
  });
  afterAll(() => h?.close());

  it('deletes the institution\'s test-mode assignments and events, keeps test endpoints, and never touches live data', async () => {
    const liveId = await create(h, live, 'live-user');
    await withEvents(h, live, liveId);
    const testIds = [await create(h, test, 'dev-1'), await create(h, test, 'dev-2')];
    for (const id of testIds) await withEvents(h, test, id);
    expect((await h.partner(test, 'POST', `${P}/assignments/${testIds[0]}/simulate`, { action: 'start' })).statusCode).toBe(200);
    expect((await h.partner(test, 'POST', `${P}/assignments/${testIds[0]}/simulate`, { action: 'submit' })).statusCode).toBe(200);
    const endpoint = await h.partner(test, 'POST', `${P}/webhook-endpoints`, { url: 'http://127.0.0.1:9/hook' });
    expect(endpoint.statusCode).toBe(201);
    // Another institution's test data stays too.
    const otherTest = await testModeTenant(h, h.b);
    const otherId = await create(h, otherTest, 'other-dev');

    const testEvents = (await h.partner(test, 'GET', `${P}/events`)).json().data.length;
    expect(testEvents).toBe(4); // two assignment.updated, exam.started, exam.completed
    const liveEventsBefore = (await h.partner(live, 'GET', `${P}/events`)).json().data;

    const res = await h.partner(test, 'DELETE', `${P}/test-data`);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toEqual({ deleted: { assignments: 2, events: 4 } });

    for (const id of testIds) expect((await h.partner(test, 'GET', `${P}/assignments/${id}`)).statusCode).toBe(404);
    expect(await count(h, 'SELECT count(*)::int AS n FROM attempts WHERE assignment_id = ANY ($1)', [testIds])).toBe(0);
    expect((await h.partner(test, 'GET', `${P}/events`)).json().data).toEqual([]);
    expect((await h.partner(test, 'GET', `${P}/webhook-endpoints`)).json().data.map((e: { endpointId: string }) => e.endpointId)).toEqual([endpoint.json().endpointId]);
    expect((await h.partner(live, 'GET', `${P}/assignments/${liveId}`)).statusCode).toBe(200);
    expect((await h.partner(live, 'GET', `${P}/events`)).json().data).toEqual(liveEventsBefore);
    expect((await h.partner(otherTest, 'GET', `${P}/assignments/${otherId}`)).statusCode).toBe(200);

    // Again: nothing left to delete.
    expect((await h.partner(test, 'DELETE', `${P}/test-data`)).json()).toEqual({ deleted: { assignments: 0, events: 0 } });
  });

  it('with a live key the route does not exist (404) and nothing is deleted', async () => {
    const id = await create(h, test, 'dev-3');
    const res = await h.partner(live, 'DELETE', `${P}/test-data`);
    expect(res.statusCode).toBe(404);
    expect(res.json().error.code).toBe('not_found');
    expect((await h.partner(test, 'GET', `${P}/assignments/${id}`)).statusCode).toBe(200);
  });
});

describe('the 30-day test-data purge', () => {
  const clock = manualClock(new Date('2030-01-01T00:00:00Z'));
  let h: Harness;
  let live: Tenant;
  let test: Tenant;
  beforeAll(async () => {
    h = await createHarness({ clock });
    live = h.a;
    test = await testModeTenant(h, h.a);
  });
  afterAll(() => h?.close());

  it('the recurring job deletes test-mode data older than 30 days, keeps newer test data and all live data, and schedules its next run', async () => {
    const oldTest = await create(h, test, 'old-dev');
    await withEvents(h, test, oldTest);
    const oldLive = await create(h, live, 'old-live');
    await withEvents(h, live, oldLive);
    clock.advance(20 * DAY);
    const newerTest = await create(h, test, 'newer-dev');
    clock.advance(11 * DAY);

    await enqueueJob(h.pool, testDataPurgeJob, {}, { runAt: clock.now(), uniqueKey: TEST_DATA_PURGE_KEY });
    await h.runJobs();

    expect((await h.partner(test, 'GET', `${P}/assignments/${oldTest}`)).statusCode).toBe(404);
    expect(await count(h, 'SELECT count(*)::int AS n FROM events WHERE assignment_id = $1', [oldTest])).toBe(0);
    expect((await h.partner(test, 'GET', `${P}/assignments/${newerTest}`)).statusCode).toBe(200);
    expect((await h.partner(live, 'GET', `${P}/assignments/${oldLive}`)).statusCode).toBe(200);
    expect(await count(h, 'SELECT count(*)::int AS n FROM events WHERE assignment_id = $1', [oldLive])).toBe(1);

    const next = await h.pool.query<{ run_at: Date }>('SELECT run_at FROM jobs WHERE unique_key = $1', [TEST_DATA_PURGE_KEY]);
    expect(next.rows[0]!.run_at.getTime()).toBeGreaterThan(clock.now().getTime());
  });
});
