import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RELAXATIONS_TTL_MS } from '../../src/modules/proctoring/attempt-relaxations.js';
import { relaxedAway } from '../../src/modules/proctoring/rules.js';
import { detailFields, expectError } from '../helpers/expect-error.js';
import { assignmentBody, createHarness, manualClock, type Harness } from '../helpers/harness.js';
import { flagsOf, Proctored, proctoredTest, signal } from '../helpers/proctoring.js';
import { assign, createPublishedTest, Student } from '../helpers/student.js';

/**
 * Per-assignment proctoring relaxations end to end: granted only where the operator allowed them, carried
 * to the page's state and markup, and honoured by the heartbeat (relaxed signals never become flags,
 * whatever the page sends), also when granted while the attempt runs.
 */
const clock = manualClock(new Date('2031-06-01T09:00:00.000Z'));
const P = '/api/partner/v1';
const RELAXED = { proctoring: { fullscreenRequired: false, copyPasteAllowed: true } };
let h: Harness;
let testId: string;

beforeAll(async () => {
  h = await createHarness({ clock });
  testId = await createPublishedTest(h, h.a, proctoredTest('record'));
});
afterAll(() => h.close());

const setAllowed = async (on: boolean) =>
  expect((await h.admin('PATCH', `/api/admin/v1/institutions/${h.a.institutionId}/settings`, { allowProctoringRelaxations: on })).statusCode).toBe(200);

/** Assigns the proctored test (with these accommodations), begins it, and loads the test page. */
async function running(externalUserId: string, accommodations?: unknown) {
  const a = await assign(h, h.a, { testId, externalUserId, ...(accommodations ? { accommodations } : {}) });
  const student = new Student(h);
  await student.start(a.startUrl);
  const page = await student.page(a.assignmentId);
  expect(page.statusCode).toBe(200);
  return { p: new Proctored(h, student, a.assignmentId), page: page.body };
}

const stateOf = (page: string) => JSON.parse(/<script type="application\/json" id="assay-state">(.*?)<\/script>/s.exec(page)![1]!);
const storedKinds = async (assignmentId: string) =>
  (await h.pool.query('SELECT kind FROM proctoring_flags WHERE assignment_id = $1 ORDER BY kind', [assignmentId])).rows.map((r) => r.kind as string);
const ago = (s: number) => new Date(clock.now().getTime() - s * 1000);
const browserSignals = (prefix: string) => [
  signal(`${prefix}-fs-0001`, 'fullscreen_exit', 4, ago(4)),
  signal(`${prefix}-cp-0001`, 'copy_paste', 0, ago(1), false),
  signal(`${prefix}-lt-0001`, 'left_test', 2, ago(2)),
];

describe('granting relaxations', () => {
  it('is refused while the institution setting is off (422), and nothing is created', async () => {
    await setAllowed(false);
    const before = (await h.pool.query('SELECT count(*)::int AS n FROM assignments')).rows[0].n;
    const res = await h.partner(h.a, 'POST', `${P}/assignments`, assignmentBody(h.a, { testId, externalUserId: 'refused-1', accommodations: RELAXED }));
    expectError(res, 422, 'proctoring_relaxation_not_allowed');
    expect(detailFields(res)).toEqual(['accommodations.proctoring']);
    expect((await h.pool.query('SELECT count(*)::int AS n FROM assignments')).rows[0].n).toBe(before);
  });
});

