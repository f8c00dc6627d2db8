import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Scene } from './fake-camera.js';
import { HOOK, assignTo, beginProctored, canRun, openRig, proctoredTest, publish, report, requireCameraTools, studentPage, until, type Rig } from './proctoring-rig.js';
import { closeContext } from './browser-env.js';

/**
 * live_ai in Chromium with a fake camera playing photographs: on-device face detection turns an empty
 * scene into a critical no_face flag (with its evidence picture and a signed violation.detected webhook),
 * two faces into multiple_faces, and one face into nothing critical. Short thresholds keep it quick.
 */
requireCameraTools();

const RULES = { noFaceSeconds: 3, multipleFacesSeconds: 3, leftTestSeconds: 30, leftTestCount: 10 };

describe.skipIf(!canRun)('live_ai face detection in the browser', () => {
  let rig: Rig;
  let testId: string;

  beforeAll(async () => {
    rig = await openRig('Northfield University');
    testId = await publish(rig, proctoredTest('live_ai', RULES));
  }, 90_000);
  afterAll(() => rig?.close());

  async function takeTest(scene: Scene, who: string) {
    const browser = await rig.browser(scene);
    const { context, page, problems } = await studentPage(browser, { timings: { heartbeatMs: 2000 } });
    const a = await assignTo(rig, testId, who);
    await beginProctored(page, a.startUrl, { timings: true });
    return { context, page, problems, assignmentId: a.assignmentId };
  }

  it('an empty scene: a critical no_face flag with its evidence picture, and a verified violation.detected webhook', async () => {
    const t = await takeTest('empty', 'nobody-there');
    const flag = await until(
      'a critical no_face flag with evidence',
      async () => (await report(rig, t.assignmentId)).flags.find((f) => f.kind === 'no_face' && f.severity === 'critical' && f.evidence.snapshot),
      90_000,
    );
    expect(flag.durationSeconds).toBeGreaterThanOrEqual(RULES.noFaceSeconds);
    const r = await report(rig, t.assignmentId);
    expect(r.snapshots.some((s) => s.flagId === flag.id)).toBe(true);
    expect(r.flags.filter((f) => f.kind === 'multiple_faces')).toEqual([]);

    await rig.rx.waitFor(
      () => rig.rx.received.some((x) => x.path === HOOK && x.json.type === 'violation.detected' && x.json.data.partnerAssignmentId === t.assignmentId),
      30_000,
      'violation.detected',
    );
    const hooks = rig.rx.received.filter((x) => x.json.type === 'violation.detected' && x.json.data.partnerAssignmentId === t.assignmentId);
    expect(hooks.every((x) => x.verifiedWith[0] === true)).toBe(true);
    const noFace = hooks.filter((x) => x.json.data.violation.kind === 'no_face');
    // One event per critical flag (a redelivery keeps its webhook-id and event id).
    expect(new Set(noFace.map((x) => x.json.id)).size).toBe(new Set(noFace.map((x) => x.json.data.violation.id)).size);
    expect(noFace[0]!.json.data.violation).toMatchObject({ id: flag.id, kind: 'no_face', severity: 'critical' });
    // The student is not interrupted: answering and saving still work.
    await t.page.getByRole('group', { name: /mean of 2, 4 and 9/ }).getByRole('textbox').fill('5');
    await until('the save', async () => (await t.page.locator('#save-status').textContent()) === 'Saved', 20_000, 200);
    expect(t.problems).toEqual([]);
    await closeContext(t.context);
  }, 180_000);

  it('two faces: a critical multiple_faces flag', async () => {
    const t = await takeTest('two_faces', 'two-people');
    const flag = await until(
      'a critical multiple_faces flag',
      async () => (await report(rig, t.assignmentId)).flags.find((f) => f.kind === 'multiple_faces' && f.severity === 'critical'),
      90_000,
    );
    expect(flag.durationSeconds).toBeGreaterThanOrEqual(RULES.multipleFacesSeconds);
    expect((await report(rig, t.assignmentId)).flags.filter((f) => f.kind === 'no_face' && f.severity === 'critical')).toEqual([]);
    expect(t.problems).toEqual([]);
    await closeContext(t.context);
  }, 180_000);

  it('one face over the test: no critical flag, and no face flag lasting past its threshold', async () => {
    const t = await takeTest('one_face', 'just-me');
    const startedAt = Date.now();
    // Long enough for at least 20 detections after the detector's first (slow) run.
    await t.page.waitForTimeout(25_000);
    await t.page.getByRole('group', { name: /mean of 2, 4 and 9/ }).getByRole('textbox').fill('5');
    await t.page.getByRole('button', { name: 'Submit test' }).click();
    await t.page.getByRole('button', { name: 'Submit', exact: true }).click();
    await t.page.getByRole('heading', { name: 'Your result' }).waitFor({ timeout: 30_000 });
    const r = await report(rig, t.assignmentId);
    expect(r.summary.critical).toBe(0);
    expect(r.flags.filter((f) => (f.kind === 'no_face' || f.kind === 'multiple_faces') && f.durationSeconds >= RULES.noFaceSeconds)).toEqual([]);
    expect(r.recording.segmentCount).toBeGreaterThanOrEqual(2);
    expect(Date.now() - startedAt).toBeGreaterThan(25_000);
    expect(t.problems).toEqual([]);
    await closeContext(t.context);
  }, 180_000);
});
