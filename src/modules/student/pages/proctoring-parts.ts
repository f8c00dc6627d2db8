import { html, plural, type SafeHtml } from '../../../platform/web/html.js';
import type { ProctoredMode } from '../../catalog/test-settings.js';

/**
 * What a proctored test's pages tell their scripts (the `proctoring` member of
 * the page's `assay-state` JSON). The server resolves the thresholds; the page
 * only reports what it sees and never decides a severity.
 */
export interface ProctoringPageState {
  mode: ProctoredMode;
  /** The test's resolved thresholds (sent for transparency; the server applies them). */
  rules: object;
  heartbeatMs: number;
  segmentMs: number;
  snapshotEveryMs: number;
  /** Where the face-detection model files are served, with a trailing slash. */
  modelBase: string;
  /** Recordings, snapshots and flags are deleted this many days after submission. */
  retentionDays: number;
  /** The assignment's effective proctoring relaxations; absent means the strict defaults. */
  relaxations?: { fullscreenRequired: boolean; copyPasteAllowed: boolean };
  /** Storage is S3: the recording is PUT straight to the bucket (absent means through the API). */
  directUploads?: boolean;
}

const STRICT = { fullscreenRequired: true, copyPasteAllowed: false };

export const PROCTOR_SCRIPT = '/assets/proctoring/proctor.js';
export const CAMERA_CHECK_SCRIPT = '/assets/proctoring/camera-check.js';
export const UPLOAD_REST_SCRIPT = '/assets/proctoring/upload-rest.js';

/**
 * The intro page's check step: what is recorded and why, how long it is kept,
 * who sees it, the consent sentence naming the institution, and the camera
 * preview whose script (camera-check.js) enables Begin once the camera works.
 */
export function cameraCheckStep(p: { proctoring: ProctoringPageState; institutionName: string }): SafeHtml {
  const who = p.institutionName || 'the institution';
  const live = p.proctoring.mode === 'live_ai';
  const { fullscreenRequired, copyPasteAllowed } = p.proctoring.relaxations ?? STRICT;
  // The list says only what is recorded for this student: a relaxed signal is neither sent nor flagged.
  const moments = [
    'leave the test page or window',
    ...(fullscreenRequired ? ['leave full screen'] : []),
    ...(copyPasteAllowed ? [] : ['copy or paste in an answer']),
    'when the camera stops',
  ].join(', ');
  const noticed = live ? 'your face is out of view, someone else is in view, or the camera stops' : 'the camera stops';
  // The test page warns at half the threshold, when the server's flag turns `warning` (proctor.js).
  const noFace = thresholdSeconds(p.proctoring.rules, 'noFaceSeconds', 10);
  return html`<section class="camera-check" aria-labelledby="check-title">
<h2 id="check-title">Before you begin: supervision and camera check</h2>
<p>This test is supervised. ${who} asks for your camera to be on while you take it.</p>
<div class="check-grid">
<div class="camera-column">
<h3 id="preview-title">Your camera</h3>
<div class="camera-preview">
  <video id="camera-preview" muted playsinline aria-labelledby="preview-title" data-state="off"></video>
  <p class="camera-placeholder" id="camera-placeholder" aria-hidden="true">No picture yet</p>
</div>
<p id="camera-status" class="camera-status" role="status" data-state="checking" tabindex="-1">Starting your camera… If your browser asks, choose Allow.</p>
${live ? html`<p id="face-feedback" class="face-feedback" aria-live="polite"></p>` : ''}
<div id="camera-help" class="camera-help" hidden>
  <p id="camera-problem" class="camera-problem">What you can do</p>
  <ul id="camera-steps">
    <li>Allow the camera for this site: select the camera or lock icon next to the address, set Camera to Allow, then select Try again.</li>
    <li>Close other apps that may be using the camera (video calls, for example).</li>
    <li>No camera on this device? Open your test link on another device that has one, such as a laptop with a webcam.</li>
  </ul>
  <button type="button" class="button" id="camera-retry">Try again</button>
</div>
</div>
<div class="consent">
<h3>What is recorded, and why</h3>
<ul>
  <li>Video from your camera, without sound, at low resolution, and a still picture about every minute.</li>
  ${live ? html`<li>While you work, this browser checks that one face, and only one, is in view. That check runs on your device; only its findings are sent.</li>` : ''}
  <li>Moments when you ${moments}, and whether a second screen is connected.</li>
  <li>Nothing else: no sound, no keystrokes, no pictures of your screen.</li>
</ul>
${!fullscreenRequired || copyPasteAllowed ? html`<div class="accommodation" id="proctoring-accommodations">
<p><strong>Your accommodations</strong>, arranged by ${who}:</p>
<ul>
  ${fullscreenRequired ? '' : html`<li>Full screen is not required for you: you are not asked to use it, and leaving it is not recorded.</li>`}
  ${copyPasteAllowed ? html`<li>Copy and paste are allowed for you (for dictation or text-to-speech tools, for example): they are not recorded.</li>` : ''}
</ul>
</div>` : ''}
<p>This lets ${who} check that the test was taken fairly. Nothing recorded changes your answers or your score by itself:
a person at ${who} reviews anything that was flagged.</p>
<h3>While you take the test</h3>
<ul id="warnings-explained">
  <li>If ${noticed}, a message on this page tells you at once what was noticed and what to do, and again when it is resolved. It never stops you answering.</li>
  ${live ? html`<li>If your face is out of view for ${plural(noFace / 2, 'second')}, you are warned; from ${plural(noFace, 'second')} it is flagged for a reviewer.</li>` : ''}
  <li>If you leave the test page, this is recorded; when you come back, the page says for how long you were away.</li>
</ul>
<h3>How long it is kept</h3>
<p>The recording, the pictures and the findings are deleted ${plural(p.proctoring.retentionDays, 'day')} after you submit.</p>
<h3>Who sees it</h3>
<p>Reviewers at ${who}. Assay, the service that delivers this test for ${who}, stores it for them and shares it with no one else.</p>
<p class="consent-statement">By selecting <strong>Begin test</strong>, you agree that ${who} records this test as described above.
If you do not agree, do not begin: contact ${who} about other arrangements.</p>
</div>
</div>
<noscript><p class="notice">The camera check needs JavaScript. Turn JavaScript on and reload this page.</p></noscript>
</section>`;
}

