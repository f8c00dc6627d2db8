import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { withTransaction } from '../../src/platform/db.js';
import { enqueueJob } from '../../src/platform/jobs.js';
import { recordIntegrityReviewed, recordViolation } from '../../src/modules/proctoring/record-violation.js';
import { PURGE_KEY, purgeJob } from '../../src/worker.js';
import { manualClock, type Harness } from '../helpers/harness.js';
import { expectError } from '../helpers/expect-error.js';
import { type Receiver } from '../helpers/webhook-receiver.js';
import { newAssignment, registerEndpoint, startDispatcher, transition, openWebhookRig, type Dispatcher, type WebhookRig } from '../helpers/webhook-setup.js';

/** GET /events (list, cursor, filters, retention), GET /events/{id}, redelivery, purge, violation.detected's service function. */
const DAY = 24 * 3600_000;
const clock = manualClock(new Date());
let h: Harness;
let rx: Receiver;
let dispatcher: Dispatcher;
let rig: WebhookRig;
const E = '/api/partner/v1/events';

beforeAll(async () => {
  rig = await openWebhookRig({ clock, start: false });
  ({ h, rx, dispatcher } = rig);
});
afterAll(() => rig.close());

/** A started then submitted assignment: two events, one millisecond apart. */
async function twoEvents(tenant = h.a) {
  const id = await newAssignment(h, tenant);
  const [started] = await transition(h, id, [{ type: 'start' }]);
  clock.advance(1);
  const [completed] = await transition(h, id, [{ type: 'submit', score: null }, { type: 'settle', resultVisibility: 'immediate', score: null }]);
  clock.advance(1);
  return { assignmentId: id, started: started!, completed: completed! };
}

describe('GET /events', () => {
  it('lists events newest first and pages through all of them with startingAfter', async () => {
    const t = await h.createTenant('Paging School');
    const made: string[] = [];
    for (let i = 0; i < 5; i++) {
      const { started, completed } = await twoEvents(t);
      made.push(started.id, completed.id);
    }
    const seen: string[] = [];
    let cursor: string | undefined;
    for (;;) {
      const res = await h.partner(t, 'GET', `${E}?limit=3${cursor ? `&startingAfter=${cursor}` : ''}`);
      expect(res.statusCode).toBe(200);
      const page = res.json();
      seen.push(...page.data.map((e: { id: string }) => e.id));
      if (!page.hasMore) break;
      expect(page.data).toHaveLength(3);
      cursor = page.data.at(-1).id;
    }
    expect(seen).toEqual([...made].reverse());
  });

  it('filters by type and by assignment', async () => {
    const t = await h.createTenant('Filter School');
    const one = await twoEvents(t);
    const two = await twoEvents(t);
    const byType = (await h.partner(t, 'GET', `${E}?type=exam.completed`)).json();
    expect(byType.data.map((e: { id: string }) => e.id)).toEqual([two.completed.id, one.completed.id]);
    const byAssignment = (await h.partner(t, 'GET', `${E}?assignmentId=${one.assignmentId}`)).json();
    expect(byAssignment.data.map((e: { id: string }) => e.id)).toEqual([one.completed.id, one.started.id]);
    expect(byAssignment.data[0]).toEqual({
      id: one.completed.id,
      type: 'exam.completed',
      timestamp: one.completed.createdAt.toISOString(),
      livemode: true,
      data: expect.objectContaining({ partnerAssignmentId: one.assignmentId, sequence: 2, status: 'completed', score: null }),
    });
  });

  it.each([
    ['limit=0'],
    ['limit=101'],
    ['limit=ten'],
    ['type=exam.finished'],
    ['startingAfter=evt_0000000000000000000000'],
    ['page=2'],
  ])('refuses %s with 400', async (query) => {
    expectError(await h.partner(h.a, 'GET', `${E}?${query}`), 400, 'invalid_request');
  });

  it("keeps each institution's events to itself", async () => {
    const mine = await twoEvents(h.a);
    const listB = (await h.partner(h.b, 'GET', `${E}?limit=100`)).json().data.map((e: { id: string }) => e.id);
    expect(listB).not.toContain(mine.started.id);
    const filtered = await h.partner(h.b, 'GET', `${E}?assignmentId=${mine.assignmentId}`);
    expect(filtered.json()).toEqual({ data: [], hasMore: false });
    expectError(await h.partner(h.b, 'GET', `${E}?startingAfter=${mine.started.id}`), 400, 'invalid_request');
    expectError(await h.partner(h.b, 'GET', `${E}/${mine.started.id}`), 404, 'not_found');
    expectError(await h.partner(h.b, 'POST', `${E}/${mine.started.id}/redeliver`), 404, 'not_found');
    expect((await h.partner(h.a, 'GET', `${E}/${mine.started.id}`)).statusCode).toBe(200);
  });
});

