import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Webhook } from 'standardwebhooks';
import { Assay } from '../../packages/partner-sdk/src/index.js';
import { createPartnerApp, type PartnerApp } from '../../examples/partner-app/app.js';
import { assignmentBody, createHarness, type Harness, type Tenant } from '../helpers/harness.js';
import { testModeTenant } from '../helpers/test-mode.js';
import { fastWebhooks, startDispatcher, type Dispatcher } from '../helpers/webhook-setup.js';

/**
 * The example partner app's server side against a real Assay: its form
 * creates one assignment per form however often it is sent, its webhook
 * endpoint refuses what does not verify and applies each event once and in
 * sequence order, and its return page shows only what Assay says about
 * assignments it made. A test-mode key, as the example is meant to run; the
 * events come from simulated steps. (The browser journey is
 * test/browser/partner-app.test.ts.)
 */
let h: Harness;
let dispatcher: Dispatcher;
let tenant: Tenant;
let lms: PartnerApp;
let lmsUrl: string;
let assay: Assay;
const logs: string[] = [];

beforeAll(async () => {
  h = await createHarness({ config: { allowInsecureUrls: true, webhooks: fastWebhooks() } });
  const origin = await h.app.listen({ port: 0, host: '127.0.0.1' });
  dispatcher = startDispatcher(h);
  await dispatcher.start();
  tenant = await testModeTenant(h, await h.createTenant('Riverside College', ['localhost']));
  assay = new Assay({ apiKey: tenant.apiKey, baseUrl: origin });
  // The public URL is known before the app listens: it registers its webhook endpoint as it starts.
  const port = await freePort();
  lmsUrl = `http://localhost:${port}`;
  lms = createPartnerApp({ assay, publicUrl: lmsUrl, dataFile: null, testMode: true, log: (l) => logs.push(l) });
  await lms.start(port);
});
afterAll(async () => {
  await lms?.close();
  await dispatcher?.stop();
  await h?.close();
});

async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

const form = (fields: Record<string, string>) =>
  fetch(`${lmsUrl}/assign`, { method: 'POST', body: new URLSearchParams(fields), redirect: 'manual' });

async function assignThroughForm(externalUserId: string, nonce = `n-${externalUserId}`) {
  const res = await form({ nonce, testId: tenant.testId, externalUserId, name: 'Sam', email: 'sam@example.org' });
  expect(res.status).toBe(303);
  const id = Object.values(lms.store.state.enrolments).find((e) => e.externalUserId === externalUserId)!.assignmentId;
  return { id, location: res.headers.get('location')! };
}

