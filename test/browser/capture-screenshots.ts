import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import type { Browser } from 'playwright-core';
import { systemClock } from '../../src/platform/clock.js';
import { freezeConfig, parseConfig } from '../../src/platform/config.js';
import { createPool } from '../../src/platform/db.js';
import { startEmbeddedDatabase, type EmbeddedDatabase } from '../../src/platform/embedded-db.js';
import { randomBase62 } from '../../src/platform/ids.js';
import { migrate } from '../../src/platform/migrate.js';
import { createApiKey } from '../../src/modules/institutions/api-keys.js';
import { createInstitution } from '../../src/modules/institutions/institutions.js';
import { createTest, publishTest } from '../../src/modules/catalog/tests-service.js';
import { DEMO_TESTS } from '../../src/demo/demo-tests.js';
import { buildServer, serverContext, PARTNER_PREFIX } from '../../src/server.js';
import { freePort, launchBrowser, launchBrowserWithCamera, closeContext } from './browser-env.js';
import { cameraToolsMissing, fakeCameraVideo } from './fake-camera.js';

/**
 * `npx tsx test/browser/capture-screenshots.ts`: renders the student pages
 * of the demo tests in Chromium at desktop and phone width and writes
 * docs/screenshots/*.png; the proctored demo test's camera check (working
 * and refused) and test page with a fake camera playing a photograph (needs
 * ffmpeg and the Debian photographs, see fake-camera.ts). A fresh database
 * on DATABASE_URL's server, or an embedded one in a temp dir, and recordings
 * in a temp dir; nothing is left behind.
 */
const OUT = path.resolve('docs/screenshots');
const VIEWPORTS = { desktop: { width: 1280, height: 860 }, phone: { width: 360, height: 760 } } as const;

let embedded: EmbeddedDatabase | null = null;
let tempDir: string | null = null;
let serverUrl = process.env.DATABASE_URL;
if (!serverUrl) {
  tempDir = fs.mkdtempSync(path.join(os.tmpdir(), 'assay-shots-'));
  embedded = await startEmbeddedDatabase({ dataDir: tempDir, log: () => undefined });
  serverUrl = embedded.url;
}
const dbName = `assay_shots_${randomBase62(8).toLowerCase()}`;
const admin = new pg.Client({ connectionString: serverUrl });
await admin.connect();
await admin.query(`CREATE DATABASE ${dbName}`);
const dbUrl = Object.assign(new URL(serverUrl), { pathname: `/${dbName}` }).toString();
const pool = createPool(dbUrl, 5);
let browser: Browser | null = null;
const filesDir = fs.mkdtempSync(path.join(os.tmpdir(), 'assay-shots-files-'));

