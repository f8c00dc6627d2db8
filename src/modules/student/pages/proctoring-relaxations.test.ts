import { describe, expect, it } from 'vitest';
import { introPage } from './intro-page.js';
import type { ProctoringPageState } from './proctoring-parts.js';
import { testPage } from './test-page.js';
import { proctoringPageState } from '../../proctoring/page-state.js';
import type { TestVersion } from '../../catalog/tests-service.js';
import { pageTestVersion } from '../../../../test/helpers/student-pages.js';

// The markup and state of proctored pages for an assignment with proctoring relaxations (accommodations).
// What the page's script does with them in a browser is proctor-watch.js's; the server's side is in
// test/proctoring/relaxations.test.ts.

const STRICT = { fullscreenRequired: true, copyPasteAllowed: false };
const RELAXED = { fullscreenRequired: false, copyPasteAllowed: true };

const version = (proctoring: TestVersion['proctoring']) => pageTestVersion(proctoring);

const state = (relaxations: ProctoringPageState['relaxations']) =>
  proctoringPageState(version('record'), { proctoringRetentionDays: 30 }, relaxations ?? STRICT) as ProctoringPageState;
const intro = (s: ProctoringPageState) =>
  introPage({ assignmentId: 'asg_1', institutionName: 'Northfield', test: version('record'), csrfToken: 'c', dueAt: null, proctoring: s });
const test = (s: ProctoringPageState | null, proctoring: TestVersion['proctoring'] = 'record') =>
  testPage({ assignmentId: 'asg_1', institutionName: 'Northfield', test: version(proctoring), csrfToken: 't', deadlineAt: new Date(Date.now() + 60_000), serverNow: new Date(), answers: [], proctoring: s });
const stateOf = (page: string) => JSON.parse(/<script type="application\/json" id="assay-state">(.*?)<\/script>/s.exec(page)![1]!);
const FULLSCREEN_BUTTON = '<button type="button" class="button" id="proctor-fullscreen" hidden>Enter full screen</button>';

describe('proctoringPageState', () => {
  it('carries the effective relaxations, and nothing for a test without proctoring', () => {
    expect(state(RELAXED).relaxations).toEqual(RELAXED);
    expect(state(STRICT).relaxations).toEqual(STRICT);
    expect(proctoringPageState(version('none'), { proctoringRetentionDays: 30 }, RELAXED)).toBeNull();
  });
});

describe('the intro page (check step) with relaxations', () => {
  it('names both accommodations and leaves them out of what is recorded', () => {
    const page = intro(state(RELAXED));
    expect(stateOf(page).proctoring.relaxations).toEqual(RELAXED);
    expect(page).toContain('id="proctoring-accommodations"');
    expect(page).toContain('Full screen is not required for you');
    expect(page).toContain('Copy and paste are allowed for you');
    expect(page).toContain('Moments when you leave the test page or window, when the camera stops, and whether a second screen is connected.');
  });

  it('names only what is relaxed', () => {
    const page = intro(state({ fullscreenRequired: true, copyPasteAllowed: true }));
    expect(page).not.toContain('Full screen is not required for you');
    expect(page).toContain('Copy and paste are allowed for you');
    expect(page).toContain('Moments when you leave the test page or window, leave full screen, when the camera stops');
  });

  it('says nothing of accommodations without relaxations (and without the state member, as before)', () => {
    for (const s of [state(STRICT), { ...state(STRICT), relaxations: undefined }]) {
      const page = intro(s);
      expect(page).not.toContain('proctoring-accommodations');
      expect(page).not.toContain('not required for you');
      expect(page).toContain('Moments when you leave the test page or window, leave full screen, copy or paste in an answer, when the camera stops');
    }
  });
});

describe('the test page with relaxations', () => {
  it('has no full-screen button when full screen is not required, and gives proctor.js the relaxations', () => {
    const page = test(state(RELAXED));
    expect(page).not.toContain('id="proctor-fullscreen"');
    expect(stateOf(page).proctoring.relaxations).toEqual(RELAXED);
    expect(page).toContain('<script type="module" src="/assets/proctoring/proctor.js"></script>');
  });

  it('keeps the button (hidden until the script offers it) when full screen is required', () => {
    expect(test(state({ fullscreenRequired: true, copyPasteAllowed: true }))).toContain(FULLSCREEN_BUTTON);
    expect(test(state(STRICT))).toContain(FULLSCREEN_BUTTON);
    expect(test(null)).toContain(FULLSCREEN_BUTTON); // no state: the strict defaults
  });
});
