import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import type { TestInput } from '../../src/modules/catalog/schemas.js';
import { buildServer } from '../../src/server.js';
import { ADMIN_TOKEN, createHarness, type Harness, type Tenant } from '../helpers/harness.js';
import { fastWebhooks, registerEndpoint, startDispatcher, type Dispatcher } from '../helpers/webhook-setup.js';
import { startReceiver, type Receiver } from '../helpers/webhook-receiver.js';
import { createPublishedTest } from '../helpers/student.js';
import { freePort, hasBrowser, launchBrowserWithCamera, requireBrowser } from './browser-env.js';
import { cameraToolsMissing, fakeCameraVideo, type Scene } from './fake-camera.js';
import { startS3Server, type S3TestServer } from '../helpers/s3-server.js';

/**
 * The rig of the proctoring browser tests: the real app on a real port (so it can be stopped and
 * started again on the same port), a webhook receiver that verifies signatures with the public
 * standardwebhooks package, a dispatcher, and Chromium with a fake camera playing a video made
 * from a photograph (fake-camera.ts).
 */
export const canRun = hasBrowser && cameraToolsMissing === null;

if (hasBrowser && cameraToolsMissing && !requireBrowser) {
  const line = '!'.repeat(78);
  console.warn(`\n${line}\n!! PROCTORING BROWSER TESTS SKIPPED: missing ${cameraToolsMissing}.\n!! Set ASSAY_REQUIRE_BROWSER=1 to make this a failure.\n${line}\n`);
}

/** Fails the run instead of skipping when CI requires the browser tests. */
export function requireCameraTools(): void {
  describe.runIf(requireBrowser && !canRun)('proctoring browser tests', () => {
    it('need Chromium, ffmpeg and the photographs when ASSAY_REQUIRE_BROWSER=1', () => {
      expect.fail(`ASSAY_REQUIRE_BROWSER=1 but the proctoring browser tests cannot run: ${!hasBrowser ? 'no Chromium' : cameraToolsMissing}`);
    });
  });
}

export const HOOK = '/partner-hooks';

export function proctoredTest(proctoring: 'record' | 'live_ai', proctoringRules?: TestInput['proctoringRules'], durationMinutes = 30): TestInput {
  return {
    title: proctoring === 'live_ai' ? 'Supervised Statistics Quiz' : 'Recorded Statistics Quiz',
    description: 'Three short questions, supervised by camera.',
    durationMinutes,
    proctoring,
    marking: 'auto',
    resultVisibility: 'immediate',
    passPercent: 50,
    ...(proctoringRules ? { proctoringRules } : {}),
    questions: [
      { id: 'mean', type: 'numeric', prompt: 'The mean of 2, 4 and 9?', points: 1, answer: 5 },
      { id: 'median', type: 'single_choice', prompt: 'The median of 1, 3, 8?', points: 1, options: [{ id: 'a', text: '3' }, { id: 'b', text: '4' }], correctOptionId: 'a' },
      { id: 'term', type: 'short_text', prompt: 'The most frequent value is the…', points: 1, acceptedAnswers: ['mode'] },
    ],
  };
}

export interface Rig {
  h: Harness;
  origin: string;
  tenant: Tenant;
  rx: Receiver;
  dispatcher: Dispatcher;
  /** With `{ s3: true }`: the S3 server the app stores in (its CORS rule allows the app's origin). */
  s3: S3TestServer | null;
  /** The app serving the port now (a new one after restart()). */
  app(): Harness['app'];
  /** GET on the operator or partner API of the app serving now. */
  admin(url: string): Promise<{ statusCode: number; body: string; json(): any }>;
  partner(url: string): Promise<{ statusCode: number; body: string; json(): any }>;
  /** Stops the listening app (connections cut) and, after `downMs`, serves the port again from a new app on the same database. */
  restart(downMs: number): Promise<void>;
  browser(scene: Scene, opts?: { allowCamera?: boolean }): Promise<Browser>;
  close(): Promise<void>;
}

export async function openRig(name: string, opts: { s3?: boolean } = {}): Promise<Rig> {
  const port = await freePort();
  const origin = `http://127.0.0.1:${port}`;
  const s3 = opts.s3 ? await startS3Server({ corsOrigins: [origin] }) : null;
  const h = await createHarness({ config: { publicBaseUrl: origin, allowInsecureUrls: true, webhooks: fastWebhooks(), ...(s3 ? { storage: s3.config } : {}) } });
  let app = h.app;
  await app.listen({ port, host: '127.0.0.1' });
  const rx = await startReceiver();
  const dispatcher = startDispatcher(h);
  await dispatcher.start();
  const tenant = await h.createTenant(name, ['localhost']);
  await registerEndpoint(h, tenant, rx, HOOK, { eventTypes: ['violation.detected'] });
  const browsers: Browser[] = [];
  const extraApps: Array<Harness['app']> = [];
  return {
    h,
    origin,
    tenant,
    rx,
    dispatcher,
    s3,
    app: () => app,
    admin: (url) => app.inject({ method: 'GET', url, headers: { authorization: `Bearer ${ADMIN_TOKEN}` } }),
    partner: (url) => app.inject({ method: 'GET', url, headers: { authorization: `Bearer ${tenant.apiKey}` } }),
    async restart(downMs) {
      await app.close();
      await new Promise((r) => setTimeout(r, downMs));
      app = await buildServer(h.ctx, { logger: false });
      extraApps.push(app);
      await app.listen({ port, host: '127.0.0.1' });
    },
    async browser(scene, opts) {
      const b = await launchBrowserWithCamera(fakeCameraVideo(scene), opts);
      browsers.push(b);
      return b;
    },
    async close() {
      for (const b of browsers) await b.close().catch(() => undefined);
      for (const a of extraApps) await a.close().catch(() => undefined);
      await dispatcher.stop();
      await rx.close();
      await h.close();
      await s3?.close();
    },
  };
}

