import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { AssayWebhookVerificationError, verifyWebhook } from '../../packages/partner-sdk/src/index.js';
import { assignmentBody, type Harness } from '../helpers/harness.js';
import type { Received } from '../helpers/webhook-receiver.js';
import { openSdkRig, type SdkRig } from '../helpers/sdk-rig.js';
import { transition } from '../helpers/webhook-setup.js';

/** verifyWebhook on real deliveries of the service: accepted as sent, refused when changed, replayed late, or under another secret. */
let rig: SdkRig;
let h: Harness;
let delivery: Received;
let secret: string;

beforeAll(async () => {
  rig = await openSdkRig();
  h = rig.h;
  const client = rig.sdk(h.a);
  const endpoint = await client.webhookEndpoints.create({ url: rig.rx.url('/verify') });
  secret = endpoint.secret;
  const { assignmentId } = await client.assignments.create(assignmentBody(h.a));
  await transition(h, assignmentId, [{ type: 'start' }]);
  await rig.rx.waitFor(() => rig.rx.received.some((r) => r.path === '/verify'), 10_000, 'a delivery');
  delivery = rig.rx.received.find((r) => r.path === '/verify')!;
});
afterAll(() => rig.close());
afterEach(() => vi.useRealTimers());

const expectRefused = (fn: () => unknown) => {
  const err = (() => {
    try {
      fn();
    } catch (e) {
      return e;
    }
    return null;
  })();
  expect(err).toBeInstanceOf(AssayWebhookVerificationError);
  expect(err).toMatchObject({ code: 'invalid_webhook', status: null });
};

describe('verifyWebhook', () => {
  it('accepts a real delivery and returns the typed event (string or Buffer body, plain or Fetch headers)', () => {
    const event = verifyWebhook(delivery.body, delivery.headers, secret);
    expect(event).toMatchObject({ id: delivery.webhookId, type: 'exam.started', data: { externalUserId: 'user-1' } });
    expect(verifyWebhook(Buffer.from(delivery.body), new Headers(delivery.headers), secret).id).toBe(delivery.webhookId);
  });

  it('refuses a changed body, a changed id, and another secret', () => {
    expectRefused(() => verifyWebhook(delivery.body.replace('exam.started', 'exam.completed'), delivery.headers, secret));
    expectRefused(() => verifyWebhook(delivery.body, { ...delivery.headers, 'webhook-id': 'evt_other' }, secret));
    expectRefused(() => verifyWebhook(delivery.body, delivery.headers, 'whsec_' + Buffer.alloc(32, 7).toString('base64')));
    expectRefused(() => verifyWebhook(delivery.body, { ...delivery.headers, 'webhook-signature': '' }, secret));
  });

  it('refuses the same delivery replayed more than five minutes after it was signed', () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(Date.now() + 6 * 60_000);
    expectRefused(() => verifyWebhook(delivery.body, delivery.headers, secret));
    vi.setSystemTime(Date.now() - 2 * 60_000);
    expect(verifyWebhook(delivery.body, delivery.headers, secret).id).toBe(delivery.webhookId);
  });

  it('accepts a delivery under either secret during a rotation', () => {
    const other = 'whsec_' + Buffer.alloc(32, 9).toString('base64');
    expect(verifyWebhook(delivery.body, delivery.headers, [other, secret]).id).toBe(delivery.webhookId);
    expectRefused(() => verifyWebhook(delivery.body, delivery.headers, [other]));
  });
});
