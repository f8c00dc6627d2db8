import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { listAudit } from '../../src/modules/staff/audit.js';
import { createHarness, type Harness } from '../helpers/harness.js';
import { linksIn, startSmtpSink, type SmtpSink } from '../helpers/smtp-sink.js';
import { fastWebhooks, startDispatcher, type Dispatcher } from '../helpers/webhook-setup.js';
import { startReceiver, type Receiver } from '../helpers/webhook-receiver.js';
import { ALL_TYPES_TEST, Student, createPublishedTest } from '../helpers/student.js';
import { freePort, hasBrowser, launchBrowser, requireBrowser, seriousAxeViolations, closeContext } from './browser-env.js';

/**
 * The portal end to end, in Chromium, with a real SMTP server receiving the
 * mail and a verifying webhook receiver: an invited admin signs in from the
 * mailed link, creates an API key that then works on the partner API, adds a
 * callback domain and a webhook endpoint and sees a test event's delivery in
 * the log; a reviewer invited from the Staff page signs in, finds a
 * submitted essay in the Marking queue, marks it and finishes, and the
 * partner's read shows it completed with the final score while grading.done
 * arrives. axe checks every page on the way; the audit log holds each step.
 */
const run = hasBrowser || requireBrowser ? describe : describe.skip;

let h: Harness;
let smtp: SmtpSink;
let rx: Receiver;
let dispatcher: Dispatcher;
let browser: Browser;
let origin: string;
let essayTestId: string;
const axeProblems: string[] = [];

async function checkAxe(page: Page, what: string) {
  for (const v of await seriousAxeViolations(page)) axeProblems.push(`${what}: ${v.id} (${v.impact}) ${v.help}`);
}

/** Runs the mail job and returns the sign-in link of the newest mail to `email`. */
async function mailedLink(email: string, before: number): Promise<string> {
  const deadline = Date.now() + 10_000;
  while (smtp.to(email).length === before) {
    if (Date.now() > deadline) throw new Error(`no mail to ${email}`);
    await h.runJobs();
    await new Promise((r) => setTimeout(r, 50));
  }
  const link = linksIn(smtp.to(email).at(-1)!)[0];
  expect(link, smtp.to(email).at(-1)!.text).toBeDefined();
  return link!;
}

async function signInFromMail(context: BrowserContext, link: string): Promise<Page> {
  expect(link.startsWith(origin)).toBe(true);
  const page = await context.newPage();
  await page.goto(link);
  await checkAxe(page, 'sign-in link page');
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('heading', { level: 1, name: 'Overview' }).waitFor();
  return page;
}

const partner = (key: string, method: string, path: string, body?: unknown) =>
  fetch(`${origin}/api/partner/v1${path}`, {
    method,
    headers: { authorization: `Bearer ${key}`, ...(body ? { 'content-type': 'application/json' } : {}) },
    ...(body ? { body: JSON.stringify(body) } : {}),
  });