try {
  await migrate(pool);
  const port = await freePort();
  const origin = `http://127.0.0.1:${port}`;
  const config = freezeConfig(
    parseConfig({
      DATABASE_URL: dbUrl,
      ASSAY_ADMIN_TOKEN: randomBase62(32),
      ASSAY_SECRET: randomBase62(48),
      PUBLIC_BASE_URL: origin,
      LOG_LEVEL: 'warn',
      ASSAY_DATA_DIR: filesDir,
    }),
  );
  const institution = await createInstitution(pool, { name: 'Demo University', callbackDomains: ['partner.example'] });
  const { apiKey } = await createApiKey(pool, institution.institutionId, 'screenshots');
  const { apiKey: testKey } = await createApiKey(pool, institution.institutionId, 'screenshots (test mode)', undefined, 'test');
  const [algebra, writing, exam] = await Promise.all(DEMO_TESTS.slice(0, 3).map((t) => createTest(pool, t)));
  for (const t of [algebra!, writing!, exam!]) await publishTest(pool, t.testId, institution.institutionId);
  const live = await createTest(pool, { ...DEMO_TESTS[2]!, title: 'Certified Data Analyst Exam (live supervision)', proctoring: 'live_ai' });
  await publishTest(pool, live.testId, institution.institutionId);
  const app = await buildServer(serverContext({ config, pool, clock: systemClock }), { logger: false });
  await app.listen({ port, host: '127.0.0.1' });

  const startUrl = async (testId: string, who: string, key = apiKey) => {
    const res = await app.inject({
      method: 'POST',
      url: `${PARTNER_PREFIX}/assignments`,
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      payload: { externalUserId: who, testId, user: { email: `${who}@partner.example` }, callbackUrl: 'https://partner.example/assay/return' },
    });
    return (res.json() as { startUrl: string }).startUrl;
  };

  fs.mkdirSync(OUT, { recursive: true });
  browser = await launchBrowser();
  for (const [name, viewport] of Object.entries(VIEWPORTS)) {
    const context = await browser.newContext({ viewport });
    const page = await context.newPage();
    const shot = (file: string) => page.screenshot({ path: path.join(OUT, `${file}-${name}.png`), fullPage: true });

    await page.goto(await startUrl(algebra!.testId, `ada-${name}`));
    await shot('intro');
    await page.getByRole('button', { name: 'Begin test' }).click();
    await page.getByRole('timer').waitFor();
    await page.getByLabel('12', { exact: true }).check();
    await page.getByLabel('2', { exact: true }).check();
    await page.getByLabel('11', { exact: true }).check();
    await page.getByRole('group', { name: /in words/ }).getByRole('textbox').fill('five');
    await page.locator('#save-status', { hasText: 'Saved' }).waitFor();
    // A full-page shot of a scrolled page draws the sticky status bar mid-page.
    await page.evaluate(() => window.scrollTo(0, 0));
    await shot('test');
    await page.getByRole('button', { name: 'Submit test' }).click();
    await page.getByRole('dialog').waitFor();
    await page.screenshot({ path: path.join(OUT, `submit-dialog-${name}.png`) });
    await page.getByRole('button', { name: 'Submit', exact: true }).click();
    await page.getByRole('heading', { name: 'Your result' }).waitFor();
    await shot('result');

    await page.goto(await startUrl(writing!.testId, `grace-${name}`));
    await page.getByRole('button', { name: 'Begin test' }).click();
    await page.getByRole('timer').waitFor();
    await page.getByRole('group', { name: /clear writing/ }).getByRole('textbox').fill('Clear writing saves time: readers act on it sooner and ask fewer questions.');
    await page.locator('#save-status', { hasText: 'Saved' }).waitFor();
    await page.getByRole('button', { name: 'Submit test' }).click();
    await page.getByRole('button', { name: 'Submit', exact: true }).click();
    await page.getByRole('heading', { name: 'Marking in progress' }).waitFor();
    await shot('marking');

    // A test-mode assignment: the notice above the institution's name on every page.
    await page.goto(await startUrl(algebra!.testId, `sandbox-${name}`, testKey));
    await shot('test-mode-intro');
    await page.getByRole('button', { name: 'Begin test' }).click();
    await page.getByRole('timer').waitFor();
    await page.screenshot({ path: path.join(OUT, `test-mode-test-${name}.png`) });
    await closeContext(context);
  }
  await browser.close();
  browser = null;

  if (cameraToolsMissing) {
    process.stdout.write(`Proctoring screenshots skipped: missing ${cameraToolsMissing}\n`);
  } else {
    // The proctored demo test: the camera check with a working camera (record, and live_ai with its face check),
    // with the camera refused, and the test page while recording.
    const video = fakeCameraVideo('one_face');
    const withCamera = await launchBrowserWithCamera(video);
    const refused = await launchBrowserWithCamera(video, { allowCamera: false });
    try {
      for (const [name, viewport] of Object.entries(VIEWPORTS)) {
        const context = await withCamera.newContext({ viewport });
        const page = await context.newPage();
        const shot = (file: string) => page.screenshot({ path: path.join(OUT, `${file}-${name}.png`), fullPage: true });

        await page.goto(await startUrl(live.testId, `lin-${name}`));
        await page.locator('#face-feedback', { hasText: 'Your face is in view.' }).waitFor({ timeout: 120_000 });
        await shot('camera-check-live');

        await page.goto(await startUrl(exam!.testId, `eve-${name}`));
        const begin = page.getByRole('button', { name: 'Begin test' });
        await begin.and(page.locator(':enabled')).waitFor({ timeout: 60_000 });
        await shot('camera-check');
        await begin.click();
        await page.locator('#recording-indicator[data-state="recording"]').waitFor({ timeout: 30_000 });
        await page.getByRole('group', { name: /median of 3, 9, 4, 7, 5/ }).getByRole('textbox').fill('5');
        await page.locator('#save-status', { hasText: 'Saved' }).waitFor();
        await page.evaluate(() => window.scrollTo(0, 0));
        await page.waitForTimeout(1000); // the preview's first frames
        await page.screenshot({ path: path.join(OUT, `proctored-test-${name}.png`) });
        await closeContext(context);

        const blocked = await refused.newContext({ viewport });
        const blockedPage = await blocked.newPage();
        await blockedPage.goto(await startUrl(exam!.testId, `ray-${name}`));
        await blockedPage.locator('#camera-status[data-state="failed"]').waitFor({ timeout: 30_000 });
        await blockedPage.screenshot({ path: path.join(OUT, `camera-refused-${name}.png`), fullPage: true });
        await blocked.close();
      }
    } finally {
      await withCamera.close();
      await refused.close();
    }
  }
  await app.close();
  process.stdout.write(`Screenshots written to ${path.relative(process.cwd(), OUT)}/\n`);
} finally {
  await browser?.close();
  await pool.end();
  await admin.query(`DROP DATABASE IF EXISTS ${dbName} WITH (FORCE)`).catch(() => undefined);
  await admin.end();
  await embedded?.stop();
  if (tempDir) fs.rmSync(tempDir, { recursive: true, force: true });
  fs.rmSync(filesDir, { recursive: true, force: true });
}