describe('GET /events/{eventId} and redelivery', () => {
  it('shows each endpoint’s delivery with every attempt, and redelivers to one endpoint or to all subscribed', async () => {
    const t = await h.createTenant('Redelivery School');
    const one = await registerEndpoint(h, t, rx, '/redeliver-one');
    const two = await registerEndpoint(h, t, rx, '/redeliver-two', { eventTypes: ['exam.started'] });
    await registerEndpoint(h, t, rx, '/redeliver-other-type', { eventTypes: ['grading.done'] });
    const { started } = await twoEvents(t);
    await dispatcher.drain();

    const view = (await h.partner(t, 'GET', `${E}/${started.id}`)).json();
    expect(view).toMatchObject({ id: started.id, type: 'exam.started' });
    expect(view.deliveries.map((d: { endpointId: string }) => d.endpointId).sort()).toEqual([one.endpointId, two.endpointId].sort());
    for (const d of view.deliveries) {
      expect(d).toMatchObject({ status: 'succeeded', nextAttemptAt: null, attempts: [{ statusCode: 200, errorClass: null, responseExcerpt: 'ok', nextAttemptAt: null }] });
      expect(Date.parse(d.attempts[0].attemptedAt)).toBe(clock.now().getTime());
    }

    const toOne = await h.partner(t, 'POST', `${E}/${started.id}/redeliver`, { endpointId: one.endpointId });
    expect(toOne.statusCode).toBe(202);
    expect(toOne.json()).toEqual({ eventId: started.id, endpointIds: [one.endpointId] });
    await dispatcher.drain();
    expect(rx.received.filter((r) => r.path === '/redeliver-one' && r.webhookId === started.id)).toHaveLength(2);
    expect(rx.received.filter((r) => r.path === '/redeliver-two' && r.webhookId === started.id)).toHaveLength(1);

    const toAll = await h.partner(t, 'POST', `${E}/${started.id}/redeliver`);
    expect(toAll.json().endpointIds.sort()).toEqual([one.endpointId, two.endpointId].sort());
    await dispatcher.drain();
    const after = (await h.partner(t, 'GET', `${E}/${started.id}`)).json();
    const attempts = Object.fromEntries(after.deliveries.map((d: { endpointId: string; attempts: unknown[] }) => [d.endpointId, d.attempts.length]));
    expect(attempts).toEqual({ [one.endpointId]: 3, [two.endpointId]: 2 });
  });

  it('refuses redelivery to a disabled endpoint (409), to another institution’s endpoint or an unknown event (404), and a malformed body (400)', async () => {
    const t = await h.createTenant('Refusing School');
    const mine = await registerEndpoint(h, t, rx, '/refusing');
    const theirs = await registerEndpoint(h, h.b, rx, '/theirs');
    const { started } = await twoEvents(t);
    expectError(await h.partner(t, 'POST', `${E}/${started.id}/redeliver`, { endpointId: theirs.endpointId }), 404, 'not_found');
    expectError(await h.partner(t, 'POST', `${E}/evt_0000000000000000000000/redeliver`), 404, 'not_found');
    // The body may be left out (every subscribed endpoint), but a JSON null is not an object.
    expectError(await h.partner(t, 'POST', `${E}/${started.id}/redeliver`, 'null'), 400, 'invalid_request');
    expectError(await h.partner(t, 'POST', `${E}/${started.id}/redeliver`, { endpointId: mine.endpointId, now: true }), 400, 'invalid_request');
    await h.partner(t, 'PATCH', `/api/partner/v1/webhook-endpoints/${mine.endpointId}`, { status: 'disabled' });
    expectError(await h.partner(t, 'POST', `${E}/${started.id}/redeliver`, { endpointId: mine.endpointId }), 409, 'invalid_state');
  });
});