describe('the example partner app', () => {
  it('sends the browser to the start link, and a form sent twice makes one assignment', async () => {
    const first = await assignThroughForm('twice');
    expect(first.location).toMatch(/\/s\//);
    const again = await form({ nonce: 'n-twice', testId: tenant.testId, externalUserId: 'twice', name: 'Sam', email: 'sam@example.org' });
    expect(again.status).toBe(303);
    const { rows } = await h.pool.query("SELECT count(*)::int AS n FROM assignments a JOIN users u ON u.id = a.user_id WHERE u.external_user_id = 'twice'");
    expect(rows[0].n).toBe(1);

    const reused = await form({ nonce: 'n-twice', testId: tenant.testId, externalUserId: 'someone-else', name: 'Kim', email: 'kim@example.org' });
    expect(reused.status).toBe(409);
    expect(await reused.text()).toContain('already been sent');
  });

  it('sends the form’s test language as the assignment’s locale, and none when left to the browser', async () => {
    const res = await form({ nonce: 'n-lang', testId: tenant.testId, externalUserId: 'lang', name: 'Ana', email: 'ana@example.org', locale: 'fr-CA' });
    expect(res.status).toBe(303);
    const id = Object.values(lms.store.state.enrolments).find((e) => e.externalUserId === 'lang')!.assignmentId;
    expect((await assay.assignments.get(id)).locale).toBe('fr-CA');
    const { id: plain } = await assignThroughForm('no-lang');
    expect((await assay.assignments.get(plain)).locale).toBeNull();
    // A value the form does not offer is not passed on.
    const odd = await form({ nonce: 'n-odd', testId: tenant.testId, externalUserId: 'odd-lang', name: 'Ode', email: 'ode@example.org', locale: 'xx_YY' });
    expect(odd.status).toBe(303);
    const oddId = Object.values(lms.store.state.enrolments).find((e) => e.externalUserId === 'odd-lang')!.assignmentId;
    expect((await assay.assignments.get(oddId)).locale).toBeNull();
    const page = await (await fetch(`${lmsUrl}/`)).text();
    expect(page).toContain('<select id="locale" name="locale">');
    expect(page).toContain('<option value="fr-CA" lang="fr-CA">Français (Canada)</option>');
  });

  it('applies each verified event once, in sequence order, and refuses forgeries', async () => {
    const { id } = await assignThroughForm('events');
    await assay.assignments.simulate(id, 'start');
    await assay.assignments.simulate(id, { action: 'submit', score: 100 });
    const enrolment = () => lms.store.state.enrolments[id]!;
    await expect.poll(() => enrolment().status, { timeout: 10_000 }).toBe('completed');
    expect(enrolment()).toMatchObject({ sequence: 2, livemode: false, score: { percent: 100, gradingStatus: 'final' } });

    // A redelivery of the first event: recorded once, and it does not move the status back.
    const started = (await assay.events.list({ assignmentId: id, type: 'exam.started' })).data[0]!;
    await assay.events.redeliver(started.id);
    await expect.poll(() => logs.filter((l) => l.includes(`${started.id} (already received)`)).length, { timeout: 10_000 }).toBe(1);
    expect(enrolment().status).toBe('completed');
    expect(Object.keys(lms.store.state.events).filter((k) => k === started.id)).toHaveLength(1);

    // Signed with another secret, or not signed: 400 and nothing recorded.
    const body = JSON.stringify({ id: 'evt_forged', type: 'exam.completed', timestamp: new Date().toISOString(), data: { partnerAssignmentId: id, status: 'expired', sequence: 99 } });
    const forger = new Webhook(`whsec_${Buffer.alloc(32, 1).toString('base64')}`);
    // One moment for the header and the signature: signing at a later `new Date()` fails whenever a second ticks over in between.
    const at = new Date(Math.floor(Date.now() / 1000) * 1000);
    const headers = { 'content-type': 'application/json', 'webhook-id': 'evt_forged', 'webhook-timestamp': String(at.getTime() / 1000) };
    const forged = await fetch(`${lmsUrl}/webhooks/assay`, { method: 'POST', body, headers: { ...headers, 'webhook-signature': forger.sign('evt_forged', at, body) } });
    expect(forged.status).toBe(400);
    const unsigned = await fetch(`${lmsUrl}/webhooks/assay`, { method: 'POST', body, headers });
    expect(unsigned.status).toBe(400);
    expect(lms.store.state.events.evt_forged).toBeUndefined();
    expect(enrolment().status).toBe('completed');

    // Authentic but older than what was applied (delivery order is not guaranteed): recorded, status unchanged.
    const late = JSON.stringify({ id: 'evt_late', type: 'exam.started', timestamp: new Date().toISOString(), data: { partnerAssignmentId: id, status: 'started', sequence: 1 } });
    const signer = new Webhook(lms.store.state.webhook!.secret);
    const lateRes = await fetch(`${lmsUrl}/webhooks/assay`, {
      method: 'POST',
      body: late,
      headers: { ...headers, 'webhook-id': 'evt_late', 'webhook-signature': signer.sign('evt_late', at, late) },
    });
    expect(lateRes.status).toBe(204);
    expect(lms.store.state.events.evt_late).toMatchObject({ type: 'exam.started', assignmentId: id });
    expect(enrolment()).toMatchObject({ status: 'completed', sequence: 2 });
  });

  it('the return page reads the assignment from Assay and ignores the query\'s claims', async () => {
    const { id } = await assignThroughForm('returning');
    const page = await fetch(`${lmsUrl}/return?partnerAssignmentId=${id}&status=completed&externalUserId=returning`);
    expect(page.status).toBe(200);
    const html = await page.text();
    expect(html).toContain('class="status status-assigned"');
    expect(html).not.toContain('class="status status-completed"');

    // An assignment of the institution that this LMS did not make, and one of nobody.
    const other = await assay.assignments.create(assignmentBody(tenant, { externalUserId: 'made-elsewhere' }));
    expect((await fetch(`${lmsUrl}/return?partnerAssignmentId=${other.assignmentId}`)).status).toBe(404);
    expect((await fetch(`${lmsUrl}/return?partnerAssignmentId=asg_nope`)).status).toBe(404);
  });

  it('registers its endpoint once: a restart with its records reuses it, one without them re-keys it', async () => {
    const url = `${lmsUrl}/webhooks/assay`;
    const endpoints = async () => (await assay.webhookEndpoints.list()).data.filter((e) => e.url === url);
    expect(await endpoints()).toHaveLength(1);
    const secret = lms.store.state.webhook!.secret;

    const port = Number(new URL(lmsUrl).port);
    await lms.close();
    const keepsRecords = createPartnerApp({ assay, publicUrl: lmsUrl, dataFile: null, testMode: true, log: () => undefined });
    keepsRecords.store.state.webhook = { ...lms.store.state.webhook! };
    await keepsRecords.start(port);
    expect(keepsRecords.store.state.webhook!.secret).toBe(secret);
    await keepsRecords.close();

    lms = createPartnerApp({ assay, publicUrl: lmsUrl, dataFile: null, testMode: true, log: () => undefined });
    await lms.start(port);
    expect(await endpoints()).toHaveLength(1);
    expect(lms.store.state.webhook!.secret).toMatch(/^whsec_/);
    expect(lms.store.state.webhook!.secret).not.toBe(secret);
  });
});

describe('the example partner app in test mode', () => {
  it('plays an assignment\'s steps from the students board, and shows a refused step as a notice', async () => {
    const { id } = await assignThroughForm('simulated');
    const step = (action: string) =>
      fetch(`${lmsUrl}/simulate`, { method: 'POST', body: new URLSearchParams({ assignmentId: id, action }), redirect: 'manual' });
    const started = await step('start');
    expect(started.status).toBe(303);
    expect(started.headers.get('location')).toBe('/students');
    await expect.poll(() => lms.store.state.enrolments[id]!.status, { timeout: 10_000 }).toBe('started');

    const again = await step('start');
    const location = again.headers.get('location')!;
    expect(location).toMatch(/^\/students\?notice=[0-9a-f-]{36}$/);
    const board = await (await fetch(`${lmsUrl}${location}`)).text();
    expect(board).toContain('Assay refused “start”');
    expect(board).toContain('<option value="finish_marking">finish marking</option>');

    expect((await step('teleport')).status).toBe(400);
    expect((await fetch(`${lmsUrl}/students?notice=${encodeURIComponent('Your account is locked')}`).then((r) => r.text()))).not.toContain('Your account is locked');
  });
});