/**
 * The test page's small "Recording" indicator, for the sticky status bar, with a thumbnail of what the
 * camera sends: beside the timer, where the student looks, so they can see whether their face is in view.
 */
export function recordingIndicator(): SafeHtml {
  return html`<p class="recording-indicator" id="recording-indicator" data-state="starting"><video id="proctor-video" class="proctor-video" muted playsinline aria-hidden="true"></video><span class="recording-dot" aria-hidden="true"></span><span id="recording-text">Camera starting</span></p>`;
}

/**
 * The live regions that tell the student, as it happens, what supervision noticed (proctor-notices.js), for
 * the sticky status bar so they show however far the student has scrolled. Empty (and taking no space)
 * until there is something to say; in the page from the start, so screen readers announce what is put in.
 * Warnings are assertive (they ask for an action within seconds, before a flag turns critical); what is
 * over is polite.
 */
export function supervisionNotices(): SafeHtml {
  return html`<div class="proctor-notices"><div id="proctor-alert" class="proctor-alert" role="alert"></div><div id="proctor-notice" class="proctor-notice" role="status"></div></div>`;
}

/**
 * The test page's supervision panel: what is watched, a polite status line for
 * the camera's state, the button that turns a stopped camera back on, and the
 * optional full-screen button. Nothing here blocks answering.
 */
export function supervisionPanel(mode: ProctoringPageState['mode'], relaxations: ProctoringPageState['relaxations'] = STRICT): SafeHtml {
  const live = mode === 'live_ai';
  // No full-screen button when full screen is not required: nothing to offer, nothing watched.
  return html`<section class="supervision" aria-labelledby="supervision-title" data-mode="${mode}">
<h2 id="supervision-title" class="sr-only">Supervision</h2>
<div class="supervision-body">
  <p id="proctor-message" class="proctor-message" role="status">${live ? 'This test is recorded and checked for your face while you work. If your face is out of view, a warning appears at the top.' : 'This test is recorded while you work.'}</p>
  <div class="supervision-actions">
    <button type="button" class="button" id="proctor-camera-retry" hidden>Turn the camera back on</button>
    ${relaxations.fullscreenRequired ? html`<button type="button" class="button" id="proctor-fullscreen" hidden>Enter full screen</button>` : ''}
  </div>
</div>
</section>`;
}

/** One of the test's resolved thresholds from the page state (typed loosely there: the server applies them). */
function thresholdSeconds(rules: object, key: string, fallback: number): number {
  const v = (rules as Record<string, unknown>)[key];
  return typeof v === 'number' && Number.isFinite(v) && v > 0 ? v : fallback;
}
