import { describe, expect, it } from 'vitest';
import { completionPage } from './completion-page.js';
import { introPage } from './intro-page.js';
import type { ProctoringPageState } from './proctoring-parts.js';
import { testPage } from './test-page.js';
import type { TestVersion } from '../../catalog/tests-service.js';
import { pageProctoringState, pageTestVersion } from '../../../../test/helpers/student-pages.js';

// The page markup of proctored tests. The assets that serve their scripts are checked over HTTP in
// test/student/proctoring-assets.test.ts, the behaviour in a real browser (camera, recording, signals) in
// test/browser/proctoring-*.test.ts.

const PROCTORING: ProctoringPageState = pageProctoringState({ retentionDays: 45 });

const version = (proctoring: TestVersion['proctoring']) => pageTestVersion(proctoring, 'Exam <b>1</b>');

const intro = (proctoring: TestVersion['proctoring'], state: ProctoringPageState | null, institutionName = 'Northfield <University>') =>
  introPage({ assignmentId: 'asg_1', institutionName, test: version(proctoring), csrfToken: 'csrf-token', dueAt: null, proctoring: state });

const stateOf = (page: string) => JSON.parse(/<script type="application\/json" id="assay-state">(.*?)<\/script>/s.exec(page)![1]!);

describe('the intro page of a proctored test', () => {
  it('explains what is recorded, for how long, who sees it, and asks consent in the institution’s name', () => {
    const page = intro('live_ai', PROCTORING);
    expect(page).toContain('Video from your camera, without sound');
    expect(page).toContain('one face, and only one');
    expect(page).toContain('deleted 45 days after you submit');
    expect(page).toContain('Reviewers at Northfield &lt;University&gt;');
    expect(page).toContain('you agree that Northfield &lt;University&gt; records this test');
    expect(page).not.toContain('<University>');
  });

  it('renders Begin disabled, the preview and a status region, and loads only the camera check script', () => {
    const page = intro('record', { ...PROCTORING, mode: 'record' });
    expect(page).toMatch(/<button type="submit" class="button primary" id="begin-button" disabled aria-describedby="camera-status">Begin test<\/button>/);
    expect(page).toMatch(/<video id="camera-preview" muted playsinline/);
    expect(page).toMatch(/<p id="camera-status"[^>]*role="status"/);
    expect(page).toContain('<script type="module" src="/assets/proctoring/camera-check.js"></script>');
    expect(page).not.toContain('proctor.js');
    expect(page).not.toContain('one face, and only one'); // record mode does no face analysis
    expect(page).not.toContain('id="face-feedback"');
  });

  it('gives its script the assignment, the CSRF token and the proctoring state, as JSON that cannot close the element', () => {
    const page = intro('live_ai', { ...PROCTORING, rules: { note: '</script><script>alert(1)</script>' } });
    // The state block's and the module script's own, besides the page's messages and their formatter (every page has those).
    expect(page.match(/<\/script>/g)!.length).toBe(4);
    expect(page).toContain('<script type="module" src="/assets/i18n.js"></script>');
    const state = stateOf(page);
    expect(state).toMatchObject({ assignmentId: 'asg_1', csrfToken: 'csrf-token', proctoring: { mode: 'live_ai', retentionDays: 45 } });
  });

  it('keeps Begin disabled and says so when the proctoring state is missing', () => {
    const page = intro('record', null);
    expect(page).toContain('id="begin-button" disabled');
    expect(page).toContain('its camera check could not be set up');
    expect(page).not.toContain('camera-check.js');
  });

  it('is unchanged for a test without proctoring: Begin enabled, no camera, no script', () => {
    const page = intro('none', null);
    expect(page).toContain('<button type="submit" class="button primary" id="begin-button">Begin test</button>');
    expect(page).not.toContain('camera');
    expect([...page.matchAll(/<script type="module" src="([^"]+)"/g)].map((m) => m[1])).toEqual(['/assets/i18n.js']);
    expect(page).not.toContain('assay-state');
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
    } as Parameters<typeof testPage>[0]);

  it('has the Recording indicator, the supervision panel and the proctoring script', () => {
    const html = page('record');
    expect(html).toContain('id="recording-indicator"');
    expect(html).toMatch(/<p id="proctor-message" class="proctor-message" role="status">This test is recorded while you work.<\/p>/);
    expect(html).toContain('<script type="module" src="/assets/proctoring/proctor.js"></script>');
    expect(html).toContain('<script src="/assets/student.js" defer></script>');
  });

  it('has none of it without proctoring', () => {
    const html = page('none');
    expect(html).not.toContain('recording-indicator');
    expect(html).not.toContain('supervision');
    expect(html).not.toContain('proctor.js');
  });
});

describe('the completion page of a proctored test', () => {
  const page = (proctoring: TestVersion['proctoring'], state: ProctoringPageState | null) =>
    completionPage({
      institutionName: 'Northfield',
      test: version(proctoring),
      status: 'marking',
      submittedAt: new Date(),
      score: null,
      returnUrl: 'https://partner.example/back',
      assignmentId: 'asg_1',
      csrfToken: 'csrf-token',
      proctoring: state,
    });

  it('loads the script that sends what the browser still holds of the recording, with a status region', () => {
    const html = page('record', { ...PROCTORING, mode: 'record' });
    expect(html).toContain('<p id="upload-rest" class="hint" role="status" hidden></p>');
    expect(html).toContain('<script type="module" src="/assets/proctoring/upload-rest.js"></script>');
    expect(stateOf(html)).toEqual({ assignmentId: 'asg_1', csrfToken: 'csrf-token', directUploads: false });
  });

  it('tells the script to upload straight to the bucket when storage is S3', () => {
    const html = page('record', { ...PROCTORING, mode: 'record', directUploads: true });
    expect(stateOf(html)).toEqual({ assignmentId: 'asg_1', csrfToken: 'csrf-token', directUploads: true });
  });

  it('has no script but the page’s language (its messages and local times) without proctoring', () => {
    const html = page('none', null);
    expect(html).not.toContain('upload-rest');
    expect([...html.matchAll(/<script[^>]*>/g)].map((m) => m[0])).toEqual(['<script type="application/json" id="assay-messages">', '<script type="module" src="/assets/i18n.js">']);
  });
});
