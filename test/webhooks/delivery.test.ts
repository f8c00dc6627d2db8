import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { withTransaction } from '../../src/platform/db.js';
import { recordViolation } from '../../src/modules/proctoring/record-violation.js';
import { USER_AGENT } from '../../src/modules/webhooks/dispatcher.js';
import { type Harness } from '../helpers/harness.js';
import { type Received, type Receiver } from '../helpers/webhook-receiver.js';
import { newAssignment, registerEndpoint, transition, openWebhookRig, type WebhookRig } from '../helpers/webhook-setup.js';
import { ALL_TYPES_TEST, Student, assign, createPublishedTest } from '../helpers/student.js';

/**
 * Delivery end to end, on the real clock: the events come from the real
 * flows (student pages, marks endpoint, lazy expiry, test endpoint), a live
 * dispatcher sends them to a receiver on loopback, and the receiver verifies
 * every request with the public standardwebhooks package.
 */
let h: Harness;
let rx: Receiver;
let rig: WebhookRig;

beforeAll(async () => {
  rig = await openWebhookRig();
  ({ h, rx } = rig);
});
afterAll(() => rig.close());

const P = '/api/partner/v1';
const ok = (r: Received) => r.answered !== null && r.answered >= 200 && r.answered < 300;
const deliveredTo = (path: string) => rx.received.filter((r) => r.path === path && ok(r));

async function eventIdsOf(assignmentId: string): Promise<string[]> {
  const { rows } = await h.pool.query('SELECT id FROM events WHERE assignment_id = $1 ORDER BY sequence', [assignmentId]);
  return rows.map((r) => r.id);
}

describe('every event type, from the real flows', () => {
  it('arrives signed (standardwebhooks verifies it) with the documented envelope and headers', async () => {
    const path = '/all-types';
    const { endpointId } = await registerEndpoint(h, h.a, rx, path);
    const hybridTestId = await createPublishedTest(h, h.a, ALL_TYPES_TEST);

    // exam.started and exam.completed through the student pages; violation.detected through the proctoring service function;
    // grading.done through the operator marks endpoint.
    const a = await assign(h, h.a, { testId: hybridTestId, externalUserId: 'hook-student', metadata: { course: 'BIO-2' } });
    const s = new Student(h);
    await s.start(a.startUrl);
    await withTransaction(h.pool, (tx) =>
      recordViolation(tx, a.assignmentId, { id: 'flg_test', kind: 'multiple_faces', severity: 'critical', startedAt: new Date(), durationSeconds: 3, evidence: { snapshot: false } }, new Date()),
    );
    await s.page(a.assignmentId);
    expect((await s.save(a.assignmentId, [{ questionId: 'sc', value: 'a', version: 1 }])).statusCode).toBe(200);
    expect((await s.submit(a.assignmentId)).statusCode).toBe(303);
    const marked = await h.admin('POST', `/api/admin/v1/assignments/${a.assignmentId}/marks`, { marks: [{ questionId: 'es', points: 5 }], complete: true });
    expect(marked.statusCode, marked.body).toBe(200);

    // assignment.expired through the lazy check of a partner read after dueAt.
    const expiring = await assign(h, h.a, { externalUserId: 'late-student', dueAt: new Date(Date.now() + 1000).toISOString() });
    await new Promise((r) => setTimeout(r, 1100));
    expect((await h.partner(h.a, 'GET', `${P}/assignments/${expiring.assignmentId}`)).json().status).toBe('expired');

    // webhook.test through the endpoint's test route.
    const test = await h.partner(h.a, 'POST', `${P}/webhook-endpoints/${endpointId}/test`);
    expect(test.statusCode).toBe(202);

    const expected = [...(await eventIdsOf(a.assignmentId)), ...(await eventIdsOf(expiring.assignmentId)), test.json().eventId];
    expect(expected).toHaveLength(6);
    await rx.waitFor(() => expected.every((id) => rx.deliveredIds(path).has(id)), 10_000, 'all six events');

    const got = new Map(deliveredTo(path).map((r) => [r.webhookId, r]));
    const types = expected.map((id) => got.get(id)!.json.type);
    expect(types).toEqual(['exam.started', 'violation.detected', 'exam.completed', 'grading.done', 'assignment.expired', 'webhook.test']);
    for (const id of expected) {
      const r = got.get(id)!;
      expect(r.verifiedWith, `${r.json.type} verifies with standardwebhooks`).toEqual([true]);
      expect(r.headers['content-type']).toBe('application/json');
      expect(r.headers['user-agent']).toBe(USER_AGENT);
      expect(r.headers['webhook-signature']).toMatch(/^v1,[A-Za-z0-9+/]+=*$/);
      expect(Math.abs(Number(r.headers['webhook-timestamp']) - Date.now() / 1000)).toBeLessThan(30);
      expect(r.json.id).toBe(id);
      expect(Object.keys(r.json).sort()).toEqual(['data', 'id', 'livemode', 'timestamp', 'type']);
      expect(r.json.livemode).toBe(true);
      // The webhook body is the event as the events API shows it.
      const { deliveries: _d, ...view } = (await h.partner(h.a, 'GET', `${P}/events/${id}`)).json();
      expect(r.json).toEqual(view);
    }

    const base = { partnerAssignmentId: a.assignmentId, externalUserId: 'hook-student', testId: hybridTestId, metadata: { course: 'BIO-2' } };
    const [started, violation, completed, graded, expired, ping] = expected.map((id) => got.get(id)!.json.data);
    expect(started).toEqual({ ...base, status: 'started', sequence: 1 });
    expect(violation).toEqual({
      ...base,
      status: 'started',
      sequence: 2,
      violation: { id: 'flg_test', kind: 'multiple_faces', severity: 'critical', startedAt: expect.any(String), durationSeconds: 3, evidence: { snapshot: false } },
    });
    expect(completed).toMatchObject({ ...base, status: 'marking', sequence: 3, score: { gradingStatus: 'pending_review', passed: null } });
    expect(graded).toMatchObject({ ...base, status: 'completed', sequence: 4, score: { gradingStatus: 'final', maxPoints: 20 } });
    expect(expired).toEqual({
      partnerAssignmentId: expiring.assignmentId,
      externalUserId: 'late-student',
      testId: h.a.testId,
      metadata: {},
      status: 'expired',
      sequence: 1,
    });
    expect(ping).toMatchObject({ endpointId });
  });
});

