import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectError } from '../helpers/expect-error.js';
import { createHarness, type Harness } from '../helpers/harness.js';
import { Student, assign } from '../helpers/student.js';

const P = '/api/partner/v1';
let h: Harness;

beforeAll(async () => {
  h = await createHarness();
});
afterAll(() => h.close());

describe('assignment.updated and assignment.cancelled for partners', () => {
  it('are listed by the events API, filtered by type, with the assignment envelope', async () => {
    const a = await assign(h, h.a, { externalUserId: 'ev-1', metadata: { cohort: 7 } });
    const s = new Student(h);
    await s.start(a.startUrl);
    expect((await h.partner(h.a, 'PATCH', `${P}/assignments/${a.assignmentId}`, { accommodations: { extraTimePercent: 50 } })).statusCode).toBe(200);
    expect((await h.partner(h.a, 'POST', `${P}/assignments/${a.assignmentId}/cancel`)).statusCode).toBe(200);

    const updated = (await h.partner(h.a, 'GET', `${P}/events?type=assignment.updated&assignmentId=${a.assignmentId}`)).json().data;
    expect(updated).toHaveLength(1);
    expect(updated[0]).toMatchObject({
      type: 'assignment.updated',
      data: {
        partnerAssignmentId: a.assignmentId,
        externalUserId: 'ev-1',
        testId: h.a.testId,
        status: 'started',
        metadata: { cohort: 7 },
        sequence: 2,
        changes: { accommodations: { from: null, to: { extraTimePercent: 50 } }, deadlineAt: { from: expect.any(String), to: expect.any(String) } },
      },
    });
    const { from, to } = updated[0].data.changes.deadlineAt;
    expect(Date.parse(to) - Date.parse(from)).toBe(10 * 60_000);

    const cancelled = (await h.partner(h.a, 'GET', `${P}/events?type=assignment.cancelled`)).json().data;
    expect(cancelled.map((e: { data: { partnerAssignmentId: string; status: string; sequence: number } }) => e.data)).toEqual([
      expect.objectContaining({ partnerAssignmentId: a.assignmentId, status: 'cancelled', sequence: 3 }),
    ]);
    // The other institution sees none of it.
    expect((await h.partner(h.b, 'GET', `${P}/events?type=assignment.cancelled`)).json().data).toEqual([]);
    expectError(await h.partner(h.a, 'GET', `${P}/events?type=assignment.withdrawn`), 400, 'invalid_request');
  });

  it('a webhook endpoint can subscribe to them, and gets only what it subscribed to', async () => {
    const endpoint = await h.partner(h.a, 'POST', `${P}/webhook-endpoints`, { url: 'https://hooks.controls.example/in', eventTypes: ['assignment.cancelled'] });
    expect(endpoint.statusCode, endpoint.body).toBe(201);
    expect(endpoint.json().eventTypes).toEqual(['assignment.cancelled']);
    const all = await h.partner(h.a, 'POST', `${P}/webhook-endpoints`, { url: 'https://hooks.controls.example/all', eventTypes: ['assignment.updated', 'assignment.cancelled'] });
    expect(all.statusCode).toBe(201);

    const a = await assign(h, h.a, { externalUserId: 'ev-2' });
    await h.partner(h.a, 'PATCH', `${P}/assignments/${a.assignmentId}`, { dueAt: new Date(Date.now() + 3_600_000).toISOString() });
    await h.partner(h.a, 'POST', `${P}/assignments/${a.assignmentId}/cancel`);
    const deliveries = async (endpointId: string) =>
      (
        await h.pool.query(
          'SELECT e.type FROM webhook_deliveries d JOIN events e ON e.id = d.event_id WHERE d.endpoint_id = $1 AND e.assignment_id = $2 ORDER BY e.sequence',
          [endpointId, a.assignmentId],
        )
      ).rows.map((r) => r.type);
    expect(await deliveries(endpoint.json().endpointId)).toEqual(['assignment.cancelled']);
    expect(await deliveries(all.json().endpointId)).toEqual(['assignment.updated', 'assignment.cancelled']);
  });
});