/** Client timings for a test (the page's own defaults are 10 s segments and a 5 s heartbeat). */
export interface Timings {
  segmentMs?: number;
  heartbeatMs?: number;
  snapshotEveryMs?: number;
}

/**
 * A student's tab. `timings` rewrites the numbers in the page's state as it arrives, to keep a test
 * short: the server accepts segments of any length and takes the heartbeat's pace from the page.
 * Playwright does not route the request a redirect leads to, so beginProctored() loads the test page
 * once more after Begin for the rewrite to apply.
 */
export async function studentPage(
  browser: Browser,
  opts: { viewport?: { width: number; height: number }; timings?: Timings } = {},
): Promise<{ context: BrowserContext; page: Page; problems: string[] }> {
  const context = await browser.newContext({ viewport: opts.viewport ?? { width: 1280, height: 900 } });
  if (opts.timings) {
    const t = opts.timings;
    await context.route(/\/a\/[^/?]+$/, async (route) => {
      if (route.request().method() !== 'GET') return route.fallback();
      const response = await route.fetch();
      let body = await response.text();
      for (const [key, value] of Object.entries(t)) body = body.replace(new RegExp(`"${key}":\\d+`), `"${key}":${value}`);
      await route.fulfill({ response, body });
    });
  }
  const page = await context.newPage();
  const problems: string[] = [];
  page.on('console', (m) => {
    if (m.type() === 'error' && !/Failed to load resource|ERR_INTERNET_DISCONNECTED|ERR_CONNECTION_REFUSED|ERR_CONNECTION_RESET|ERR_EMPTY_RESPONSE/.test(m.text()))
      problems.push(m.text());
  });
  page.on('pageerror', (e) => problems.push(e.message));
  return { context, page, problems };
}

export async function statusOf(rig: Rig, assignmentId: string): Promise<string> {
  const res = await rig.partner(`/api/partner/v1/assignments/${assignmentId}`);
  expect(res.statusCode, res.body).toBe(200);
  return res.json().status;
}

/** A new assignment, through the app serving now (the harness's own may have been stopped by restart()). */
export async function assignTo(rig: Rig, testId: string, externalUserId: string): Promise<{ assignmentId: string; startUrl: string }> {
  const res = await rig.app().inject({
    method: 'POST',
    url: '/api/partner/v1/assignments',
    headers: { authorization: `Bearer ${rig.tenant.apiKey}`, 'content-type': 'application/json' },
    payload: JSON.stringify({ testId, externalUserId, user: { email: `${externalUserId}@example.org` }, callbackUrl: 'https://localhost/back' }),
  });
  expect(res.statusCode, res.body).toBe(201);
  return res.json();
}

export const publish = (rig: Rig, test: TestInput) => createPublishedTest(rig.h, rig.tenant, test);

export interface Report {
  mode: string;
  summary: { critical: number; warning: number; info: number };
  flags: Array<{ id: string; kind: string; severity: string; durationSeconds: number; ongoing: boolean; evidence: { snapshot: boolean; url: string | null } }>;
  recording: { segmentCount: number; totalDurationMs: number; segments: Array<{ seq: number; durationMs: number; sizeBytes: number; contentType: string; url: string }> };
  snapshots: Array<{ snapshotId: string; flagId: string | null; url: string }>;
}

/** The operator's proctoring record of the attempt (flags, segments and snapshots with signed URLs). */
export async function report(rig: Rig, assignmentId: string): Promise<Report> {
  const res = await rig.admin(`/api/admin/v1/assignments/${assignmentId}/proctoring`);
  expect(res.statusCode, res.body).toBe(200);
  return res.json();
}

/** Downloads a signed file URL to a temp file (for ffprobe). */
export async function download(rig: Rig, url: string, ext: string): Promise<string> {
  const res = await fetch(url.replace(/^https?:\/\/[^/]+/, rig.origin));
  expect(res.status).toBe(200);
  const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'assay-seg-')), `file.${ext}`);
  fs.writeFileSync(file, Buffer.from(await res.arrayBuffer()));
  return file;
}

export async function until<T>(what: string, fn: () => Promise<T | null | undefined | false>, timeoutMs = 60_000, everyMs = 500): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (Date.now() > end) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, everyMs));
  }
}

/** Opens the start link, waits for the camera check to pass, and begins: the test page is recording. */
export async function beginProctored(page: Page, startUrl: string, opts: { timings?: boolean } = {}): Promise<void> {
  await page.goto(startUrl);
  await page.getByRole('button', { name: 'Begin test' }).and(page.locator(':enabled')).waitFor({ timeout: 90_000 });
  await page.getByRole('button', { name: 'Begin test' }).click();
  await page.getByRole('timer').waitFor();
  if (opts.timings) await page.goto(page.url());
  await page.locator('#recording-indicator[data-state="recording"]').waitFor({ timeout: 30_000 });
}
