import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { createStaffRig, type StaffRig } from '../helpers/staff-rig.js';
import { freePort, hasBrowser, launchBrowser, requireBrowser, seriousAxeViolations, closeContext } from './browser-env.js';

/**
 * Signing in as a person does, in Chromium: the sign-in form, the mail
 * (received by a real SMTP server), the link's page and its button; then a
 * passkey added on the account page with Chromium's virtual authenticator
 * (DevTools WebAuthn domain) and used to sign in again, through the
 * portal's own script. On a 360 px screen; axe checks every staff page on
 * the way, and none is wider than the screen.
 */
const run = hasBrowser || requireBrowser ? describe : describe.skip;

let r: StaffRig;
let browser: Browser;
let origin: string;

async function axeClean(page: Page, name: string) {
  const problems = (await seriousAxeViolations(page)).map((v) => `${name}: ${v.id} (${v.impact}) ${v.help} at ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`);
  const width = await page.evaluate(() => document.documentElement.scrollWidth);
  if (width > 360) {
    const wide = await page.evaluate(() => [...document.querySelectorAll('*')].filter((e) => e.getBoundingClientRect().right > 360).map((e) => `${e.tagName}.${e.className} ${Math.round(e.getBoundingClientRect().right)}`).slice(0, 15).join(' | '));
    problems.push(`${name}: the page is ${width}px wide on a 360px screen: ${wide}`);
  }
  expect(problems).toEqual([]);
}

async function withAuthenticator(context: BrowserContext, page: Page) {
  const cdp = await context.newCDPSession(page);
  await cdp.send('WebAuthn.enable');
  const { authenticatorId } = await cdp.send('WebAuthn.addVirtualAuthenticator', {
    options: { protocol: 'ctap2', transport: 'internal', hasResidentKey: true, hasUserVerification: true, isUserVerified: true, automaticPresenceSimulation: true },
  });
  return { cdp, authenticatorId };
}

run('staff sign-in in the browser', () => {
  beforeAll(async () => {
    const port = await freePort();
    // localhost, not 127.0.0.1: a passkey's relying party must be a host name.
    origin = `http://localhost:${port}`;
    r = await createStaffRig({ config: { publicBaseUrl: origin } });
    await r.h.app.listen({ port, host: '127.0.0.1' });
    browser = await launchBrowser();
  }, 120_000);
  afterAll(async () => {
    await browser?.close();
    await r?.close();
  });

  it('signs in from the emailed link, adds a passkey, signs out and back in with it', async () => {
    await r.invite(r.h.a.institutionId, 'kay@alpha.example', 'admin');
    const context = await browser.newContext({ viewport: { width: 360, height: 760 } });
    const page = await context.newPage();

    await page.goto(`${origin}/portal/account`);
    expect(new URL(page.url()).pathname).toBe('/portal/sign-in');
    await axeClean(page, 'sign-in');
    await page.getByLabel('Email').fill('kay@alpha.example');
    await page.getByRole('button', { name: 'Email me a sign-in link' }).click();
    await page.waitForURL(`${origin}/portal/sign-in/sent`);
    await expect.poll(() => page.getByRole('status').first().textContent()).toContain("If that address has an account, we've emailed a sign-in link");
    await axeClean(page, 'check your email');

    const [link] = await r.mailedLinks('kay@alpha.example');
    await page.goto(link!);
    await axeClean(page, 'link landing');
    await page.getByRole('button', { name: 'Sign in', exact: true }).click();
    await page.waitForURL(`${origin}/portal/account`);
    await axeClean(page, 'account');

    await page.goto(link!);
    expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe('This sign-in link has already been used');
    await axeClean(page, 'used link');

    await page.goto(`${origin}/portal/account`);
    const { cdp, authenticatorId } = await withAuthenticator(context, page);
    await page.getByLabel('Passkey name').fill('Test phone');
    await page.getByRole('button', { name: 'Add a passkey' }).click();
    await page.waitForURL(`${origin}/portal/account?done=passkey-added`);
    await expect.poll(() => page.getByRole('table').textContent()).toContain('Test phone');
    await axeClean(page, 'account with a passkey');
    const { credentials } = await cdp.send('WebAuthn.getCredentials', { authenticatorId });
    expect(credentials).toHaveLength(1);
    expect(credentials[0]!.isResidentCredential).toBe(true);

    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.waitForURL(`${origin}/portal/sign-in?signed_out=1`);
    await axeClean(page, 'signed out');
    const mails = r.smtp.messages.length;
    await page.getByRole('button', { name: 'Sign in with a passkey' }).click();
    await page.waitForURL(`${origin}/portal`);
    await page.goto(`${origin}/portal/account`);
    expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe('Your account');
    expect(await page.textContent('main')).toContain('kay@alpha.example');
    expect(r.smtp.messages.length).toBe(mails);
    const { rows } = await r.h.pool.query("SELECT details->>'method' AS method FROM audit_log WHERE action = 'staff.signed_in' AND actor_email = 'kay@alpha.example' ORDER BY id");
    expect(rows.map((x) => x.method)).toEqual(['link', 'passkey']);
    await closeContext(context);
  }, 120_000);
});
