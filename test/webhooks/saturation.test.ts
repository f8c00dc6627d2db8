import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Harness } from '../helpers/harness.js';
import { type Answer, type Receiver } from '../helpers/webhook-receiver.js';
import { newAssignment, registerEndpoint, transition, openWebhookRig, type WebhookRig } from '../helpers/webhook-setup.js';

/**
 * A dispatcher with every slot busy while new events keep arriving: it must
 * neither stall (a wake-up that finds no free slot must not leave it asleep)
 * nor exceed its limits (2 requests in flight, 1 per endpoint).
 */
let h: Harness;
let rx: Receiver;
let rig: WebhookRig;
const open = new Map<string, number>();
const maxOpen = new Map<string, number>();
let total = 0;
let maxTotal = 0;

beforeAll(async () => {
  rig = await openWebhookRig({
    webhooks: { concurrency: 2, endpointConcurrency: 1 },
    respond: ({ path }) => {
      open.set(path, (open.get(path) ?? 0) + 1);
      maxOpen.set(path, Math.max(maxOpen.get(path) ?? 0, open.get(path)!));
      maxTotal = Math.max(maxTotal, ++total);
      return new Promise<Answer>((r) =>
        setTimeout(() => {
          open.set(path, open.get(path)! - 1);
          total--;
          r({ status: 200 });
        }, 30),
      );
    },
  });
  ({ h, rx } = rig);
});
afterAll(() => rig.close());

describe('a saturated dispatcher', () => {
  it('keeps delivering events that arrive while every slot is busy, within its limits', async () => {
    await registerEndpoint(h, h.a, rx, '/one');
    await registerEndpoint(h, h.a, rx, '/two');
    const events: string[] = [];
    for (let i = 0; i < 25; i++) {
      events.push((await transition(h, await newAssignment(h, h.a), [{ type: 'start' }]))[0]!.id);
      await new Promise((r) => setTimeout(r, 5));
    }
    await rx.waitFor(() => events.every((id) => rx.deliveredIds('/one').has(id) && rx.deliveredIds('/two').has(id)), 15_000, 'all 50 deliveries');
    expect(maxOpen.get('/one')).toBe(1);
    expect(maxOpen.get('/two')).toBe(1);
    expect(maxTotal).toBe(2);
  });
});
