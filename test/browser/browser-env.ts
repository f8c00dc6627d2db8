import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import net from 'node:net';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';

/**
 * The browser end of the tests: Debian's Chromium driven by playwright-core.
 * Without Chromium the browser tests are skipped with a loud notice, unless
 * ASSAY_REQUIRE_BROWSER=1 (CI), where a missing browser is a failure.
 */
/** Where the browser tests put screenshots: the docs' folder only when asked (ASSAY_WRITE_SCREENSHOTS=1), so a test run leaves the checkout as it was. */
export const SHOTS = process.env.ASSAY_WRITE_SCREENSHOTS === '1' ? path.resolve('docs/screenshots') : path.join(os.tmpdir(), 'assay-screenshots');
/** The two widths every page for people is checked at. */
export const VIEWPORTS = { desktop: { width: 1280, height: 860 }, phone: { width: 360, height: 760 } } as const;

export const CHROMIUM_PATH = process.env.ASSAY_CHROMIUM_PATH || '/usr/bin/chromium';
export const hasBrowser = fs.existsSync(CHROMIUM_PATH);
export const requireBrowser = process.env.ASSAY_REQUIRE_BROWSER === '1';

if (!hasBrowser && !requireBrowser) {
  const line = '!'.repeat(78);
  console.warn(
    `\n${line}\n!! BROWSER TESTS SKIPPED: no Chromium at ${CHROMIUM_PATH}.\n` +
      `!! Install it (apt-get install -y chromium) or set ASSAY_CHROMIUM_PATH; set ASSAY_REQUIRE_BROWSER=1 to make this a failure.\n${line}\n`,
  );
}

const BASE_ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync'];

export function launchBrowser(): Promise<Browser> {
  return chromium.launch({ executablePath: CHROMIUM_PATH, args: BASE_ARGS });
}

/**
 * Closes a context without waiting on it for more than 20 s. Now and then
 * Chromium leaves a closing context's last page open (this process idle, the
 * page still at its address, seen on 2 loaded cores), and `close()` would
 * hold the test to its timeout after every assertion has passed; the
 * browser process is closed after the file in any case.
 */
export async function closeContext(context: BrowserContext): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const gaveUp = new Promise<'gave up'>((resolve) => (timer = setTimeout(() => resolve('gave up'), 20_000)));
  const outcome = await Promise.race([context.close().then(() => 'closed' as const), gaveUp]);
  clearTimeout(timer);
  if (outcome === 'gave up') process.stderr.write('browser-env: a context did not close within 20 s; the browser closes it at the end of the file\n');
}

/**
 * Chromium with a fake camera that plays `videoFile` (a .y4m, looped). With `allowCamera: false` the
 * permission prompt is not auto-accepted, so the page is refused the camera as a student who says
 * "Block" would be.
 */
export function launchBrowserWithCamera(videoFile: string, opts: { allowCamera?: boolean } = {}): Promise<Browser> {
  const camera = ['--use-fake-device-for-media-stream', `--use-file-for-fake-video-capture=${videoFile}`];
  if (opts.allowCamera !== false) camera.unshift('--use-fake-ui-for-media-stream');
  return chromium.launch({ executablePath: CHROMIUM_PATH, args: [...BASE_ARGS, ...camera] });
}

/** A free loopback port, so the app's public URL can be known before the app is built. */
export async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** The partner's side of the return redirect: a page that shows the query it was opened with. */
export async function startCallbackSite(): Promise<{ origin: string; close(): Promise<void> }> {
  const server = http.createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://localhost');
    const rows = [...url.searchParams].map(([k, v]) => `<li><code>${escape(k)}</code>=<code>${escape(v)}</code></li>`).join('');
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    res.end(`<!doctype html><html lang="en"><title>Partner</title><h1>Back at the partner</h1><ul>${rows}</ul></html>`);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://localhost:${port}`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

const escape = (s: string) => s.replace(/[&<>"]/g, (c) => `&#${c.charCodeAt(0)};`);

const axeSource = fs.readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

export interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  nodes: Array<{ target: string[] }>;
}

/**
 * Runs axe-core on the page and returns the serious and critical violations.
 * Evaluated through the DevTools protocol, which the page's CSP does not
 * govern (a script tag would be refused by it, as it should be).
 */
export async function seriousAxeViolations(page: Page): Promise<AxeViolation[]> {
  await page.evaluate(axeSource);
  const result = await page.evaluate(async () => {
    const axe = (globalThis as unknown as { axe: { run(ctx: Document, opts: object): Promise<{ violations: AxeViolation[] }> } }).axe;
    const r = await axe.run(document, { resultTypes: ['violations'] });
    return r.violations.map((v) => ({ id: v.id, impact: v.impact, help: v.help, nodes: v.nodes.map((n) => ({ target: n.target })) }));
  });
  return result.filter((v) => v.impact === 'serious' || v.impact === 'critical');
}

/** Presses Tab (or Shift+Tab) until an element matching `selector` has the focus. */
export async function tabTo(page: Page, selector: string): Promise<void> {
  for (let i = 0; i < 80; i++) {
    const where = await page.evaluate((sel) => {
      const active = document.activeElement;
      if (active && active.matches(sel)) return 'here';
      const target = document.querySelector(sel);
      if (!target) return 'missing';
      return !active || active === document.body || active.compareDocumentPosition(target) & Node.DOCUMENT_POSITION_FOLLOWING ? 'after' : 'before';
    }, selector);
    if (where === 'here') return;
    if (where === 'missing') throw new Error(`nothing matches ${selector}`);
    await page.keyboard.press(where === 'after' ? 'Tab' : 'Shift+Tab');
  }
  throw new Error(`the keyboard never reached ${selector}`);
}
