import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AssayConflictError, AssayNotFoundError, verifyWebhook, type Assay, type AssayEvent } from '../../packages/partner-sdk/src/index.js';
import type { Harness, Tenant } from '../helpers/harness.js';
import { proctoredTest } from '../helpers/proctoring.js';
import { openSdkRig, type SdkRig } from '../helpers/sdk-rig.js';
import { ALL_TYPES_TEST, createPublishedTest } from '../helpers/student.js';
import { testModeTenant } from '../helpers/test-mode.js';

/**
 * Test mode through the SDK: a test key's simulated steps move its
 * assignments as students and reviewers would, and each event reaches a
 * receiver that verifies it with the SDK's verifyWebhook, marked livemode
 * false. A live key gets typed 404s from the test-mode routes.
 */
let rig: SdkRig;
let h: Harness;
let live: Tenant;
let test: Tenant;
let sandbox: Assay;
let secret: string;
let hybridTestId: string;
let proctoredTestId: string;

beforeAll(async () => {
  rig = await openSdkRig();
  h = rig.h;
  live = h.a;
  test = await testModeTenant(h, h.a);
  sandbox = rig.sdk(test);
  hybridTestId = await createPublishedTest(h, live, ALL_TYPES_TEST);
  proctoredTestId = await createPublishedTest(h, live, proctoredTest('live_ai'));
  ({ secret } = await sandbox.webhookEndpoints.create({ url: rig.rx.url('/sandbox') }));
});
afterAll(() => rig.close());

const create = (testId: string, externalUserId: string) =>
  sandbox.assignments.create({ externalUserId, testId, user: { email: `${externalUserId}@example.org` }, callbackUrl: test.callbackUrl });

/** The events of one assignment that reached the receiver, each verified with the SDK (which throws on a bad one), in sequence order. */
async function verifiedEvents(assignmentId: string, count: number): Promise<AssayEvent[]> {
  const mine = () => rig.rx.received.filter((r) => r.path === '/sandbox' && r.json.data.partnerAssignmentId === assignmentId);
  await rig.rx.waitFor(() => new Set(mine().map((r) => r.webhookId)).size >= count, 10_000, `${count} events of ${assignmentId}`);
  const byId = new Map(mine().map((r) => [r.webhookId, verifyWebhook(r.body, r.headers, secret)]));
  return [...byId.values()].sort((a, b) => (a.data.sequence ?? 0) - (b.data.sequence ?? 0));
}

describe('simulate through the SDK with a test key', () => {
  it('start, submit and finish_marking: the assignment and each verified event, livemode false', async () => {
    const { assignmentId } = await create(hybridTestId, 'sim-marking');
    expect(await sandbox.assignments.simulate(assignmentId, 'start')).toMatchObject({ status: 'started' });
    const submitted = await sandbox.assignments.simulate(assignmentId, { action: 'submit', score: 50 });
    expect(submitted).toMatchObject({ status: 'marking', result: { available: false, score: { gradingStatus: 'pending_review' } } });
    const finished = await sandbox.assignments.simulate(assignmentId, { action: 'finish_marking', score: 75 });
    expect(finished).toMatchObject({ status: 'completed', result: { available: true, score: { percent: 75, gradingStatus: 'final' } } });

    const events = await verifiedEvents(assignmentId, 3);
    expect(events.map((e) => [e.type, e.livemode])).toEqual([
      ['exam.started', false],
      ['exam.completed', false],
      ['grading.done', false],
    ]);
    expect(events[2]!.data.score).toMatchObject({ percent: 75, gradingStatus: 'final' });
  });

  it('violation on a proctored test sends a verified violation.detected', async () => {
    const { assignmentId } = await create(proctoredTestId, 'sim-violation');
    await sandbox.assignments.simulate(assignmentId, 'start');
    const after = await sandbox.assignments.simulate(assignmentId, { action: 'violation', violationKind: 'no_face' });
    expect(after.status).toBe('started');
    const events = await verifiedEvents(assignmentId, 2);
    expect(events.map((e) => e.type)).toEqual(['exam.started', 'violation.detected']);
    expect(events[1]).toMatchObject({ livemode: false, data: { violation: { kind: 'no_face', severity: 'critical' } } });
  });

  it('expire sends a verified assignment.expired; an action the status does not allow is an AssayConflictError', async () => {
    const { assignmentId } = await create(test.testId, 'sim-expire');
    expect(await sandbox.assignments.simulate(assignmentId, 'expire')).toMatchObject({ status: 'expired' });
    const [expired] = await verifiedEvents(assignmentId, 1);
    expect(expired).toMatchObject({ type: 'assignment.expired', livemode: false, data: { status: 'expired' } });

    const refused = await sandbox.assignments.simulate(assignmentId, 'start').catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(AssayConflictError);
    expect(refused).toMatchObject({ status: 409, code: 'invalid_state' });
  });

  it('with a live key, simulate and the test-data wipe are typed 404s; with the test key the wipe reports what it deleted', async () => {
    const liveClient = rig.sdk(live);
    const { assignmentId } = await liveClient.assignments.create({ externalUserId: 'real', testId: live.testId, user: { email: 'real@example.org' }, callbackUrl: live.callbackUrl });
    const err = await liveClient.assignments.simulate(assignmentId, 'start').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(AssayNotFoundError);
    expect(err).toMatchObject({ status: 404, code: 'not_found', requestId: expect.any(String) });
    await expect(liveClient.testData.delete()).rejects.toBeInstanceOf(AssayNotFoundError);
    expect((await liveClient.assignments.get(assignmentId)).status).toBe('assigned');

    const wiped = await sandbox.testData.delete();
    expect(wiped.deleted.assignments).toBeGreaterThanOrEqual(3);
    expect((await liveClient.assignments.get(assignmentId)).status).toBe('assigned');
  });
});
