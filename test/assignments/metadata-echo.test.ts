import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { manualClock, type Harness } from '../helpers/harness.js';
import { newAssignment, registerEndpoint, transition, openWebhookRig, type Dispatcher, type WebhookRig } from '../helpers/webhook-setup.js';
import type { Receiver } from '../helpers/webhook-receiver.js';

/**
 * `metadata` comes back as the partner sent it, key order included (jsonb
 * alone would sort the keys), in the read API and in events alike; and an
 * event is the same bytes in its webhook body and in the events API.
 */
const P = '/api/partner/v1';
// Keys in an order jsonb would change (by length, then bytes) and that a JavaScript object would change (integer keys first).
const METADATA = '{"zeta":1,"alpha":{"b":2,"a":1},"10":"ten","2":"two","mid":[3,1],"é":"\\u00e9"}';
const clock = manualClock(new Date());
let h: Harness;
let rx: Receiver;
let dispatcher: Dispatcher;
let rig: WebhookRig;

beforeAll(async () => {
  rig = await openWebhookRig({ clock, start: false });
  ({ h, rx, dispatcher } = rig);
});
afterAll(() => rig.close());

async function create(): Promise<string> {
  const body = `{ "externalUserId": "echo-1", "testId": "${h.a.testId}", "user": { "email": "e@example.org" },
    "callbackUrl": "${h.a.callbackUrl}", "metadata": ${METADATA.replace(/,/g, ', ')} }`;
  const res = await h.partner(h.a, 'POST', `${P}/assignments`, body);
  expect(res.statusCode, res.body).toBe(201);
  return res.json().assignmentId;
}

describe('metadata echo', () => {
  it('the read API returns metadata as sent, compact, with its key order', async () => {
    const id = await create();
    const read = await h.partner(h.a, 'GET', `${P}/assignments/${id}`);
    expect(read.statusCode).toBe(200);
    expect(read.body).toContain(`"metadata":${METADATA},`);
    expect(read.json().metadata).toEqual(JSON.parse(METADATA));
  });

  it('an event carries the same metadata, and its webhook body and events API item are the same bytes', async () => {
    await registerEndpoint(h, h.a, rx, '/echo');
    const id = await create();
    const [started] = await transition(h, id, [{ type: 'start' }]);
    await dispatcher.drain();
    const delivered = rx.received.find((r) => r.webhookId === started!.id)!;
    expect(delivered.body).toContain(`"metadata":${METADATA},`);

    const list = await h.partner(h.a, 'GET', `${P}/events?assignmentId=${id}`);
    expect(list.statusCode).toBe(200);
    expect(list.body).toContain(delivered.body);
    expect(list.json().data[0]).toEqual(JSON.parse(delivered.body));

    const one = await h.partner(h.a, 'GET', `${P}/events/${started!.id}`);
    expect(one.statusCode).toBe(200);
    expect(one.body.startsWith(delivered.body.slice(0, -1))).toBe(true);
    expect(one.json().deliveries[0].attempts[0].statusCode).toBe(200);
  });

  it('a creation without metadata reads back an empty object', async () => {
    const res = await h.partner(h.a, 'POST', `${P}/assignments`, { externalUserId: 'echo-2', testId: h.a.testId, user: { email: 'e@example.org' }, callbackUrl: h.a.callbackUrl });
    const id = await newAssignment(h, h.a, { externalUserId: 'echo-3' });
    for (const assignmentId of [res.json().assignmentId, id]) {
      expect((await h.partner(h.a, 'GET', `${P}/assignments/${assignmentId}`)).body).toContain('"metadata":{}');
    }
  });
});