describe('an endpoint secret the service cannot open', () => {
  it('records secret_unavailable and sends nothing when ASSAY_SECRET lost the key the secret was sealed with', async () => {
    const t = await h.createTenant('Rekeyed School');
    const { endpointId } = await registerEndpoint(h, t, rx, '/rekeyed');
    const { started } = await twoEvents(t);
    const rekeyed = startDispatcher(h, { config: Object.freeze({ ...h.ctx.config, secrets: ['another-secret-0123456789abcdef0123456789'] }) });
    await rekeyed.drain();
    await rekeyed.stop();
    const d = (await h.partner(t, 'GET', `${E}/${started.id}`)).json().deliveries.find((x: { endpointId: string }) => x.endpointId === endpointId);
    expect(d.status).toBe('pending');
    expect(d.attempts).toMatchObject([{ statusCode: null, errorClass: 'secret_unavailable', nextAttemptAt: expect.any(String) }]);
    expect(rx.received.some((r) => r.path === '/rekeyed')).toBe(false);
  });
});

describe('retention', () => {
  it('hides events older than 30 days, and the purge job drops their month with their deliveries and attempts once the whole month is past', async () => {
    const t = await h.createTenant('Retention School');
    await registerEndpoint(h, t, rx, '/retention');
    const old = await twoEvents(t);
    await dispatcher.drain();
    // The old events lie in the first partition, which ends at the partitioning boundary: 30 days
    // after it, they and their whole partition are past retention. The recent events come two days
    // before that moment, in a month no partition was made for yet (they wait in DEFAULT).
    const boundary = (await h.pool.query<{ b: Date }>(`SELECT legacy_boundary AS b FROM partition_plans WHERE parent = 'events'`)).rows[0]!.b;
    clock.advance(boundary.getTime() + 30 * DAY - clock.now().getTime());
    const recent = await twoEvents(t);
    await dispatcher.drain();
    clock.advance(2 * DAY);

    const listed = (await h.partner(t, 'GET', `${E}?limit=100`)).json().data.map((e: { id: string }) => e.id);
    expect(listed).toEqual([recent.completed.id, recent.started.id]);
    expectError(await h.partner(t, 'GET', `${E}/${old.started.id}`), 404, 'not_found');

    await enqueueJob(h.pool, purgeJob, {}, { runAt: clock.now(), uniqueKey: PURGE_KEY });
    await h.runJobs();
    const count = async (sql: string) => (await h.pool.query(sql, [[old.started.id, old.completed.id]])).rows[0].n;
    expect(await count('SELECT count(*)::int AS n FROM events WHERE id = ANY($1)')).toBe(0);
    expect(await count('SELECT count(*)::int AS n FROM webhook_deliveries WHERE event_id = ANY($1)')).toBe(0);
    const kept = await h.pool.query('SELECT count(*)::int AS n FROM webhook_deliveries WHERE event_id = ANY($1)', [[recent.started.id, recent.completed.id]]);
    expect(kept.rows[0].n).toBe(2);
    // The recent events left DEFAULT for their month's partition, made by the same job.
    const homes = await h.pool.query('SELECT DISTINCT tableoid::regclass::text AS t FROM events WHERE id = ANY($1)', [[recent.started.id, recent.completed.id]]);
    expect(homes.rows.map((r) => r.t)).toEqual([`events_p${recent.completed.createdAt.toISOString().slice(0, 7).replace('-', '_')}`]);
    // Every attempt of the dropped month went with it. (Attempts made after the clock's jump for
    // deliveries of that month, by earlier tests' retries, stay until their own month goes: the
    // documented bound, docs/production.md.)
    const left = await h.pool.query('SELECT count(*)::int AS n FROM webhook_attempts WHERE attempted_at < $1', [boundary]);
    expect(left.rows[0].n).toBe(0);
  });
});

