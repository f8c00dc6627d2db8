import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { seriousAxeViolations, closeContext } from './browser-env.js';
import { decodedFrames, playableSeconds } from './fake-camera.js';
import {
  assignTo,
  beginProctored,
  canRun,
  download,
  openRig,
  proctoredTest,
  publish,
  report,
  requireCameraTools,
  studentPage,
  until,
  type Rig,
} from './proctoring-rig.js';

/**
 * `record` in Chromium with a fake camera: the segments the server keeps are complete, playable WebM
 * files whose total length is the time the test took; none is lost to a network cut or a server
 * restart; leaving the page, and the camera stopping, become flags while the student keeps working.
 * The page's segments are shortened to 3 s (the server takes any length) to keep this quick.
 */
requireCameraTools();

const RULES = { leftTestSeconds: 3, leftTestCount: 10 };
const TIMINGS = { segmentMs: 3000, heartbeatMs: 2000 };

describe.skipIf(!canRun)('recording a proctored test in the browser', () => {
  let rig: Rig;
  let testId: string;

  beforeAll(async () => {
    rig = await openRig('Northfield University');
    testId = await publish(rig, proctoredTest('record', RULES));
  }, 90_000);
  afterAll(() => rig?.close());

  async function takeTest(who: string) {
    const { context, page, problems } = await studentPage(await rig.browser('one_face'), { timings: TIMINGS });
    const a = await assignTo(rig, testId, who);
    await beginProctored(page, a.startUrl, { timings: true });
    return { context, page, problems, assignmentId: a.assignmentId };
  }

  async function submit(page: Page) {
    await page.getByRole('group', { name: /mean of 2, 4 and 9/ }).getByRole('textbox').fill('5');
    await page.getByRole('button', { name: 'Submit test' }).click();
    await page.getByRole('button', { name: 'Submit', exact: true }).click();
    await page.getByRole('heading', { name: 'Your result' }).waitFor({ timeout: 30_000 });
  }

  /** The segment numbers this browser handed out (its counter), and what the server stored, in order. */
  async function seqs(page: Page, assignmentId: string) {
    const made = Number(await page.evaluate((key) => localStorage.getItem(key), `assay:proctor:seq:${assignmentId}`));
    const stored = (await report(rig, assignmentId)).recording.segments.map((s) => s.seq);
    return { made, stored };
  }

  it('leaves complete, playable segments whose total length is the time the test took', async () => {
    const t = await takeTest('steady');
    await t.page.waitForTimeout(14_000);
    await submit(t.page);
    const read = (await rig.partner(`/api/partner/v1/assignments/${t.assignmentId}`)).json();
    const taken = (Date.parse(read.submittedAt) - Date.parse(read.startedAt)) / 1000;

    const r = await report(rig, t.assignmentId);
    expect(r.recording.segmentCount).toBeGreaterThanOrEqual(4);
    expect(r.recording.segments.map((s) => s.seq)).toEqual(r.recording.segments.map((_, i) => i));
    let total = 0;
    for (const s of r.recording.segments) {
      expect(s.contentType).toMatch(/^video\/webm/);
      const file = await download(rig, s.url, 'webm');
      expect(decodedFrames(file)).toBeGreaterThan(0); // decodes from its own header: a complete file
      const seconds = playableSeconds(file);
      expect(Math.abs(seconds * 1000 - s.durationMs), `segment ${s.seq}`).toBeLessThan(1000);
      total += seconds;
    }
    const segs = r.recording.segments as unknown as Array<{ startedAt: string; durationMs: number }>;
    const recordingSpan = (Date.parse(read.submittedAt) - Date.parse(segs[0]!.startedAt)) / 1000;
    console.info(
      `recorded ${total.toFixed(1)} s in ${segs.length} segments; the test took ${taken.toFixed(1)} s, ${recordingSpan.toFixed(1)} s of it after the camera started`,
    );
    // One segment follows the other without a gap or an overlap worth a frame or two.
    for (let i = 1; i < segs.length; i++) {
      const gap = Date.parse(segs[i]!.startedAt) - (Date.parse(segs[i - 1]!.startedAt) + segs[i - 1]!.durationMs);
      expect(Math.abs(gap), `between segments ${i - 1} and ${i}`).toBeLessThan(500);
    }
    // From the camera's start to Submit, all of it is recorded; the camera starts a few seconds after Begin
    // (the test page loads, here twice, and asks for the camera).
    expect(Math.abs(total - recordingSpan)).toBeLessThan(1.5);
    expect(total).toBeGreaterThan(taken - 6);
    expect(total).toBeLessThan(taken + 0.5);
    expect(r.snapshots.length).toBeGreaterThanOrEqual(1);
    expect(t.problems).toEqual([]);
    await closeContext(t.context);
  }, 180_000);

  it('loses no segment when the network is cut for a while and comes back', async () => {
    const t = await takeTest('offline');
    await t.page.waitForTimeout(3_500);
    await t.context.setOffline(true);
    await t.page.waitForTimeout(10_000);
    const during = await seqs(t.page, t.assignmentId);
    expect(during.made - during.stored.length).toBeGreaterThanOrEqual(2); // queued in IndexedDB meanwhile
    await t.context.setOffline(false);
    await until('the queue to drain', async () => {
      const s = await seqs(t.page, t.assignmentId);
      return s.stored.length >= during.made;
    }, 30_000);
    await submit(t.page);
    const after = await seqs(t.page, t.assignmentId);
    expect(after.stored).toEqual(Array.from({ length: after.made }, (_, i) => i));
    expect(t.problems).toEqual([]);
    await closeContext(t.context);
  }, 180_000);

  it('segments still queued at submission are sent from the completion page', async () => {
    const t = await takeTest('late-uploads');
    // The uploads fail (the connection drops them) while the test goes on and is submitted.
    await t.context.route('**/proctoring/segments/*', (route) => route.abort('connectionreset'));
    await t.page.waitForTimeout(7_000);
    await submit(t.page);
    const queued = await seqs(t.page, t.assignmentId);
    expect(queued.made - queued.stored.length).toBeGreaterThanOrEqual(2);
    const note = t.page.locator('#upload-rest');
    expect(await note.getAttribute('role')).toBe('status');
    await until('the note', async () => /still on this device|Sending the rest/.test((await note.textContent()) ?? ''), 10_000, 100);

    await t.context.unroute('**/proctoring/segments/*');
    await t.page.evaluate(() => window.dispatchEvent(new Event('online'))); // as the browser does when the network returns
    await until('the rest to be sent', async () => (await note.textContent()) === 'The rest of your test recording has been sent. You can close this page.', 30_000, 200);
    const after = await seqs(t.page, t.assignmentId);
    expect(after.stored).toEqual(Array.from({ length: after.made }, (_, i) => i));
    expect(t.problems).toEqual([]);
    await closeContext(t.context);
  }, 180_000);

  it('keeps recording across a server restart, and loses nothing to it', async () => {
    const t = await takeTest('restart');
    await t.page.waitForTimeout(4_000);
    const before = await seqs(t.page, t.assignmentId);
    await rig.restart(6_000);
    const restartedAt = Date.now();
    await until('segments recorded after the restart', async () => {
      const r = await report(rig, t.assignmentId);
      return r.recording.segments.filter((s) => Date.parse((s as unknown as { startedAt: string }).startedAt) > restartedAt).length >= 2;
    }, 60_000);
    await submit(t.page);
    const after = await seqs(t.page, t.assignmentId);
    expect(after.made).toBeGreaterThan(before.made + 3);
    expect(after.stored).toEqual(Array.from({ length: after.made }, (_, i) => i));
    expect(t.problems).toEqual([]);
    await closeContext(t.context);
  }, 180_000);

  it('another browser taking over the attempt continues the segment numbers (the server says where it stands)', async () => {
    const browser = await rig.browser('one_face');
    const first = await studentPage(browser, { timings: TIMINGS });
    const a = await assignTo(rig, testId, 'two-devices');
    await beginProctored(first.page, a.startUrl, { timings: true });
    await until('two stored segments', async () => (await report(rig, a.assignmentId)).recording.segmentCount >= 2, 30_000);
    await closeContext(first.context); // its storage (queue and counter) goes with it, as on another device

    const second = await studentPage(browser, { timings: TIMINGS });
    await second.page.goto(a.startUrl); // the same link signs the student in again, onto the running test
    await second.page.getByRole('timer').waitFor();
    const before = (await report(rig, a.assignmentId)).recording.segmentCount;
    const switchedAt = Date.now();
    await second.page.goto(second.page.url()); // the shorter segments (see beginProctored)
    await until('segments from the second browser', async () => (await report(rig, a.assignmentId)).recording.segmentCount >= before + 2, 30_000);
    await submit(second.page);
    const segments = (await report(rig, a.assignmentId)).recording.segments as unknown as Array<{ seq: number; startedAt: string; durationMs: number }>;
    const stored = segments.map((x) => x.seq);
    expect(stored).toEqual(stored.map((_, i) => i));
    // Every segment the second browser made is kept: none was taken for a duplicate of the first browser's.
    const firstOfSecond = segments[before]!;
    expect(Date.parse(firstOfSecond.startedAt)).toBeGreaterThan(switchedAt - 500);
    expect(Date.parse(firstOfSecond.startedAt) - switchedAt).toBeLessThan(TIMINGS.segmentMs);
    expect(Number(await second.page.evaluate((key) => localStorage.getItem(key), `assay:proctor:seq:${a.assignmentId}`))).toBe(stored.length);
    expect([...first.problems, ...second.problems]).toEqual([]);
    await closeContext(second.context);
  }, 180_000);

  it('leaving the test (window unfocused, then page hidden) past the threshold gives critical left_test flags', async () => {
    const t = await takeTest('wanderer');
    // Playwright makes every page believe it has focus; turn that off so another tab really takes it.
    const cdp = await t.context.newCDPSession(t.page);
    await cdp.send('Emulation.setFocusEmulationEnabled', { enabled: false });
    const other = await t.context.newPage();
    await other.bringToFront();
    expect(await t.page.evaluate(() => document.hasFocus())).toBe(false);
    await t.page.waitForTimeout(5_000);
    await t.page.bringToFront();
    const first = await until('a critical left_test flag', async () => (await report(rig, t.assignmentId)).flags.find((f) => f.kind === 'left_test' && f.severity === 'critical'), 30_000);
    expect(first.durationSeconds).toBeGreaterThanOrEqual(RULES.leftTestSeconds);
    await until('the absence to end', async () => (await report(rig, t.assignmentId)).flags.find((f) => f.id === first.id && !f.ongoing), 30_000);

    // Headless Chromium keeps every tab "visible", so the hidden page is played by the document itself.
    await t.page.evaluate(() => {
      Object.defineProperty(document, 'visibilityState', { configurable: true, get: () => 'hidden' });
      document.dispatchEvent(new Event('visibilitychange'));
    });
    await t.page.waitForTimeout(4_500);
    await t.page.evaluate(() => {
      delete (document as unknown as { visibilityState?: string }).visibilityState;
      document.dispatchEvent(new Event('visibilitychange'));
    });
    await until('a second critical left_test flag', async () => {
      const flags = (await report(rig, t.assignmentId)).flags.filter((f) => f.kind === 'left_test' && f.severity === 'critical' && !f.ongoing);
      return flags.length >= 2 && flags;
    }, 30_000);
    // A glance away shorter than a second is not reported at all.
    await other.bringToFront();
    await t.page.waitForTimeout(300);
    await t.page.bringToFront();
    await t.page.waitForTimeout(3_000);
    expect((await report(rig, t.assignmentId)).flags.filter((f) => f.kind === 'left_test')).toHaveLength(2);
    expect(t.problems).toEqual([]);
    await closeContext(t.context);
  }, 180_000);

  it('copy and paste in an answer, and leaving full screen after entering it, become flags (nothing is blocked)', async () => {
    const t = await takeTest('clipboard');
    const box = t.page.getByRole('group', { name: /mean of 2, 4 and 9/ }).getByRole('textbox');
    await box.fill('5.0');
    await box.selectText();
    await t.page.keyboard.press('Control+C');
    await t.page.keyboard.press('Control+V');
    await t.page.keyboard.press('Control+V'); // the same burst: one signal
    await until('a copy_paste flag', async () => (await report(rig, t.assignmentId)).flags.find((f) => f.kind === 'copy_paste'), 20_000);
    expect(await box.inputValue()).toBe('5.05.0'); // pasting worked: over the selection, then once more

    await t.page.getByRole('button', { name: 'Enter full screen' }).click();
    await until('full screen', async () => t.page.evaluate(() => document.fullscreenElement !== null), 10_000, 100);
    // The page hides its button on `fullscreenchange`, which Chromium fires a moment after fullscreenElement is set.
    await until('the button hidden in full screen', async () => t.page.getByRole('button', { name: 'Enter full screen' }).isHidden(), 5_000, 50);
    expect(await t.page.getByRole('button', { name: 'Enter full screen' }).isHidden()).toBe(true);
    await t.page.evaluate(() => document.exitFullscreen());
    await until('a fullscreen_exit flag', async () => (await report(rig, t.assignmentId)).flags.find((f) => f.kind === 'fullscreen_exit'), 20_000);
    expect(await t.page.getByRole('button', { name: 'Enter full screen' }).isVisible()).toBe(true);
    const flags = (await report(rig, t.assignmentId)).flags;
    expect(flags.filter((f) => f.kind === 'copy_paste')).toHaveLength(1);
    expect(flags.filter((f) => f.severity === 'critical')).toEqual([]);
    expect(t.problems).toEqual([]);
    await closeContext(t.context);
  }, 180_000);

  it('the camera stopping: a camera_stopped flag, a warning that explains it, answering goes on, and the camera can be turned back on', async () => {
    const t = await takeTest('camera-off');
    await t.page.locator('#proctor-video').evaluate((v: HTMLVideoElement) => {
      const track = (v.srcObject as MediaStream).getVideoTracks()[0]!;
      track.stop(); // stop() by the page fires no event; a camera unplugged or revoked fires "ended"
      track.dispatchEvent(new Event('ended'));
    });
    const indicator = t.page.locator('#recording-indicator');
    await until('the indicator to say so', async () => (await indicator.textContent()) === 'Camera off', 10_000, 100);
    const message = t.page.getByRole('alert').filter({ hasText: 'Your camera stopped' });
    expect(await message.textContent()).toContain('Your answers are still saved: keep working.');
    expect(await seriousAxeViolations(t.page)).toEqual([]);
    const flag = await until('a critical camera_stopped flag', async () => (await report(rig, t.assignmentId)).flags.find((f) => f.kind === 'camera_stopped' && f.severity === 'critical'), 30_000);

    await t.page.getByRole('group', { name: /mean of 2, 4 and 9/ }).getByRole('textbox').fill('5');
    await until('the save', async () => (await t.page.locator('#save-status').textContent()) === 'Saved', 20_000, 200);

    await t.page.getByRole('button', { name: 'Turn the camera back on' }).click();
    await until('recording again', async () => (await indicator.textContent()) === 'Recording', 20_000, 100);
    expect(await t.page.getByRole('status').filter({ hasText: 'Your camera is back on.' }).count()).toBe(1);
    await until('the flag to end', async () => (await report(rig, t.assignmentId)).flags.find((f) => f.id === flag.id && !f.ongoing), 30_000);
    await submit(t.page);
    expect(t.problems).toEqual([]);
    await closeContext(t.context);
  }, 180_000);
  it('a recorder stopped before its first frame hands over nothing to upload; one that recorded a frame hands over a file that plays', async () => {
    const { context, page } = await studentPage(await rig.browser('one_face'), { timings: TIMINGS });
    await page.goto(`${rig.origin}/assets/proctoring/proctor-watch.js`); // a document on the app's origin, to import the page's module
    // A string, not a function: the test runner would rewrite a function's import() for Node.
    const handed: { idle: number[]; drawn: number[] } = await page.evaluate(`(async () => {
      const { createRecorder } = await import('/assets/proctoring/proctor-watch.js');
      // A canvas stream yields a frame only when drawn on: nothing drawn is a camera that has not delivered yet.
      const canvas = document.createElement('canvas');
      canvas.width = 320;
      canvas.height = 240;
      const stream = canvas.captureStream(5);
      const idle = [];
      await createRecorder(stream, 60000, async (seg) => void idle.push(seg.blob.size)).stop();
      const drawn = [];
      const g = canvas.getContext('2d');
      const paint = setInterval(() => g.fillRect(0, 0, Math.random() * 320, 240), 100);
      const recorder = createRecorder(stream, 60000, async (seg) => void drawn.push(seg.blob.size));
      await new Promise((r) => setTimeout(r, 1000));
      await recorder.stop();
      clearInterval(paint);
      return { idle, drawn };
    })()`);
    expect(handed.idle).toEqual([]);
    expect(handed.drawn).toHaveLength(1);
    expect(handed.drawn[0]).toBeGreaterThan(200);
    await closeContext(context);
  }, 60_000);
});