describe('subscriptions', () => {
  it('sends an endpoint only the event types it subscribed to, and nothing to a disabled endpoint', async () => {
    await registerEndpoint(h, h.b, rx, '/b-completed', { eventTypes: ['exam.completed'] });
    const all = await registerEndpoint(h, h.b, rx, '/b-all');
    const off = await registerEndpoint(h, h.b, rx, '/b-off');
    await h.partner(h.b, 'PATCH', `${P}/webhook-endpoints/${off.endpointId}`, { status: 'disabled' });

    const id = await newAssignment(h, h.b);
    const events = await transition(h, id, [{ type: 'start' }]);
    events.push(...(await transition(h, id, [{ type: 'submit', score: null }, { type: 'settle', resultVisibility: 'immediate', score: null }])));
    expect(events.map((e) => e.type)).toEqual(['exam.started', 'exam.completed']);
    await rx.waitFor(() => events.every((e) => rx.deliveredIds('/b-all').has(e.id)), 5000, 'both events at /b-all');
    await rx.waitFor(() => rx.deliveredIds('/b-completed').has(events[1]!.id), 5000, 'exam.completed at /b-completed');
    await new Promise((r) => setTimeout(r, 200));
    expect([...rx.deliveredIds('/b-completed')]).toEqual([events[1]!.id]);
    expect(rx.received.filter((r) => r.path === '/b-off')).toHaveLength(0);
    expect(all.endpointId).toMatch(/^whep_/);
  });

  it("never sends an institution's events to another institution's endpoint", async () => {
    await registerEndpoint(h, h.b, rx, '/b-isolated');
    await registerEndpoint(h, h.a, rx, '/a-isolated');
    const id = await newAssignment(h, h.a);
    const [event] = await transition(h, id, [{ type: 'start' }]);
    await rx.waitFor(() => rx.deliveredIds('/a-isolated').has(event!.id), 5000, 'A event at A');
    await new Promise((r) => setTimeout(r, 200));
    expect(rx.received.filter((r) => r.path === '/b-isolated' || r.path.startsWith('/b-')).map((r) => r.webhookId)).not.toContain(event!.id);
  });
});

describe('secret rotation', () => {
  it('signs with both secrets during the overlap, each verifying on its own, then with the new one only', async () => {
    const path = '/rotation';
    const { endpointId, secret: oldSecret } = await registerEndpoint(h, h.a, rx, path, { eventTypes: ['exam.started'] });
    const rotated = (await h.partner(h.a, 'POST', `${P}/webhook-endpoints/${endpointId}/rotate-secret`)).json();
    rx.setSecrets(path, [oldSecret, rotated.secret]);

    const id1 = await newAssignment(h, h.a);
    const [e1] = await transition(h, id1, [{ type: 'start' }]);
    await rx.waitFor(() => rx.deliveredIds(path).has(e1!.id), 5000, 'delivery during the overlap');
    const during = rx.received.find((r) => r.path === path && r.webhookId === e1!.id)!;
    expect(during.headers['webhook-signature']!.split(' ')).toHaveLength(2);
    expect(during.verifiedWith).toEqual([true, true]);

    // The overlap ends 24 h after the rotation; move its end into the past rather than wait a day.
    await h.pool.query("UPDATE webhook_endpoints SET previous_secret_expires_at = now() - interval '1 second' WHERE id = $1", [endpointId]);
    const id2 = await newAssignment(h, h.a);
    const [e2] = await transition(h, id2, [{ type: 'start' }]);
    await rx.waitFor(() => rx.deliveredIds(path).has(e2!.id), 5000, 'delivery after the overlap');
    const after = rx.received.find((r) => r.path === path && r.webhookId === e2!.id)!;
    expect(after.headers['webhook-signature']!.split(' ')).toHaveLength(1);
    expect(after.verifiedWith).toEqual([false, true]);
  });
});
