import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_TOKEN } from '../helpers/harness.js';
import { seriousAxeViolations, closeContext } from './browser-env.js';
import { beginProctored, canRun, proctoredTest, publish, report, requireCameraTools, studentPage, until, type Rig, openRig } from './proctoring-rig.js';

/**
 * A student whose assignment relaxes proctoring (full screen not required, copy and paste allowed), in
 * Chromium with a fake camera: the check step says so, the test page offers no full screen, and the page
 * itself sends no copy_paste or fullscreen_exit signal (the server would ignore them anyway; this checks
 * the page), while leaving the test is still reported.
 */
requireCameraTools();

describe.skipIf(!canRun)('proctoring relaxations in the browser', () => {
  let rig: Rig;
  let testId: string;

  beforeAll(async () => {
    rig = await openRig('Northfield University');
    testId = await publish(rig, proctoredTest('record', { leftTestSeconds: 3, leftTestCount: 10 }));
    const on = await rig.app().inject({
      method: 'PATCH',
      url: `/api/admin/v1/institutions/${rig.tenant.institutionId}/settings`,
      headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
      payload: JSON.stringify({ allowProctoringRelaxations: true }),
    });
    expect(on.statusCode, on.body).toBe(200);
  }, 90_000);
  afterAll(() => rig?.close());

  it('no full-screen button, no copy_paste signal, the accommodation on the check step; the rest is still watched', async () => {
    const res = await rig.app().inject({
      method: 'POST',
      url: '/api/partner/v1/assignments',
      headers: { authorization: `Bearer ${rig.tenant.apiKey}`, 'content-type': 'application/json' },
      payload: JSON.stringify({
        testId,
        externalUserId: 'relaxed',
        user: { email: 'relaxed@example.org' },
        callbackUrl: 'https://localhost/back',
        accommodations: { proctoring: { fullscreenRequired: false, copyPasteAllowed: true } },
      }),
    });
    expect(res.statusCode, res.body).toBe(201);
    const a = res.json();
    const { context, page, problems } = await studentPage(await rig.browser('one_face'), { timings: { heartbeatMs: 1000 } });
    const sentKinds = new Set<string>();
    page.on('request', (r) => {
      if (r.method() === 'POST' && r.url().endsWith('/proctoring/heartbeat')) for (const s of JSON.parse(r.postData() ?? '{}').signals ?? []) sentKinds.add(s.kind);
    });

    await page.goto(a.startUrl);
    await page.getByText('Full screen is not required for you').waitFor();
    await page.getByText('Copy and paste are allowed for you').waitFor();
    expect(await seriousAxeViolations(page)).toEqual([]);
    await beginProctored(page, a.startUrl, { timings: true });

    expect(await page.locator('#proctor-fullscreen').count()).toBe(0);
    const box = page.getByRole('group', { name: /mean of 2, 4 and 9/ }).getByRole('textbox');
    await box.fill('5.0');
    await box.selectText();
    await page.keyboard.press('Control+C');
    await page.keyboard.press('Control+V');
    // Leaving the test is not relaxed: it is still reported, and the heartbeats carrying it went out meanwhile.
    await page.evaluate(() => {
      Object.defineProperty(document, 'visibilityState', { value: 'hidden', configurable: true });
      document.dispatchEvent(new Event('visibilitychange'));
    });
    await until('a left_test flag', async () => (await report(rig, a.assignmentId)).flags.find((f) => f.kind === 'left_test'), 20_000);
    expect(sentKinds.has('left_test')).toBe(true);
    expect(sentKinds.has('copy_paste')).toBe(false);
    expect(sentKinds.has('fullscreen_exit')).toBe(false);
    expect(await box.inputValue()).toBe('5.0'); // pasting still works
    expect((await report(rig, a.assignmentId)).flags.map((f) => f.kind)).toEqual(['left_test']);
    expect(problems).toEqual([]);
    await closeContext(context);
  }, 180_000);
});
