import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import type { Browser, Page } from 'playwright-core';
import { systemClock } from '../../src/platform/clock.js';
import { freezeConfig, parseConfig } from '../../src/platform/config.js';
import { createPool } from '../../src/platform/db.js';
import { startEmbeddedDatabase, type EmbeddedDatabase } from '../../src/platform/embedded-db.js';
import { randomBase62 } from '../../src/platform/ids.js';
import { migrate } from '../../src/platform/migrate.js';
import { buildServer, serverContext } from '../../src/server.js';
import { freePort, launchBrowser, closeContext } from './browser-env.js';
import { portalPages } from './portal-pages.js';
import { seedPortal } from './portal-seed.js';

/**
 * `npx tsx test/browser/capture-portal-screenshots.ts`: seeds a lived-in
 * institution (portal-seed.ts), opens every portal page in Chromium at
 * desktop (1280) and phone (360) width as the right role, and writes
 * docs/screenshots/portal-<page>-<desktop|phone>.png. A fresh database on
 * DATABASE_URL's server, or an embedded one in a temp dir; nothing is left behind.
 */
const OUT = path.resolve('docs/screenshots');
const VIEWPORTS = { desktop: { width: 1280, height: 860 }, phone: { width: 360, height: 760 } } as const;
const only = process.argv[2];

let embedded: EmbeddedDatabase | null = null;
let tempDir: string | null = null;
let serverUrl = process.env.DATABASE_URL;
if (!serverUrl) {
  tempDir = fs.mkdtempSync(path.join(os.tmpdir(), 'assay-shots-'));
  embedded = await startEmbeddedDatabase({ dataDir: tempDir, log: () => undefined });
  serverUrl = embedded.url;
}
const dbName = `assay_portal_shots_${randomBase62(8).toLowerCase()}`;
const admin = new pg.Client({ connectionString: serverUrl });
await admin.connect();
await admin.query(`CREATE DATABASE ${dbName}`);
const dbUrl = Object.assign(new URL(serverUrl), { pathname: `/${dbName}` }).toString();
const pool = createPool(dbUrl, 5);
let browser: Browser | null = null;

try {
  await migrate(pool);
  const port = await freePort();
  const origin = `http://127.0.0.1:${port}`;
  const config = freezeConfig({
    ...parseConfig({ DATABASE_URL: dbUrl, ASSAY_ADMIN_TOKEN: randomBase62(32), ASSAY_SECRET: randomBase62(48), PUBLIC_BASE_URL: origin, LOG_LEVEL: 'warn' }),
    allowInsecureUrls: true,
    webhooks: { retryScheduleMs: [0, 50, 100], timeoutMs: 2000, leaseMs: 5000, concurrency: 16, endpointConcurrency: 8 },
  });
  const ctx = serverContext({ config, pool, clock: systemClock });
  const app = await buildServer(ctx, { logger: false });
  await app.listen({ port, host: '127.0.0.1' });
  const seed = await seedPortal(app, ctx, pool);

  fs.mkdirSync(OUT, { recursive: true });
  browser = await launchBrowser();
  for (const [size, viewport] of Object.entries(VIEWPORTS)) {
    const context = await browser.newContext({ viewport });
    const page: Page = await context.newPage();
    for (const shot of portalPages(seed)) {
      if (only && shot.name !== only) continue;
      if (shot.who) await seed.signIn(context, origin, shot.who);
      else await context.clearCookies();
      await page.goto(`${origin}${shot.path}`);
      if (shot.act) await shot.act(page);
      await page.evaluate(() => window.scrollTo(0, 0));
      // A viewport as tall as the page rather than a fullPage shot: the sandboxed preview frame
      // renders in its own process, and fullPage shots leave such frames blank.
      const height = await page.evaluate(() => document.documentElement.scrollHeight);
      await page.setViewportSize({ width: viewport.width, height });
      await page.waitForTimeout(150);
      await page.screenshot({ path: path.join(OUT, `portal-${shot.name}-${size}.png`) });
      await page.setViewportSize(viewport);
    }
    await closeContext(context);
  }
  await app.close();
  process.stdout.write(`Portal screenshots written to ${path.relative(process.cwd(), OUT)}/\n`);
} finally {
  await browser?.close();
  await pool.end();
  await admin.query(`DROP DATABASE IF EXISTS ${dbName} WITH (FORCE)`).catch(() => undefined);
  await admin.end();
  await embedded?.stop();
  if (tempDir) fs.rmSync(tempDir, { recursive: true, force: true });
}