describe('violation.detected', () => {
  const violation = (id: string, startedAt: Date) =>
    ({ id, kind: 'left_test', severity: 'critical', startedAt, durationSeconds: 12.5, evidence: { snapshot: false } }) as const;

  it('is recorded for an assignment with an attempt, in the caller’s transaction, with the violation payload', async () => {
    const id = await newAssignment(h, h.a, { metadata: { cohort: 7 } });
    const refused = await withTransaction(h.pool, (tx) => recordViolation(tx, id, violation('flg_a', clock.now()), clock.now()));
    expect(refused).toEqual({ ok: false, reason: 'no_attempt' });
    const missing = await withTransaction(h.pool, (tx) => recordViolation(tx, 'asg_0000000000000000000000', violation('flg_b', clock.now()), clock.now()));
    expect(missing).toEqual({ ok: false, reason: 'not_found' });

    await transition(h, id, [{ type: 'start' }]);
    clock.advance(1);
    // Rolled back with the caller's transaction: no event, no delivery.
    await withTransaction(h.pool, async (tx) => {
      await recordViolation(tx, id, violation('flg_c', clock.now()), clock.now());
      throw new Error('the proctoring write failed');
    }).catch(() => undefined);
    const startedAt = new Date(clock.now().getTime() - 5000);
    const outcome = await withTransaction(h.pool, (tx) =>
      recordViolation(tx, id, { id: 'flg_d', kind: 'multiple_faces', severity: 'critical', startedAt, durationSeconds: 3.2, evidence: { snapshot: true } }, clock.now()),
    );
    expect(outcome.ok).toBe(true);
    const events = (await h.partner(h.a, 'GET', `${E}?assignmentId=${id}`)).json().data;
    expect(events.map((e: { type: string }) => e.type)).toEqual(['violation.detected', 'exam.started']);
    expect(events[0].data).toEqual({
      partnerAssignmentId: id,
      externalUserId: 'user-1',
      testId: h.a.testId,
      status: 'started',
      metadata: { cohort: 7 },
      sequence: 2,
      violation: { id: 'flg_d', kind: 'multiple_faces', severity: 'critical', startedAt: startedAt.toISOString(), durationSeconds: 3.2, evidence: { snapshot: true } },
    });
  });
});

describe('integrity.reviewed', () => {
  it('is a filter value of GET /events and lists only that type', async () => {
    const id = await newAssignment(h, h.a);
    await transition(h, id, [{ type: 'start' }]);
    clock.advance(1);
    const outcome = await withTransaction(h.pool, (tx) => recordIntegrityReviewed(tx, id, { confirmed: 1, dismissed: 2 }, clock.now()));
    expect(outcome.ok).toBe(true);
    const res = await h.partner(h.a, 'GET', `${E}?type=integrity.reviewed&assignmentId=${id}`);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().data).toHaveLength(1);
    expect(res.json().data[0]).toMatchObject({ type: 'integrity.reviewed', data: { partnerAssignmentId: id, status: 'started', integrity: { confirmed: 1, dismissed: 2 } } });
    expectError(await h.partner(h.a, 'GET', `${E}?type=integrity.unknown`), 400, 'invalid_request');
  });
});
