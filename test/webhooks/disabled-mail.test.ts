import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureStaffAccount } from '../../src/modules/staff/staff-service.js';
import { manualClock, PUBLIC_BASE_URL, type Harness, type Tenant } from '../helpers/harness.js';
import { startSmtpSink, type SmtpSink } from '../helpers/smtp-sink.js';
import { newAssignment, registerEndpoint, transition, openWebhookRig, type WebhookRig } from '../helpers/webhook-setup.js';

/**
 * When Assay disables an endpoint by itself, the institution's admins get a
 * mail (besides the webhook_endpoint.disabled event): through a job written
 * in the disabling's transaction, over real SMTP, retried when SMTP fails.
 */
const DAY = 24 * 3600_000;
const KIND = 'webhooks.endpoint_disabled_mail';

async function seedStaff(h: Harness, t: Tenant, prefix: string) {
  const now = h.clock.now();
  const add = (local: string, role: 'admin' | 'reviewer' | 'viewer') =>
    ensureStaffAccount(h.pool, { institutionId: t.institutionId, email: `${local}@${prefix}.example`, name: null, role }, now);
  return { admins: [await add('ada', 'admin'), await add('bo', 'admin')], others: [await add('rita', 'reviewer'), await add('vic', 'viewer')] };
}

describe('the endpoint-disabled mail to admins', () => {
  const clock = manualClock(new Date());
  let smtp: SmtpSink;
  let rig: WebhookRig;
  beforeAll(async () => {
    smtp = await startSmtpSink();
    rig = await openWebhookRig({
      clock,
      start: false,
      config: { mail: { smtpUrl: smtp.url, from: 'Assay <no-reply@assay.test>' } },
      respond: ({ path }) => (path === '/gone' ? { status: 410 } : path === '/down' ? { status: 503 } : { status: 200 }),
    });
  });
  afterAll(async () => {
    await rig?.close();
    await smtp?.close();
  });
  const mailJobs = async () => (await rig.h.pool.query("SELECT payload, attempts, last_error FROM jobs WHERE kind = $1 ORDER BY id", [KIND])).rows;

  it('after a 410: each admin of that institution gets one mail naming the URL, the reason and the Webhooks page; an SMTP failure is retried', async () => {
    const { h, rx, dispatcher } = rig;
    const t = await h.createTenant('Mailing College');
    const staff = await seedStaff(h, t, 'mailing');
    const other = await h.createTenant('Elsewhere Academy');
    const otherStaff = await seedStaff(h, other, 'elsewhere');
    const gone = await registerEndpoint(h, t, rx, '/gone');
    await registerEndpoint(h, other, rx, '/fine');

    await transition(h, await newAssignment(h, t), [{ type: 'start' }]);
    await transition(h, await newAssignment(h, other), [{ type: 'start' }]);
    await dispatcher.drain();
    expect((await h.partner(t, 'GET', `/api/partner/v1/webhook-endpoints/${gone.endpointId}`)).json().status).toBe('disabled');

    // The jobs were committed with the disabling: one per admin of that institution.
    const queued = await mailJobs();
    expect(queued.map((j) => j.payload.staffId).sort()).toEqual(staff.admins.map((a) => a.staffId).sort());
    expect(queued[0].payload).toMatchObject({ institutionId: t.institutionId, endpointId: gone.endpointId, url: rx.url('/gone'), reason: 'gone' });

    smtp.failNext(1);
    await h.runJobs();
    expect(smtp.messages).toHaveLength(1);
    const failed = (await mailJobs()).filter((j) => j.last_error);
    expect(failed).toHaveLength(1);
    expect(failed[0].last_error).toMatch(/^endpoint-disabled mail not sent: .*451/);
    clock.advance(2000);
    await h.runJobs();
    await smtp.waitFor(2);
    expect(await mailJobs()).toEqual([]);

    for (const admin of staff.admins) {
      const mails = smtp.to(admin.email);
      expect(mails).toHaveLength(1);
      expect(mails[0]!.subject).toBe('Assay disabled a webhook endpoint of Mailing College');
      expect(mails[0]!.text).toContain(rx.url('/gone'));
      expect(mails[0]!.text).toContain('It answered 410 Gone');
      expect(mails[0]!.text).toContain(`${PUBLIC_BASE_URL}/portal/webhooks\n`);
      expect(mails[0]!.text).toContain(`${PUBLIC_BASE_URL}/portal/webhooks/${gone.endpointId}`);
    }
    for (const s of [...staff.others, ...otherStaff.admins, ...otherStaff.others]) expect(smtp.to(s.email)).toEqual([]);
    expect(smtp.messages).toHaveLength(2);
  });

  it('after 5 days of failures: the mail says so and since when', async () => {
    const { h, rx, dispatcher } = rig;
    smtp.messages.length = 0;
    const t = await h.createTenant('Patient Mail School');
    const staff = await seedStaff(h, t, 'patient');
    await registerEndpoint(h, t, rx, '/down');
    const start = clock.now().getTime();
    await transition(h, await newAssignment(h, t), [{ type: 'start' }]);
    await dispatcher.drain();
    await h.runJobs();
    expect(smtp.messages).toEqual([]); // failing, not yet disabled: nobody is mailed

    clock.set(new Date(start + 5 * DAY));
    await transition(h, await newAssignment(h, t), [{ type: 'start' }]);
    await dispatcher.drain();
    await h.runJobs();
    await smtp.waitFor(2);
    for (const admin of staff.admins) {
      const [mail] = smtp.to(admin.email);
      expect(mail!.text).toContain(rx.url('/down'));
      expect(mail!.text).toMatch(/Every delivery to it has failed for 5 days \(since .+ UTC\)\./);
    }
    expect(smtp.messages).toHaveLength(2);
  });

  it('is not sent when the partner disables the endpoint itself', async () => {
    const { h, rx } = rig;
    smtp.messages.length = 0;
    const t = await h.createTenant('Own Choice College');
    await seedStaff(h, t, 'own');
    const mine = await registerEndpoint(h, t, rx, '/mine');
    expect((await h.partner(t, 'PATCH', `/api/partner/v1/webhook-endpoints/${mine.endpointId}`, { status: 'disabled' })).statusCode).toBe(200);
    await h.runJobs();
    expect(await mailJobs()).toEqual([]);
    expect(smtp.messages).toEqual([]);
  });
});
