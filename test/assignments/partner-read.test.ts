import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { withTransaction } from '../../src/platform/db.js';
import { applyTransition } from '../../src/modules/lifecycle/apply-transition.js';
import { makeScore } from '../../src/modules/marking/score.js';
import { assignmentBody, createHarness, manualClock, type Harness } from '../helpers/harness.js';
import { expectError } from '../helpers/expect-error.js';

const URL_ = '/api/partner/v1/assignments';
const START = new Date('2031-05-01T10:00:00.000Z');
const clock = manualClock(START);
const HOUR = 3_600_000;
const DAY = 24 * HOUR;
let h: Harness;

beforeAll(async () => {
  h = await createHarness({ clock });
});
afterAll(() => h.close());

/** The read response fields of spec 2.3, plus `dueAt`, `proctoring`, `accommodations`, `cancelledAt` and `locale`, documented additions of this service. */
const READ_FIELDS = [
  'assignmentId', 'status', 'externalUserId', 'testId', 'startUrl', 'startUrlExpiresAt', 'result', 'metadata',
  'createdAt', 'startedAt', 'submittedAt', 'completedAt', 'dueAt', 'proctoring', 'accommodations', 'cancelledAt', 'locale',
].sort();

async function createOne(overrides: Record<string, unknown> = {}) {
  const res = await h.partner(h.a, 'POST', URL_, assignmentBody(h.a, overrides));
  expect(res.statusCode).toBe(201);
  return res.json() as { assignmentId: string; startUrl: string; startUrlExpiresAt: string; createdAt: string };
}
const read = (id: string) => h.partner(h.a, 'GET', `${URL_}/${id}`);
const tokenOf = (url: string) => url.split('/s/')[1]!;
const expiredEvents = async (id: string) =>
  (await h.pool.query('SELECT type, data FROM events WHERE assignment_id = $1 AND type = $2', [id, 'assignment.expired'])).rows;

