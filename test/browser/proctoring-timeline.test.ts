import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { PORTAL_COOKIE } from '../../src/modules/staff/portal-sessions.js';
import { storageFor } from '../../src/platform/storage/storage.js';
import { signedIn, type PortalUser } from '../helpers/portal.js';
import { FRAMELESS_WEBM } from '../helpers/proctoring.js';
import { seriousAxeViolations, SHOTS, VIEWPORTS, closeContext } from './browser-env.js';
import { assignTo, beginProctored, canRun, openRig, proctoredTest, publish, report, requireCameraTools, studentPage, until, type Rig } from './proctoring-rig.js';

/**
 * The record page's one timeline, in Chromium, on segments a real MediaRecorder made (fake camera, 3 s
 * segments): a reviewer jumps to a flag's moment and the one player plays on from there across a
 * segment boundary, neither stalled nor errored; with a segment missing, the gap is shown and playback
 * goes over it; a segment file the browser cannot play is left out and the player goes on. Screenshots at 1280 and 360 px (docs/screenshots/portal-proctoring-timeline-*.png when
 * ASSAY_WRITE_SCREENSHOTS=1).
 */
requireCameraTools();

const TIMINGS = { segmentMs: 3000, heartbeatMs: 2000 };

interface Segment {
  seq: number;
  startedAt: string;
  durationMs: number;
}

