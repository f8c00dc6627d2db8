import { describe, expect, it } from 'vitest';
import { introPage } from './intro-page.js';
import type { ProctoringPageState } from './proctoring-parts.js';
import { testPage } from './test-page.js';
import type { TestVersion } from '../../catalog/tests-service.js';
import { pageProctoringState, pageTestVersion } from '../../../../test/helpers/student-pages.js';

// The markup behind the live warnings of proctored tests (issue 20): the consent page says warnings will
// appear and when, and the test page has its live regions in the sticky status bar from the start. What
// the student sees and hears in a real browser is test/browser/proctoring-live-warnings.test.ts.

const state = (mode: ProctoringPageState['mode'], rules: object): ProctoringPageState => pageProctoringState({ mode, rules });

const version = (proctoring: TestVersion['proctoring']) => pageTestVersion(proctoring);

const intro = (mode: ProctoringPageState['mode'], rules: object = { noFaceSeconds: 10 }) =>
  introPage({ assignmentId: 'asg_1', institutionName: 'Northfield', test: version(mode), csrfToken: 'c', dueAt: null, proctoring: state(mode, rules) });

const text = (html: string) => html.replace(/<[^>]+>/g, '').replace(/\s+/g, ' ');

describe('the consent page of a proctored test', () => {
  it('says, for live_ai, that a message tells the student at once, and when: warned at half the no-face threshold, flagged at it', () => {
    const page = text(intro('live_ai', { noFaceSeconds: 10 }));
    expect(page).toContain(
      'If your face is out of view, someone else is in view, or the camera stops, a message on this page tells you at once what was noticed and what to do, and again when it is resolved. It never stops you answering.',
    );
    expect(page).toContain('If your face is out of view for 5 seconds, you are warned; from 10 seconds it is flagged for a reviewer.');
    expect(page).toContain('If you leave the test page, this is recorded; when you come back, the page says for how long you were away.');
  });

  it("uses the test's own threshold", () => {
    expect(text(intro('live_ai', { noFaceSeconds: 15 }))).toContain('out of view for 7.5 seconds, you are warned; from 15 seconds it is flagged');
  });

  it('speaks only of the camera for a record test, which has no face check', () => {
    const page = text(intro('record'));
    expect(page).toContain('If the camera stops, a message on this page tells you at once');
    expect(page).not.toContain('face is out of view');
  });

  it('puts the camera before the consent text, so a phone shows it on the first screen', () => {
    const page = intro('live_ai');
    expect(page.indexOf('id="camera-preview"')).toBeGreaterThan(0);
    expect(page.indexOf('id="camera-preview"')).toBeLessThan(page.indexOf('What is recorded, and why'));
  });
});

describe('the test page of a proctored test', () => {
  const page = (proctoring: TestVersion['proctoring']) =>
    testPage({
      assignmentId: 'asg_1',
      institutionName: 'Northfield',
      test: version(proctoring),
      csrfToken: 't',
      deadlineAt: new Date(Date.now() + 60_000),
      serverNow: new Date(),
      answers: [],
    });

  it('has an assertive region for warnings and a polite one for what is over, empty, inside the sticky status bar beside the camera thumbnail', () => {
    const html = page('live_ai');
    const bar = /<div class="status-bar">([\s\S]*?)\n<\/div>/.exec(html)![1]!;
    expect(bar).toContain('<div id="proctor-alert" class="proctor-alert" role="alert"></div>');
    expect(bar).toContain('<div id="proctor-notice" class="proctor-notice" role="status"></div>');
    expect(bar).toMatch(/<video id="proctor-video"[^>]*aria-hidden="true"><\/video>/);
    expect(html).toContain('If your face is out of view, a warning appears at the top.');
  });

  it('has no such regions without proctoring', () => {
    const html = page('none');
    expect(html).not.toContain('proctor-alert');
    expect(html).not.toContain('proctor-notice');
  });
});
