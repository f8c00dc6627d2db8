import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHarness, type Harness } from './helpers/harness.js';
import { startReceiver, type Receiver } from './helpers/webhook-receiver.js';
import { fastWebhooks, newAssignment, registerEndpoint, startDispatcher, transition } from './helpers/webhook-setup.js';

let h: Harness;
let rx: Receiver;
let dispatcher: ReturnType<typeof startDispatcher>;

beforeAll(async () => {
  h = await createHarness({ config: { allowInsecureUrls: true, webhooks: fastWebhooks() } });
  rx = await startReceiver();
  dispatcher = startDispatcher(h);
  await dispatcher.start();
});
afterAll(async () => {
  await dispatcher.stop();
  await rx.close();
  await h.close();
});

describe('webhook delivery', () => {
  it('delivers exam.started signed so that standardwebhooks verifies it', async () => {
    const { endpointId } = await registerEndpoint(h, h.a, rx, '/basic');
    const assignmentId = await newAssignment(h, h.a, { metadata: { course: 'MATH-101' } });
    const [event] = await transition(h, assignmentId, [{ type: 'start' }]);
    await rx.waitFor(() => rx.deliveredIds('/basic').has(event!.id));
    const got = rx.received.find((r) => r.webhookId === event!.id)!;
    expect(got.verifiedWith).toEqual([true]);
    expect(got.headers['content-type']).toBe('application/json');
    expect(got.json).toMatchObject({ id: event!.id, type: 'exam.started', data: { partnerAssignmentId: assignmentId, sequence: 1, status: 'started', metadata: { course: 'MATH-101' } } });
    expect(endpointId).toMatch(/^whep_/);
  });
});
