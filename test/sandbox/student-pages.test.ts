import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Tenant } from '../helpers/harness.js';
import { createHarness, manualClock, type Harness } from '../helpers/harness.js';
import { testModeTenant } from '../helpers/test-mode.js';
import { Student, assign, pathOf } from '../helpers/student.js';

/**
 * Every student page of a test-mode assignment carries the "Test mode"
 * notice (and its title says so); a live assignment's pages are unchanged.
 * The pages keep the strict CSP: the notice is markup and a stylesheet rule.
 */
const clock = manualClock(new Date('2031-05-01T09:00:00Z'));
const P = '/api/partner/v1';
const NOTICE = 'This attempt is a sandbox run by Alpha College’s developers; nothing here counts.';
let h: Harness;
let test: Tenant;

beforeAll(async () => {
  h = await createHarness({ clock });
  test = await testModeTenant(h, h.a);
});
afterAll(() => h?.close());

type Page = { statusCode: number; headers: Record<string, unknown>; body: string };

function expectTestMode(res: Page, status: number) {
  expect(res.statusCode).toBe(status);
  expect(res.body).toContain('<div class="test-mode-banner" id="test-mode-notice"><p><strong class="test-mode-tag">Test mode<span class="sr-only">:</span></strong> ');
  expect(res.body).toContain(NOTICE);
  // In the banner landmark, before the institution's name.
  expect(res.body).toMatch(/<header class="site-header"><div class="test-mode-banner"[^]*?<\/div><p class="institution">Alpha College<\/p><\/header>/);
  expect(res.body).toMatch(/<title>Test mode: [^<]+ – Alpha College<\/title>/);
  expectStrictPage(res);
}

function expectLive(res: Page, status: number) {
  expect(res.statusCode).toBe(status);
  expect(res.body).not.toContain('test-mode');
  expect(res.body).not.toContain('Test mode');
  expect(res.body).toContain('<header class="site-header"><p class="institution">Alpha College</p></header>');
  expectStrictPage(res);
}

/** No inline style or script reaches the page; the CSP stays the strict one. */
function expectStrictPage(res: Page) {
  expect(String(res.headers['content-security-policy'])).toContain("default-src 'none'; script-src 'self'; style-src 'self'");
  expect(res.body).not.toMatch(/\sstyle=|<style|\son[a-z]+=/i);
  for (const tag of res.body.match(/<script\b[^>]*>/g) ?? []) expect(tag).toMatch(/ src="\/assets\/|type="application\/json"/);
}

/** Takes one assignment of the tenant through intro, test and completion, checking each page. */
async function journey(tenant: Tenant, externalUserId: string, check: (res: Page, status: number) => void) {
  const a = await assign(h, tenant, { externalUserId });
  const s = new Student(h);
  expect((await s.open(a.startUrl)).statusCode).toBe(303);
  const intro = await s.page(a.assignmentId);
  check(intro, 200);
  expect(intro.body).toContain('Begin test');
  expect((await s.begin(a.assignmentId)).statusCode).toBe(303);
  const running = await s.page(a.assignmentId);
  check(running, 200);
  expect(running.body).toContain('id="timer-value"');
  // The sticky status bar keeps the mode in view once the banner has scrolled away (live pages have no such tag: see expectLive).
  if (check === expectTestMode) expect(running.body).toMatch(/<div class="status-bar">[^]*<p class="status-test-mode">Test mode<\/p>[^]*<\/div>/);
  expect((await s.submit(a.assignmentId)).statusCode).toBe(303);
  const done = await s.page(a.assignmentId);
  check(done, 200);
  expect(done.body).toMatch(/<h1>(Your result|Marking in progress)<\/h1>/);
  // The start link, still valid, now says the test was submitted once it has expired.
  const stale = h.ctx.signer.issue(a.assignmentId, 1, new Date(clock.now().getTime() - 1000)).url;
  const expired = await h.app.inject({ method: 'GET', url: pathOf(stale) });
  check(expired, 410);
  expect(expired.body).toContain('<h1>This link has expired</h1>');
}

describe('the student pages of a test-mode assignment', () => {
  it('intro, test, completion and expired-link pages show the Test mode notice', async () => {
    await journey(test, 'sandbox-1', expectTestMode);
  });

  it('the withdrawn and assignment-expired pages show it too, at the start link and at /a/', async () => {
    const cancelled = await assign(h, test, { externalUserId: 'sandbox-2' });
    const s = new Student(h);
    expect((await s.open(cancelled.startUrl)).statusCode).toBe(303);
    expect((await h.partner(test, 'POST', `${P}/assignments/${cancelled.assignmentId}/cancel`)).statusCode).toBe(200);
    expectTestMode(await s.page(cancelled.assignmentId), 410);
    const withdrawn = await h.app.inject({ method: 'GET', url: pathOf(cancelled.startUrl) });
    expectTestMode(withdrawn, 410);
    expect(withdrawn.body).toContain('<h1>This test has been withdrawn</h1>');

    const lapsed = await assign(h, test, { externalUserId: 'sandbox-3' });
    const t = new Student(h);
    expect((await t.open(lapsed.startUrl)).statusCode).toBe(303);
    expect((await h.partner(test, 'POST', `${P}/assignments/${lapsed.assignmentId}/simulate`, { action: 'expire' })).statusCode).toBe(200);
    expectTestMode(await t.page(lapsed.assignmentId), 410);
    // Past the link's expiry, the start link itself answers with the expired page.
    const stale = h.ctx.signer.issue(lapsed.assignmentId, 1, new Date(clock.now().getTime() - 1000)).url;
    const expired = await h.app.inject({ method: 'GET', url: pathOf(stale) });
    expectTestMode(expired, 410);
    expect(expired.body).toContain('<h1>This assignment has expired</h1>');
  });

  it('pages that do not know the assignment (a bad link) show no notice', async () => {
    const res = await h.app.inject({ method: 'GET', url: '/s/not-a-token' });
    expect(res.statusCode).toBe(404);
    expect(res.body).not.toContain('test-mode');
  });

  it('the stylesheet styles the notice (no inline styles needed)', async () => {
    const css = await h.app.inject({ method: 'GET', url: '/assets/student.css' });
    expect(css.body).toMatch(/\.test-mode-banner \{[^}]*background: var\(--warn\); color: #ffffff;/);
  });
});

describe('the student pages of a live assignment', () => {
  it('are unchanged: no notice, plain titles', async () => {
    await journey(h.a, 'live-1', expectLive);
    const cancelled = await assign(h, h.a, { externalUserId: 'live-2' });
    expect((await h.partner(h.a, 'POST', `${P}/assignments/${cancelled.assignmentId}/cancel`)).statusCode).toBe(200);
    expectLive(await h.app.inject({ method: 'GET', url: pathOf(cancelled.startUrl) }), 410);
  });
});