describe('the heartbeat', () => {
  it('ignores fullscreen_exit and copy_paste of a relaxed assignment, and still flags everything else', async () => {
    await setAllowed(true);
    const { p } = await running('relaxed-1', RELAXED);
    clock.advance(5_000);
    const flags = flagsOf(await p.heartbeat(browserSignals('r1')));
    expect(flags.map((f) => f.signalId)).toEqual(['r1-lt-0001']);
    expect(await storedKinds(p.assignmentId)).toEqual(['left_test']);
    // Also a camera_stopped: never relaxed per assignment.
    expect(flagsOf(await p.heartbeat([signal('r1-cam-0001', 'camera_stopped', 1, ago(1))]))[0]!.severity).toBe('critical');
    const summary = (await h.partner(h.a, 'GET', `${P}/assignments/${p.assignmentId}`)).json().proctoring.flags;
    expect(summary).toEqual({ critical: 1, warning: 0, info: 1 });
  });

  it('flags them as warnings for an assignment without relaxations', async () => {
    const { p } = await running('strict-1');
    clock.advance(5_000);
    const flags = flagsOf(await p.heartbeat(browserSignals('s1')));
    expect(flags.map((f) => [f.signalId, f.severity])).toEqual([
      ['s1-fs-0001', 'warning'],
      ['s1-cp-0001', 'warning'],
      ['s1-lt-0001', 'info'],
    ]);
    expect(await storedKinds(p.assignmentId)).toEqual(['copy_paste', 'fullscreen_exit', 'left_test']);
  });

  it('relaxes only what was granted: copy and paste allowed, full screen still watched', async () => {
    const { p } = await running('partial-1', { proctoring: { copyPasteAllowed: true } });
    clock.advance(5_000);
    expect(flagsOf(await p.heartbeat(browserSignals('p1'))).map((f) => f.signalId)).toEqual(['p1-fs-0001', 'p1-lt-0001']);
    expect(await storedKinds(p.assignmentId)).toEqual(['fullscreen_exit', 'left_test']);
  });

  it('applies a relaxation granted while the attempt runs within the cache time, and a setting switched off later does not take it back', async () => {
    const { p } = await running('midway-1');
    clock.advance(5_000);
    expect(flagsOf(await p.heartbeat([signal('m1-cp-0001', 'copy_paste', 0, ago(0), false)]))).toHaveLength(1);
    const patched = await h.partner(h.a, 'PATCH', `${P}/assignments/${p.assignmentId}`, { accommodations: RELAXED });
    expect(patched.statusCode, patched.body).toBe(200);
    await setAllowed(false);
    clock.advance(RELAXATIONS_TTL_MS);
    expect(flagsOf(await p.heartbeat([signal('m1-cp-0002', 'copy_paste', 0, ago(0), false), signal('m1-fs-0001', 'fullscreen_exit', 2, ago(2))]))).toEqual([]);
    expect(await storedKinds(p.assignmentId)).toEqual(['copy_paste']);
  });

  it('relaxedAway: only the two relaxable kinds, only when relaxed', () => {
    const strict = { fullscreenRequired: true, copyPasteAllowed: false };
    const relaxed = { fullscreenRequired: false, copyPasteAllowed: true };
    for (const kind of ['no_face', 'multiple_faces', 'left_test', 'camera_stopped', 'second_screen', 'proctoring_interrupted'] as const) {
      expect(relaxedAway(kind, relaxed)).toBe(false);
    }
    expect(relaxedAway('fullscreen_exit', strict)).toBe(false);
    expect(relaxedAway('copy_paste', strict)).toBe(false);
    expect(relaxedAway('fullscreen_exit', relaxed)).toBe(true);
    expect(relaxedAway('copy_paste', relaxed)).toBe(true);
  });
});

describe('the pages', () => {
  it('carry the effective relaxations in the state; a relaxed test page has no full-screen button', async () => {
    await setAllowed(true);
    const relaxed = await running('page-relaxed', RELAXED);
    expect(stateOf(relaxed.page).proctoring.relaxations).toEqual({ fullscreenRequired: false, copyPasteAllowed: true });
    expect(relaxed.page).not.toContain('id="proctor-fullscreen"');
    const strict = await running('page-strict');
    expect(stateOf(strict.page).proctoring.relaxations).toEqual({ fullscreenRequired: true, copyPasteAllowed: false });
    expect(strict.page).toContain('<button type="button" class="button" id="proctor-fullscreen" hidden>Enter full screen</button>');
  });

  it('the intro page says what is relaxed for this student', async () => {
    const a = await assign(h, h.a, { testId, externalUserId: 'intro-relaxed', accommodations: { proctoring: { fullscreenRequired: false } } });
    const student = new Student(h);
    expect((await student.open(a.startUrl)).statusCode).toBe(303);
    const intro = (await student.page(a.assignmentId)).body;
    expect(stateOf(intro).proctoring.relaxations).toEqual({ fullscreenRequired: false, copyPasteAllowed: false });
    expect(intro).toContain('Full screen is not required for you');
    expect(intro).not.toContain('leave full screen');
    expect(intro).toContain('copy or paste in an answer');
    expect(intro).not.toContain('Copy and paste are allowed for you');
  });
});