describe('GET /assignments/{id}', () => {
  it('returns every field of spec 2.3 for a fresh assignment, and nothing undocumented', async () => {
    const created = await createOne({ externalUserId: 'read-1', metadata: { cohort: 7 } });
    const res = await read(created.assignmentId);
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(Object.keys(body).sort()).toEqual(READ_FIELDS);
    expect(Object.keys(body.result).sort()).toEqual(['available', 'score']);
    expect(body).toMatchObject({
      assignmentId: created.assignmentId,
      status: 'assigned',
      externalUserId: 'read-1',
      testId: h.a.testId,
      result: { available: false, score: null },
      metadata: { cohort: 7 },
      createdAt: START.toISOString(),
      startedAt: null,
      submittedAt: null,
      completedAt: null,
      dueAt: null,
      // The harness's test is not proctored.
      proctoring: null,
    });
  });

  it('returns a freshly signed startUrl that differs only in expiry and signature, and both links verify', async () => {
    clock.set(START);
    const created = await createOne({ externalUserId: 'read-fresh' });
    clock.advance(HOUR);
    const body = (await read(created.assignmentId)).json();
    expect(body.startUrl).not.toBe(created.startUrl);
    expect(body.startUrlExpiresAt).toBe(new Date(START.getTime() + HOUR + 7 * DAY).toISOString());
    const [kidA, , sigA] = tokenOf(created.startUrl).split('.');
    const [kidB, , sigB] = tokenOf(body.startUrl).split('.');
    expect(kidB).toBe(kidA);
    expect(sigB).not.toBe(sigA);
    const now = clock.now();
    const original = h.ctx.signer.verify(tokenOf(created.startUrl), now);
    const fresh = h.ctx.signer.verify(tokenOf(body.startUrl), now);
    expect(original).toEqual({ ok: true, assignmentId: created.assignmentId, linkVersion: 1, expiresAt: new Date(created.startUrlExpiresAt) });
    expect(fresh).toEqual({ ok: true, assignmentId: created.assignmentId, linkVersion: 1, expiresAt: new Date(body.startUrlExpiresAt) });
    expect(body.startUrl.startsWith('http://assay.test/s/')).toBe(true);
  });

  it('caps startUrlExpiresAt at dueAt when dueAt is sooner than 7 days, at creation and on read', async () => {
    clock.set(START);
    const dueAt = new Date(START.getTime() + 3 * DAY);
    const created = await createOne({ dueAt: dueAt.toISOString() });
    expect(created.startUrlExpiresAt).toBe(dueAt.toISOString());
    clock.advance(DAY);
    expect((await read(created.assignmentId)).json().startUrlExpiresAt).toBe(dueAt.toISOString());
  });

  it('uses now + 7 days when dueAt is further away', async () => {
    clock.set(START);
    const created = await createOne({ dueAt: new Date(START.getTime() + 10 * DAY).toISOString() });
    expect(created.startUrlExpiresAt).toBe(new Date(START.getTime() + 7 * DAY).toISOString());
    clock.advance(5 * DAY);
    expect((await read(created.assignmentId)).json().startUrlExpiresAt).toBe(new Date(START.getTime() + 10 * DAY).toISOString());
  });

  it('never lets the link outlive dueAt, even when dueAt has milliseconds', async () => {
    clock.set(START);
    const dueAt = new Date(START.getTime() + 2 * DAY + 1500);
    const created = await createOne({ dueAt: dueAt.toISOString() });
    expect(new Date(created.startUrlExpiresAt).getTime()).toBeLessThanOrEqual(dueAt.getTime());
    expect(dueAt.getTime() - new Date(created.startUrlExpiresAt).getTime()).toBeLessThan(1000);
  });

  it('while started, still returns a fresh startUrl (7 days, not capped by dueAt) so the student can resume', async () => {
    clock.set(START);
    const created = await createOne({ dueAt: new Date(START.getTime() + 2 * HOUR).toISOString() });
    clock.advance(HOUR);
    await withTransaction(h.pool, (tx) => applyTransition(tx, created.assignmentId, [{ type: 'start' }], clock.now()));
    clock.advance(2 * HOUR); // past dueAt: a started attempt runs on
    const body = (await read(created.assignmentId)).json();
    expect(body.status).toBe('started');
    expect(body.startedAt).toBe(new Date(START.getTime() + HOUR).toISOString());
    expect(body.startUrlExpiresAt).toBe(new Date(clock.now().getTime() + 7 * DAY).toISOString());
    expect(h.ctx.signer.verify(tokenOf(body.startUrl), clock.now()).ok).toBe(true);
    expect(body.result).toEqual({ available: false, score: null });
  });

  it('after submission the startUrl is null, and the result becomes available with its score once completed', async () => {
    clock.set(START);
    const created = await createOne();
    const score = makeScore({ points: 1, maxPoints: 2, passPercent: 50, final: true, markedAt: clock.now() });
    await withTransaction(h.pool, (tx) => applyTransition(tx, created.assignmentId, [{ type: 'start' }, { type: 'submit', score }], clock.now()));
    const submitted = (await read(created.assignmentId)).json();
    expect(submitted).toMatchObject({ status: 'submitted', startUrl: null, startUrlExpiresAt: null, result: { available: false } });
    expect(submitted.submittedAt).toBe(START.toISOString());

    clock.advance(1000);
    await withTransaction(h.pool, (tx) =>
      applyTransition(tx, created.assignmentId, [{ type: 'settle', resultVisibility: 'immediate', score }], clock.now()),
    );
    const completed = (await read(created.assignmentId)).json();
    expect(completed).toMatchObject({ status: 'completed', startUrl: null, startUrlExpiresAt: null });
    expect(completed.result).toEqual({ available: true, score, reportUrl: expect.stringMatching(/^http:\/\/assay\.test\/reports\//) });
    expect(Object.keys(completed.result.score).sort()).toEqual(['gradingStatus', 'markedAt', 'maxPoints', 'passed', 'percent', 'points']);
    expect(completed.completedAt).toBe(clock.now().toISOString());
  });

  it('a read after dueAt of an unstarted assignment shows expired before any sweep, writing one assignment.expired event', async () => {
    clock.set(START);
    const created = await createOne({ externalUserId: 'lazy', dueAt: new Date(START.getTime() + HOUR).toISOString(), metadata: { m: 1 } });
    clock.advance(HOUR); // exactly at dueAt: no read may show `assigned` any more
    const body = (await read(created.assignmentId)).json();
    expect(body).toMatchObject({ status: 'expired', startUrl: null, startUrlExpiresAt: null, result: { available: false, score: null } });
    const events = await expiredEvents(created.assignmentId);
    expect(events).toHaveLength(1);
    expect(events[0].data).toMatchObject({
      partnerAssignmentId: created.assignmentId,
      externalUserId: 'lazy',
      testId: h.a.testId,
      status: 'expired',
      metadata: { m: 1 },
      sequence: 1,
    });
    // Later reads, concurrent reads and the scheduled job change nothing more.
    await Promise.all([read(created.assignmentId), read(created.assignmentId), read(created.assignmentId)]);
    await h.runJobs();
    expect(await expiredEvents(created.assignmentId)).toHaveLength(1);
    const row = await h.pool.query('SELECT status, expired_at FROM assignments WHERE id = $1', [created.assignmentId]);
    expect(row.rows[0]).toEqual({ status: 'expired', expired_at: new Date(START.getTime() + HOUR) });
  });

  it('concurrent first reads after dueAt expire the assignment once', async () => {
    clock.set(START);
    const created = await createOne({ dueAt: new Date(START.getTime() + HOUR).toISOString() });
    clock.advance(2 * HOUR);
    const reads = await Promise.all(Array.from({ length: 8 }, () => read(created.assignmentId)));
    expect(reads.map((r) => r.json().status)).toEqual(Array(8).fill('expired'));
    expect(await expiredEvents(created.assignmentId)).toHaveLength(1);
  });

  it('the scheduled expiry job expires an assignment at dueAt with one event, and reads agree', async () => {
    clock.set(START);
    const created = await createOne({ dueAt: new Date(START.getTime() + HOUR).toISOString() });
    clock.advance(HOUR - 1000);
    await h.runJobs();
    expect((await h.pool.query('SELECT status FROM assignments WHERE id = $1', [created.assignmentId])).rows[0].status).toBe('assigned');
    clock.advance(1000);
    expect(await h.runJobs()).toBeGreaterThanOrEqual(1);
    expect((await h.pool.query('SELECT status FROM assignments WHERE id = $1', [created.assignmentId])).rows[0].status).toBe('expired');
    expect(await expiredEvents(created.assignmentId)).toHaveLength(1);
    expect((await read(created.assignmentId)).json().status).toBe('expired');
    expect(await expiredEvents(created.assignmentId)).toHaveLength(1);
  });

  it('the expiry job leaves an assignment alone that was started before dueAt', async () => {
    clock.set(START);
    const created = await createOne({ dueAt: new Date(START.getTime() + HOUR).toISOString() });
    await withTransaction(h.pool, (tx) => applyTransition(tx, created.assignmentId, [{ type: 'start' }], clock.now()));
    clock.advance(2 * HOUR);
    await h.runJobs();
    expect((await read(created.assignmentId)).json().status).toBe('started');
    expect(await expiredEvents(created.assignmentId)).toHaveLength(0);
  });

  it('an unknown assignment id is 404 not_found', async () => {
    expectError(await read('asg_0000000000000000000000'), 404, 'not_found');
    expectError(await read('not-even-an-id'), 404, 'not_found');
  });
});

describe('reads arriving together', () => {
  it('share one statement, and each still answers only for its own key: tenant and mode', async () => {
    const mine = await createOne({ externalUserId: 'batch-read-1', metadata: { n: 1 } });
    const other = await createOne({ externalUserId: 'batch-read-2', metadata: { n: 2 } });
    const theirs = await h.partner(h.b, 'POST', URL_, assignmentBody(h.b, { externalUserId: 'batch-read-3', metadata: { n: 3 } }));
    expect(theirs.statusCode).toBe(201);
    const theirId = theirs.json().assignmentId as string;
    const spy = vi.spyOn(h.pool, 'query');
    let responses;
    try {
      responses = await Promise.all([
        h.partner(h.a, 'GET', `${URL_}/${mine.assignmentId}`),
        h.partner(h.b, 'GET', `${URL_}/${mine.assignmentId}`),
        h.partner(h.a, 'GET', `${URL_}/${other.assignmentId}`),
        h.partner(h.b, 'GET', `${URL_}/${theirId}`),
        h.partner(h.a, 'GET', `${URL_}/${theirId}`),
        h.partner(h.a, 'GET', `${URL_}/${mine.assignmentId}`),
      ]);
      const names = spy.mock.calls.map(([config]) => (config as { name?: string }).name).filter((n) => n?.startsWith('read-assignment'));
      expect(names).toEqual(['read-assignments']);
    } finally {
      spy.mockRestore();
    }
    expect(responses.map((r) => r.statusCode)).toEqual([200, 404, 200, 200, 404, 200]);
    expect(responses.map((r) => (r.statusCode === 200 ? [r.json().assignmentId, r.json().metadata.n] : r.json().error.code))).toEqual([
      [mine.assignmentId, 1],
      'not_found',
      [other.assignmentId, 2],
      [theirId, 3],
      'not_found',
      [mine.assignmentId, 1],
    ]);
  });
});