run('the portal, end to end', () => {
  beforeAll(async () => {
    smtp = await startSmtpSink();
    rx = await startReceiver();
    const port = await freePort();
    origin = `http://127.0.0.1:${port}`;
    h = await createHarness({
      config: { publicBaseUrl: origin, allowInsecureUrls: true, webhooks: fastWebhooks(), mail: { smtpUrl: smtp.url, from: 'Assay <no-reply@assay.test>' } },
    });
    await h.app.listen({ port, host: '127.0.0.1' });
    dispatcher = startDispatcher(h);
    await dispatcher.start();
    essayTestId = await createPublishedTest(h, h.a, ALL_TYPES_TEST);
    browser = await launchBrowser();
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await dispatcher?.stop();
    await rx?.close();
    await h?.close();
    await smtp?.close();
  });

  it('admin: mailed link → API key that works → callback domain → webhook endpoint and its test delivery; reviewer: mailed link → marks an essay → completed, grading.done', async () => {
    // The operator invites the institution's first admin; the invitation arrives over SMTP.
    const invited = await h.admin('POST', `/api/admin/v1/institutions/${h.a.institutionId}/staff`, { email: 'ada@alpha.example', name: 'Ada Admin', role: 'admin' });
    expect(invited.statusCode, invited.body).toBe(201);
    const adminContext = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    const page = await signInFromMail(adminContext, await mailedLink('ada@alpha.example', 0));
    await checkAxe(page, 'overview');

    // API key: created, shown once, and it works on the partner API.
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'API keys', exact: true }).click();
    await page.getByLabel('Label').fill('LMS production');
    await page.getByRole('button', { name: 'Create API key' }).click();
    const apiKey = (await page.locator('#new-key').textContent())!.trim();
    expect(apiKey).toMatch(/^ak_live_[0-9A-Za-z]{40}$/);
    await expect(page.getByRole('button', { name: 'Copy key' }).isVisible()).resolves.toBe(true);
    await checkAxe(page, 'api keys, new key');
    expect((await partner(apiKey, 'GET', '/tests')).status).toBe(200);

    // Callback domain.
    const nav = (p: Page, name: string) => p.getByRole('navigation', { name: 'Main' }).getByRole('link', { name, exact: true }).click();
    await nav(page, 'Callback domains');
    await page.getByLabel('Domain', { exact: true }).fill('partner.alpha.example');
    await page.getByRole('button', { name: 'Add domain' }).click();
    await page.getByText('The callback domain was added.').waitFor();
    await checkAxe(page, 'callback domains');

    // Webhook endpoint, its secret shown once, and a test event seen in the delivery log.
    await nav(page, 'Webhooks');
    await page.getByLabel('Endpoint URL').fill(rx.url('/alpha'));
    await page.getByRole('button', { name: 'Add endpoint' }).click();
    const secret = (await page.locator('#new-secret').textContent())!.trim();
    rx.setSecrets('/alpha', [secret]);
    await checkAxe(page, 'webhooks, new secret');
    await page.getByRole('link', { name: 'Open the endpoint' }).click();
    await page.getByRole('button', { name: 'Send test event' }).click();
    await page.getByText('A test event was sent.').waitFor();
    await rx.waitFor(() => rx.received.some((r) => r.json.type === 'webhook.test' && r.verifiedWith[0] === true), 10_000, 'the test event');
    for (let i = 0; i < 50 && !(await page.getByText('HTTP 200').isVisible()); i++) {
      await page.waitForTimeout(200);
      await page.reload();
    }
    const row = page.getByRole('row').filter({ hasText: 'webhook.test' });
    await expect(row.getByText('Succeeded').isVisible()).resolves.toBe(true);
    await checkAxe(page, 'webhook endpoint log');

    // The admin invites a reviewer from the Staff page; the reviewer signs in from the mail.
    await nav(page, 'Staff');
    await page.getByLabel('Email', { exact: true }).fill('jo@alpha.example');
    await page.getByLabel('Name', { exact: true }).fill('Jo Reviewer');
    await page.getByLabel('Role', { exact: true }).selectOption('reviewer');
    await page.getByRole('button', { name: 'Send invitation' }).click();
    await page.getByText('The invitation was sent.').waitFor();
    await checkAxe(page, 'staff');

    // A student of the partner takes the essay test, created with the portal's key and domain.
    const created = await partner(apiKey, 'POST', '/assignments', {
      externalUserId: 'essay-student-7',
      testId: essayTestId,
      user: { email: 'student7@alpha.example' },
      callbackUrl: 'https://partner.alpha.example/assay/back',
    });
    expect(created.status).toBe(201);
    const { assignmentId, startUrl } = (await created.json()) as { assignmentId: string; startUrl: string };
    const student = new Student(h);
    await student.start(startUrl);
    await student.page(assignmentId);
    await student.save(assignmentId, [
      { questionId: 'sc', value: 'a', version: 1 },
      { questionId: 'es', value: 'Coffee, a walk, then the news.', version: 1 },
    ]);
    expect((await student.submit(assignmentId)).statusCode).toBe(303);

    const reviewerContext = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    const rpage = await signInFromMail(reviewerContext, await mailedLink('jo@alpha.example', 0));
    await nav(rpage, 'Marking');
    await checkAxe(rpage, 'marking queue');
    await rpage.getByRole('link', { name: 'Mark the submission of essay-student-7' }).click();
    await expect(rpage.getByText('Coffee, a walk, then the news.').isVisible()).resolves.toBe(true);
    await checkAxe(rpage, 'marking item');
    await rpage.getByRole('spinbutton', { name: /Describe your morning/ }).fill('8');
    await rpage.getByRole('textbox', { name: /Comment on “Describe your morning/ }).fill('Vivid and well ordered.');
    await rpage.getByRole('button', { name: 'Finish marking' }).click();
    await rpage.getByText('Marking finished.').waitFor();

    // The partner sees the final result, and grading.done arrives signed.
    const read = (await (await partner(apiKey, 'GET', `/assignments/${assignmentId}`)).json()) as { status: string; result: { available: boolean; score: Record<string, unknown> } };
    expect(read.status).toBe('completed');
    expect(read.result).toMatchObject({ available: true, score: { gradingStatus: 'final', points: 10, maxPoints: 20, percent: 50, passed: true } });
    await rx.waitFor(() => rx.received.some((r) => r.json.type === 'grading.done' && r.json.data.partnerAssignmentId === assignmentId && r.verifiedWith[0] === true), 10_000, 'grading.done');
    const gradingDone = rx.received.find((r) => r.json.type === 'grading.done')!;
    expect(gradingDone.json.data.score).toEqual(read.result.score);

    // Every step is in the institution's audit log, by the right person.
    const entries = (await listAudit(h.pool, { institutionId: h.a.institutionId, limit: 100 })).data.reverse();
    const steps = entries.map((e) => `${e.action} by ${e.actorEmail ?? e.actorKind}`);
    expect(steps).toEqual([
      'test.published by operator_token',
      'staff.invited by operator_token',
      'staff.signed_in by ada@alpha.example',
      'api_key.created by ada@alpha.example',
      'callback_domain.added by ada@alpha.example',
      'webhook_endpoint.created by ada@alpha.example',
      'webhook_endpoint.test_sent by ada@alpha.example',
      'staff.invited by ada@alpha.example',
      'staff.signed_in by jo@alpha.example',
      'marking.completed by jo@alpha.example',
    ]);
    expect(axeProblems).toEqual([]);
    await closeContext(adminContext);
    await closeContext(reviewerContext);
  }, 120_000);
});