describe.skipIf(!canRun)('the proctoring record as one timeline', () => {
  let rig: Rig;
  let browser: Browser;
  let reviewer: PortalUser;
  let assignmentId: string;
  let flagAt: number;
  let segments: Segment[];

  beforeAll(async () => {
    rig = await openRig('Northfield University');
    const testId = await publish(rig, proctoredTest('record'));
    browser = await rig.browser('one_face');
    const student = await studentPage(browser, { timings: TIMINGS });
    const a = await assignTo(rig, testId, 'timeline-student');
    assignmentId = a.assignmentId;
    await beginProctored(student.page, a.startUrl, { timings: true });
    await student.page.waitForTimeout(4_000);
    // A flag a few seconds in: copy and paste in an answer.
    const box = student.page.getByRole('group', { name: /mean of 2, 4 and 9/ }).getByRole('textbox');
    await box.fill('5');
    await box.selectText();
    await student.page.keyboard.press('Control+C');
    await student.page.keyboard.press('Control+V');
    await until('the copy_paste flag', async () => (await report(rig, assignmentId)).flags.find((f) => f.kind === 'copy_paste'), 20_000);
    await student.page.waitForTimeout(10_000);
    await student.page.getByRole('button', { name: 'Submit test' }).click();
    await student.page.getByRole('button', { name: 'Submit', exact: true }).click();
    await student.page.getByRole('heading', { name: 'Your result' }).waitFor({ timeout: 30_000 });
    await closeContext(student.context);
    const r = (await rig.admin(`/api/admin/v1/assignments/${assignmentId}/proctoring`)).json();
    segments = r.recording.segments;
    expect(segments.length).toBeGreaterThanOrEqual(4);
    flagAt = (Date.parse(r.flags.find((f: { kind: string }) => f.kind === 'copy_paste').startedAt) - Date.parse(segments[0]!.startedAt)) / 1000;
    reviewer = await signedIn(rig.h, 'reviewer', rig.tenant.institutionId, 'Rae Reviewer');
  }, 180_000);
  afterAll(() => rig?.close());

  async function open(viewport: { width: number; height: number }): Promise<{ page: Page; problems: string[]; close(): Promise<void> }> {
    const context = await browser.newContext({ viewport });
    await context.addCookies([{ name: PORTAL_COOKIE, value: reviewer.cookie.split('=')[1]!, domain: '127.0.0.1', path: '/portal', httpOnly: true, sameSite: 'Strict' }]);
    const page = await context.newPage();
    const problems: string[] = [];
    // The browser's own favicon request is the one 404 a page without a favicon gets.
    page.on('console', (m) => m.type() === 'error' && !/Failed to load resource/.test(m.text()) && problems.push(m.text()));
    page.on('response', (r) => r.status() >= 400 && !r.url().endsWith('/favicon.ico') && problems.push(`${r.status()} ${r.url()}`));
    page.on('pageerror', (e) => problems.push(e.message));
    const began = Date.now();
    await page.goto(`${rig.origin}/portal/assignments/${assignmentId}/proctoring`);
    await until('the recording to load', async () => /whole recording is loaded/.test((await page.locator('#timeline-status').textContent()) ?? ''), 30_000, 200).catch(async (err) => {
      const v = await page.locator('#timeline-video').evaluate((el: HTMLVideoElement) => ({ src: el.src.slice(0, 40), error: el.error?.message ?? null, readyState: el.readyState, networkState: el.networkState }));
      throw new Error(`${err.message}: status “${await page.locator('#timeline-status').textContent()}”, video ${JSON.stringify(v)}, ${problems.join('; ')}`);
    });
    console.info(`the timeline loaded ${segments.length} segments in ${Date.now() - began} ms (page load included)`);
    return { page, problems, close: () => closeContext(context) };
  }

  const state = (page: Page) =>
    page.locator('#timeline-video').evaluate((v: HTMLVideoElement) => ({ t: v.currentTime, paused: v.paused, error: v.error?.code ?? null, readyState: v.readyState, ended: v.ended }));

  it('Jump to a flag seeks the one player there, and it plays on across a segment boundary', async () => {
    const { page, problems, close } = await open(VIEWPORTS.desktop);
    // One player for the whole attempt, not one per segment.
    expect(await page.locator('video').count()).toBe(1);
    // Every segment the recorder made went into it.
    expect(await page.locator('#timeline-status').textContent()).toBe('The whole recording is loaded.');
    const jump = page.getByRole('button', { name: /^Jump to Copy or paste at \d\d:\d\d:\d\d UTC$/ });
    await jump.focus();
    const pressed = performance.now();
    await page.keyboard.press('Enter');
    const at = await state(page);
    // The player seeks to the flag and plays on: within 0.6 s of it, plus what it played while the state was read
    // (on a machine busy with other test files, a press and a read can take more than half a second).
    const sincePress = (performance.now() - pressed) / 1000;
    expect(at.t - flagAt).toBeGreaterThan(-0.6);
    expect(at.t - flagAt).toBeLessThan(0.6 + sincePress);
    const flagClock = (await jump.textContent())!.match(/\d\d:\d\d:\d\d UTC/)![0];
    // The clock beside the player shows the flag's second (or the next: it is already playing).
    const secondsOf = (clock: string) => clock.split(/[: ]/).slice(0, 3).reduce((sum, x) => sum * 60 + Number(x), 0);
    const shown = secondsOf((await page.locator('#timeline-now').textContent())!);
    expect(shown - secondsOf(flagClock)).toBeGreaterThanOrEqual(0);
    expect(shown - secondsOf(flagClock)).toBeLessThanOrEqual(1);

    // The next segment's start on the player's time axis (segments follow each other within a frame or two).
    const next = segments.find((s) => (Date.parse(s.startedAt) - Date.parse(segments[0]!.startedAt)) / 1000 > at.t + 0.5)!;
    expect(next, 'a segment boundary after the flag').toBeTruthy();
    const boundary = (Date.parse(next.startedAt) - Date.parse(segments[0]!.startedAt)) / 1000;
    const played = await until('playback past the boundary', async () => {
      const s = await state(page);
      expect(s.error).toBeNull();
      return s.t > boundary + 1 && s;
    }, 20_000, 100);
    expect(played.paused).toBe(false);
    // Still advancing, not stalled at the boundary.
    await page.waitForTimeout(500);
    const later = await state(page);
    expect(later.t).toBeGreaterThan(played.t + 0.2);
    expect(later.error).toBeNull();
    expect(later.readyState).toBeGreaterThanOrEqual(3);
    expect(problems).toEqual([]);
    await close();
  }, 60_000);

  it('the flags are a table with times to the second, severities in words and shapes, and the page passes axe at 1280 and 360 px', async () => {
    for (const size of ['desktop', 'phone'] as const) {
      const { page, close } = await open(VIEWPORTS[size]);
      const table = page.getByRole('table', { name: /Flags, in the order they started/ });
      expect(await table.getByRole('row').filter({ hasText: 'Copy or paste' }).textContent()).toMatch(/\d\d:\d\d:\d\d UTC/);
      expect(await page.locator('.timeline-flag').count()).toBeGreaterThanOrEqual(1);
      // Pause on the flag so the screenshot shows the playhead and the snapshot beside it.
      await page.getByRole('button', { name: /^Jump to Copy or paste/ }).click();
      await page.locator('#timeline-video').evaluate((v: HTMLVideoElement) => v.pause());
      expect(await seriousAxeViolations(page)).toEqual([]);
      const width = await page.evaluate(() => document.documentElement.scrollWidth);
      expect(width).toBeLessThanOrEqual(VIEWPORTS[size].width);
      const height = await page.evaluate(() => document.documentElement.scrollHeight);
      await page.setViewportSize({ width: VIEWPORTS[size].width, height: Math.min(height, 6000) });
      await page.waitForTimeout(200);
      fs.mkdirSync(SHOTS, { recursive: true });
      await page.screenshot({ path: path.join(SHOTS, `portal-proctoring-timeline-${size}.png`) });
      await close();
    }
  }, 90_000);

  it('a missing segment is shown as a gap, and playback goes over it', async () => {
    // Segment 2 lost (say, never uploaded): its row goes, the rest stays.
    const lost = segments[2]!;
    await rig.h.pool.query('DELETE FROM recording_segments WHERE assignment_id = $1 AND seq = $2', [assignmentId, lost.seq]);
    const { page, problems, close } = await open(VIEWPORTS.desktop);
    expect(await page.locator('.notice').filter({ hasText: /Not recorded: .*1 segment missing/ }).count()).toBe(1);
    const gapStart = (Date.parse(segments[1]!.startedAt) + segments[1]!.durationMs - Date.parse(segments[0]!.startedAt)) / 1000;
    const afterGap = (Date.parse(segments[3]!.startedAt) - Date.parse(segments[0]!.startedAt)) / 1000;
    await page.locator('#timeline-video').evaluate((v: HTMLVideoElement, t: number) => {
      v.currentTime = t;
      return v.play();
    }, gapStart - 1);
    const past = await until('playback past the gap', async () => {
      const s = await state(page);
      expect(s.error).toBeNull();
      return s.t > afterGap + 0.5 && s;
    }, 20_000, 100);
    expect(past.paused).toBe(false);
    expect(problems).toEqual([]);
    await page.locator('#timeline-video').evaluate((v: HTMLVideoElement) => v.pause());
    const height = await page.evaluate(() => document.documentElement.scrollHeight);
    await page.setViewportSize({ width: VIEWPORTS.desktop.width, height: Math.min(height, 6000) });
    fs.mkdirSync(SHOTS, { recursive: true });
    await page.screenshot({ path: path.join(SHOTS, 'portal-proctoring-timeline-gap-desktop.png') });
    await close();
  }, 60_000);

  it('a segment file the browser cannot play does not stop the player: it starts again without it, and plays on', async () => {
    // Segment 1's file replaced by a WebM the player's SourceBuffer refuses (an audio-only file: another track set).
    const bad = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'assay-bad-')), 'bad.webm');
    execFileSync('ffmpeg', ['-loglevel', 'error', '-y', '-f', 'lavfi', '-i', 'sine=frequency=440:duration=3', '-c:a', 'libopus', bad]);
    const { rows } = await rig.h.pool.query('SELECT storage_key FROM recording_segments WHERE assignment_id = $1 AND seq = 1', [assignmentId]);
    await storageFor(rig.h.ctx.config).put(rows[0].storage_key, fs.readFileSync(bad), 'video/webm');
    const { page, problems, close } = await open(VIEWPORTS.desktop);
    expect(await page.locator('#timeline-status').textContent()).toBe('The whole recording is loaded, except 1 segment file that could not be read or played.');
    const origin = Date.parse(segments[0]!.startedAt);
    const afterBad = (Date.parse(segments[3]!.startedAt) - origin) / 1000; // segment 2 is gone too (the test before)
    await page.locator('#timeline-video').evaluate((v: HTMLVideoElement) => {
      v.currentTime = 0.5;
      return v.play();
    });
    const past = await until('playback past the unplayable segment and the gap', async () => {
      const s = await state(page);
      expect(s.error).toBeNull();
      return s.t > afterBad + 0.5 && s;
    }, 30_000, 100);
    expect(past.paused).toBe(false);
    expect(problems).toEqual([]);
    await close();

    // A file with no frame in it (a recorder stopped before its first, stored before uploads were checked
    // for one) holds no moment of the test: it is passed over, not reported as unplayable.
    const last = await rig.h.pool.query('SELECT storage_key FROM recording_segments WHERE assignment_id = $1 ORDER BY seq DESC LIMIT 1', [assignmentId]);
    await storageFor(rig.h.ctx.config).put(last.rows[0].storage_key, FRAMELESS_WEBM, 'video/webm');
    const again = await open(VIEWPORTS.desktop);
    expect(await again.page.locator('#timeline-status').textContent()).toBe('The whole recording is loaded, except 1 segment file that could not be read or played.');
    expect(again.problems).toEqual([]);
    await again.close();
  }, 60_000);
});
