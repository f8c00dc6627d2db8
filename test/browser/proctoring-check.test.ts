import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Route } from 'playwright-core';
import { seriousAxeViolations, closeContext } from './browser-env.js';
import { assignTo, beginProctored, canRun, openRig, proctoredTest, publish, report, requireCameraTools, statusOf, studentPage, until, type Rig } from './proctoring-rig.js';

/**
 * The intro page's check step of a proctored test, in Chromium with a fake camera: Begin waits for the
 * camera (and the face model), the page explains a refused camera and starts nothing, and both states
 * pass axe.
 */
requireCameraTools();

describe.skipIf(!canRun)('the camera check before a proctored test', () => {
  let rig: Rig;
  let liveTestId: string;
  let recordTestId: string;

  beforeAll(async () => {
    rig = await openRig('Northfield University');
    liveTestId = await publish(rig, proctoredTest('live_ai'));
    recordTestId = await publish(rig, proctoredTest('record'));
  }, 90_000);
  afterAll(() => rig?.close());

  it('keeps Begin disabled until the camera works and the face model has loaded, then starts a recording attempt', async () => {
    const browser = await rig.browser('one_face');
    const { context, page, problems } = await studentPage(browser);
    // Hold the face-detection bundle back, to see the page while it is not there yet.
    let release: () => void = () => undefined;
    const held = new Promise<void>((r) => (release = r));
    await context.route('**/assets/proctoring/face-api.esm.js', async (route: Route) => {
      await held;
      await route.continue();
    });
    const a = await assignTo(rig, liveTestId, 'ana');
    await page.goto(a.startUrl);

    const begin = page.getByRole('button', { name: 'Begin test' });
    const status = page.getByRole('status').filter({ hasText: /camera/i }).first();
    await until('the camera to start', async () => /Loading face detection/.test((await status.textContent()) ?? ''), 30_000, 100);
    expect(await begin.isDisabled()).toBe(true);
    expect(await page.locator('#camera-preview').evaluate((v: HTMLVideoElement) => v.videoWidth)).toBeGreaterThan(0);
    // Enter in the form, or any scripted submit, does not start anything while Begin is off.
    await page.locator('#begin-form').evaluate((f: HTMLFormElement) => f.requestSubmit());
    await page.waitForTimeout(500);
    expect(await statusOf(rig, a.assignmentId)).toBe('assigned');

    release();
    await until('Begin to be enabled', async () => !(await begin.isDisabled()), 60_000, 200);
    expect(await status.textContent()).toBe('Your camera works. You can begin the test.');
    expect(await page.locator('#begin-hint').isHidden()).toBe(true);
    await until('the face feedback', async () => (await page.locator('#face-feedback').textContent()) === 'Your face is in view.', 60_000);
    const consent = await page.locator('.camera-check').textContent();
    expect(consent).toContain('you agree that Northfield University records this test');
    expect(consent).toContain('deleted 30 days after you submit');
    expect(await seriousAxeViolations(page)).toEqual([]);

    await begin.click();
    await page.getByRole('timer').waitFor();
    expect(await statusOf(rig, a.assignmentId)).toBe('started');
    await page.locator('#recording-indicator[data-state="recording"]').waitFor({ timeout: 30_000 });
    expect(await page.locator('#recording-indicator').textContent()).toBe('Recording');
    await until('a heartbeat', async () => (await report(rig, a.assignmentId)).snapshots.length > 0, 30_000);
    expect(problems).toEqual([]);
    await closeContext(context);
  }, 180_000);

  it('a refused camera: says what to do, offers Try again, keeps Begin disabled, and no attempt starts', async () => {
    const browser = await rig.browser('one_face', { allowCamera: false });
    const { context, page, problems } = await studentPage(browser, { viewport: { width: 360, height: 760 } });
    const a = await assignTo(rig, recordTestId, 'ben');
    await page.goto(a.startUrl);

    const status = page.locator('#camera-status');
    await until('the refusal to be explained', async () => (await status.getAttribute('data-state')) === 'failed', 30_000, 100);
    expect(await status.getAttribute('role')).toBe('status');
    expect(await status.textContent()).toBe('Camera not available. Your browser is not allowing this page to use the camera. What you can do is listed below.');
    expect(await page.locator('#begin-hint').isVisible()).toBe(true);
    const help = page.locator('#camera-help');
    expect(await help.isVisible()).toBe(true);
    expect(await help.textContent()).toContain('Allow the camera for this site');
    expect(await help.textContent()).toContain('Open your test link on another device that has one');
    const begin = page.getByRole('button', { name: 'Begin test' });
    expect(await begin.isDisabled()).toBe(true);
    expect(await seriousAxeViolations(page)).toEqual([]);

    // Keyboard: Try again is reachable and works (still refused here), and Begin stays off.
    const tryAgain = page.getByRole('button', { name: 'Try again' });
    await tryAgain.focus();
    await page.keyboard.press('Enter');
    await until('the second refusal', async () => (await status.getAttribute('data-state')) === 'failed', 30_000, 100);
    expect(await begin.isDisabled()).toBe(true);
    await page.locator('#begin-form').evaluate((f: HTMLFormElement) => f.requestSubmit());
    await page.waitForTimeout(500);
    expect(page.url()).toBe(`${rig.origin}/a/${a.assignmentId}`);
    expect(await statusOf(rig, a.assignmentId)).toBe('assigned');
    expect((await report(rig, a.assignmentId)).recording.segmentCount).toBe(0);
    expect(await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth)).toBe(true);
    expect(problems).toEqual([]);
    await closeContext(context);
  }, 180_000);

  it('a browser that cannot record WebM is told which browsers can, and cannot begin', async () => {
    const browser = await rig.browser('one_face');
    const { context, page } = await studentPage(browser);
    await context.addInitScript(() => {
      MediaRecorder.isTypeSupported = () => false; // as in a browser that records other formats only
    });
    const a = await assignTo(rig, recordTestId, 'old-browser');
    await page.goto(a.startUrl);
    const status = page.locator('#camera-status');
    await until('the refusal', async () => (await status.getAttribute('data-state')) === 'failed', 30_000, 100);
    expect(await status.textContent()).toContain('This browser cannot record the test. Use an up-to-date Chrome, Edge or Firefox.');
    expect(await page.getByRole('button', { name: 'Begin test' }).isDisabled()).toBe(true);
    expect(await statusOf(rig, a.assignmentId)).toBe('assigned');
    await closeContext(context);
  }, 180_000);

  it('passes axe on the proctored test page, with the Recording indicator and the supervision panel', async () => {
    const browser = await rig.browser('one_face');
    const { context, page, problems } = await studentPage(browser);
    const a = await assignTo(rig, recordTestId, 'cal');
    await beginProctored(page, a.startUrl);
    expect(await page.getByRole('status').filter({ hasText: 'This test is recorded while you work.' }).count()).toBe(1);
    expect(await seriousAxeViolations(page)).toEqual([]);
    // Answering works as on any test, with the keyboard.
    await page.getByRole('group', { name: /mean of 2, 4 and 9/ }).getByRole('textbox').fill('5');
    await until('the answer to be saved', async () => (await page.locator('#save-status').textContent()) === 'Saved', 20_000, 200);
    expect(problems).toEqual([]);
    await closeContext(context);
  }, 180_000);
});
