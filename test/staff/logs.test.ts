import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freezeConfig } from '../../src/platform/config.js';
import { createJobWorker } from '../../src/platform/job-worker.js';
import { createMailer } from '../../src/platform/mail.js';
import { runSignInMailJob } from '../../src/modules/staff/sign-in-mail.js';
import { buildServer, serverContext } from '../../src/server.js';
import { jobContext, workerJobs } from '../../src/worker.js';
import { ADMIN_TOKEN } from '../helpers/harness.js';
import { linksIn } from '../helpers/smtp-sink.js';
import { createStaffRig, csrfOf, type StaffRig } from '../helpers/staff-rig.js';

/**
 * What a production log holds for the portal's sign-in flows, at trace
 * level, from the API and the worker: never a sign-in link token, a session
 * id or a form token. Without ASSAY_SMTP_URL (development) the mail itself
 * is written to the log, link included, on purpose.
 */
let r: StaffRig;
let app: Awaited<ReturnType<typeof buildServer>>;
const lines: string[] = [];
const capture = { write: (line: string) => void lines.push(line) };
const workerLog = {
  info: (o: object, m?: string) => void lines.push(JSON.stringify({ ...o, msg: m })),
  warn: (o: object, m?: string) => void lines.push(JSON.stringify({ ...o, msg: m })),
  error: (o: object, m?: string) => void lines.push(JSON.stringify({ ...o, msg: m })),
};

beforeAll(async () => {
  r = await createStaffRig();
  const config = freezeConfig({ ...r.h.ctx.config, logLevel: 'trace' });
  app = await buildServer(serverContext({ config, pool: r.h.pool, clock: r.h.clock }), { logStream: capture });
});
afterAll(async () => {
  await app.close();
  await r.close();
});

describe('logs of the sign-in flows', () => {
  it('never contain a link token, a session id or a form token, from the API or the worker', async () => {
    const worker = createJobWorker({ pool: r.h.pool, connectionString: r.h.databaseUrl, clock: r.clock, jobs: workerJobs, context: jobContext(r.h.ctx, { log: workerLog }), log: workerLog });
    const invited = await app.inject({
      method: 'POST',
      url: `/api/admin/v1/institutions/${r.h.a.institutionId}/staff`,
      headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
      payload: JSON.stringify({ email: 'lou@alpha.example', role: 'admin' }),
    });
    expect(invited.statusCode).toBe(201);
    r.smtp.failNext(1); // a failed attempt logs its error
    await worker.drain();
    r.clock.advance(2000);
    await worker.drain();
    await r.smtp.waitFor(1);
    const secrets: string[] = linksIn(r.smtp.to('lou@alpha.example')[0]!).map((l) => l.split('/').pop()!);

    const b = r.browser('198.51.100.5', app);
    const form = await b.get('/portal/sign-in');
    secrets.push(csrfOf(form.body));
    await b.post('/portal/sign-in', { csrf: csrfOf(form.body), email: 'lou@alpha.example' });
    await worker.drain();
    await r.smtp.waitFor(2);
    const link = linksIn(r.smtp.to('lou@alpha.example')[1]!)[0]!;
    secrets.push(link.split('/').pop()!);
    const landing = await b.get(new URL(link).pathname);
    await b.post(new URL(link).pathname, { csrf: csrfOf(landing.body) });
    secrets.push(b.cookies.get('assay_portal')!);
    const account = await b.get('/portal/account');
    secrets.push(csrfOf(account.body));
    await b.post(new URL(link).pathname, { csrf: csrfOf(account.body) }); // a used link, refused
    await b.post('/portal/sign-out', { csrf: csrfOf(account.body) });
    await b.get(`/portal/sign-in/link/${'Q'.repeat(43)}`);
    await worker.stop();

    const log = lines.join('\n');
    expect(log).toContain('/portal/sign-in/link/[redacted]');
    expect(log).toContain('sign-in mail not sent');
    expect(secrets.every((s) => typeof s === 'string' && s.length >= 32)).toBe(true);
    for (const secret of secrets) expect(log).not.toContain(secret);
  });
});

describe('without ASSAY_SMTP_URL', () => {
  it('writes the mail, link included, to the log (the development path)', async () => {
    const logged: Array<{ obj: Record<string, any>; msg?: string }> = [];
    const mailer = createMailer({ smtpUrl: null, from: 'Assay <no-reply@assay.test>' }, { info: (obj, msg) => void logged.push({ obj: obj as Record<string, any>, msg }) });
    expect(mailer.delivers).toBe(false);
    await r.invite(r.h.a.institutionId, 'dev@alpha.example', 'viewer');
    await runSignInMailJob(r.h.ctx, mailer, { kind: 'sign_in', email: 'dev@alpha.example', next: null });
    expect(logged).toHaveLength(1);
    expect(logged[0]!.msg).toMatch(/ASSAY_SMTP_URL is not set/);
    expect(logged[0]!.obj.mail).toMatchObject({ to: 'dev@alpha.example', subject: 'Your sign-in link for Assay' });
    const link = /http:\/\/assay\.test\/portal\/sign-in\/link\/[0-9A-Za-z]{43}/.exec(logged[0]!.obj.mail.text)![0];
    expect((await r.browser().useLink(link)).statusCode).toBe(303);
  });
});
