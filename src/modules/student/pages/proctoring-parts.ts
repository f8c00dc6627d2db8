import { englishTranslator, type MessageKey, type MessageValues, type Translator } from '../../../platform/i18n/catalogue.js';
import { html, type SafeHtml } from '../../../platform/web/html.js';
import { richMessage } from './rich-message.js';
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
 * The messages the proctoring scripts show or announce, sent with the page that loads them so the browser
 * formats them in the candidate's language (assets/i18n.js, loaded first). The intro page's camera check
 * (camera-check.js, proctor-camera.js):
 */
export const CAMERA_CHECK_CLIENT_MESSAGES = [
  'proctoring.cameraProblem.ended',
  'proctoring.cameraProblem.noRecorder',
  'proctoring.cameraProblem.notAllowed',
  'proctoring.cameraProblem.notFound',
  'proctoring.cameraProblem.notReadable',
  'proctoring.cameraProblem.notSupported',
  'proctoring.cameraProblem.unknown',
  'proctoring.check.checkConnection',
  'proctoring.check.faceDetectionFailed',
  'proctoring.check.faceMany',
  'proctoring.check.faceNone',
  'proctoring.check.faceOne',
  'proctoring.check.failed',
  'proctoring.check.loadingFaces',
  'proctoring.check.ready',
  'proctoring.check.starting',
  'proctoring.check.whatYouCanDo',
] as const satisfies readonly MessageKey[];

/** The test page's supervision (proctor.js and proctor-notices.js). */
export const PROCTORING_CLIENT_MESSAGES = [
  'proctoring.cameraStopped.ended',
  'proctoring.cameraStopped.noRecorder',
  'proctoring.cameraStopped.notAllowed',
  'proctoring.cameraStopped.notFound',
  'proctoring.cameraStopped.notReadable',
  'proctoring.cameraStopped.notSupported',
  'proctoring.cameraStopped.unknown',
  'proctoring.indicator.off',
  'proctoring.indicator.recording',
  'proctoring.indicator.starting',
  'proctoring.indicator.uploadsWaiting',
  'proctoring.indicator.watching',
  'proctoring.notice.joined',
  'proctoring.notice.noteLabel',
  'proctoring.notice.resolvedLabel',
  'proctoring.notice.warningLabel',
  'proctoring.test.cameraBack',
  'proctoring.test.cameraMuted',
  'proctoring.test.cameraMutedTodo',
  'proctoring.test.cameraOffMessage',
  'proctoring.test.cameraOffTodo',
  'proctoring.test.cameraUnmuted',
  'proctoring.test.faceBack',
  'proctoring.test.faceDetectionFailed',
  'proctoring.test.leftPage',
  'proctoring.test.manyFaces',
  'proctoring.test.manyFacesTodo',
  'proctoring.test.noFace',
  'proctoring.test.noFaceTodo',
  'proctoring.test.noRecorder',
  'proctoring.test.onlyFaceBack',
] as const satisfies readonly MessageKey[];

/** The completion page's upload of what the browser still holds of the recording (upload-rest.js). */
export const UPLOAD_REST_CLIENT_MESSAGES = ['proctoring.uploadRest.sending', 'proctoring.uploadRest.sent', 'proctoring.uploadRest.waiting'] as const satisfies readonly MessageKey[];

/**
 * The intro page's check step: what is recorded and why, how long it is kept,
 * who sees it, the consent sentence naming the institution, and the camera
 * preview whose script (camera-check.js) enables Begin once the camera works.
 * Every sentence naming the institution has a twin for a partner without a
 * name (`…NoName`), so no language has to fit "the institution" into a slot.
 */
export function cameraCheckStep(p: { proctoring: ProctoringPageState; institutionName: string; t?: Translator }): SafeHtml {
  const t = p.t ?? englishTranslator();
  const institution = p.institutionName;
  /** The message naming the institution, or its twin without a name. */
  const named = (key: NamedKey, values: MessageValues = {}) => (institution ? t.t(key, { ...values, institution }) : t.t(`${key}NoName`, values));
  const live = p.proctoring.mode === 'live_ai';
  const { fullscreenRequired, copyPasteAllowed } = p.proctoring.relaxations ?? STRICT;
  // The list says only what is recorded for this student: a relaxed signal is neither sent nor flagged.
  const signals = fullscreenRequired ? (copyPasteAllowed ? 'noCopyPaste' : 'all') : copyPasteAllowed ? 'pageOnly' : 'noFullscreen';
  // The test page warns at half the threshold, when the server's flag turns `warning` (proctor.js).
  const noFace = thresholdSeconds(p.proctoring.rules, 'noFaceSeconds', 10);
  const begin = html`<strong>${t.t('intro.beginButton')}</strong>`;
  const consent = institution
    ? richMessage(t, 'proctoring.consent.statement', { institution }, { button: begin })
    : richMessage(t, 'proctoring.consent.statementNoName', {}, { button: begin });
  const arrangedBy = html`<strong>${t.t('proctoring.consent.accommodationsTitle')}</strong>`;
  const accommodations = institution
    ? richMessage(t, 'proctoring.consent.accommodationsBy', { institution }, { accommodations: arrangedBy })
    : richMessage(t, 'proctoring.consent.accommodationsByNoName', {}, { accommodations: arrangedBy });
  return html`<section class="camera-check" aria-labelledby="check-title">
<h2 id="check-title">${t.t('proctoring.check.title')}</h2>
<p>${named('proctoring.check.supervised')}</p>
<div class="check-grid">
<div class="camera-column">
<h3 id="preview-title">${t.t('proctoring.check.yourCamera')}</h3>
<div class="camera-preview">
  <video id="camera-preview" muted playsinline aria-labelledby="preview-title" data-state="off"></video>
  <p class="camera-placeholder" id="camera-placeholder" aria-hidden="true">${t.t('proctoring.check.noPicture')}</p>
</div>
<p id="camera-status" class="camera-status" role="status" data-state="checking" tabindex="-1">${t.t('proctoring.check.starting')}</p>
${live ? html`<p id="face-feedback" class="face-feedback" aria-live="polite"></p>` : ''}
<div id="camera-help" class="camera-help" hidden>
  <p id="camera-problem" class="camera-problem">${t.t('proctoring.check.whatYouCanDo')}</p>
  <ul id="camera-steps">
    <li>${t.t('proctoring.check.stepAllow')}</li>
    <li>${t.t('proctoring.check.stepCloseApps')}</li>
    <li>${t.t('proctoring.check.stepOtherDevice')}</li>
  </ul>
  <button type="button" class="button" id="camera-retry">${t.t('proctoring.check.tryAgain')}</button>
</div>
</div>
<div class="consent">
<h3>${t.t('proctoring.consent.recordedTitle')}</h3>
<ul>
  <li>${t.t('proctoring.consent.video')}</li>
  ${live ? html`<li>${t.t('proctoring.consent.faceCheck')}</li>` : ''}
  <li>${t.t('proctoring.consent.moments', { signals })}</li>
  <li>${t.t('proctoring.consent.nothingElse')}</li>
</ul>
${!fullscreenRequired || copyPasteAllowed ? html`<div class="accommodation" id="proctoring-accommodations">
<p>${accommodations}</p>
<ul>
  ${fullscreenRequired ? '' : html`<li>${t.t('proctoring.consent.fullscreenRelaxed')}</li>`}
  ${copyPasteAllowed ? html`<li>${t.t('proctoring.consent.copyPasteRelaxed')}</li>` : ''}
</ul>
</div>` : ''}
<p>${named('proctoring.consent.fairness')}</p>
<h3>${t.t('proctoring.consent.duringTitle')}</h3>
<ul id="warnings-explained">
  <li>${t.t(live ? 'proctoring.consent.noticedLive' : 'proctoring.consent.noticedRecord')}</li>
  ${live ? html`<li>${t.t('proctoring.consent.faceWarning', { warnSeconds: noFace / 2, flagSeconds: noFace })}</li>` : ''}
  <li>${t.t('proctoring.consent.leavePage')}</li>
</ul>
<h3>${t.t('proctoring.consent.keptTitle')}</h3>
<p>${t.t('proctoring.consent.kept', { days: p.proctoring.retentionDays })}</p>
<h3>${t.t('proctoring.consent.whoTitle')}</h3>
<p>${named('proctoring.consent.who')}</p>
<p class="consent-statement">${consent}</p>
</div>
</div>
<noscript><p class="notice">${t.t('proctoring.check.noscript')}</p></noscript>
</section>`;
}

/** Messages with a twin for a nameless institution (`<key>NoName`). */
type NamedKey = 'proctoring.check.supervised' | 'proctoring.consent.fairness' | 'proctoring.consent.who';

/**
 * The test page's small "Recording" indicator, for the sticky status bar, with a thumbnail of what the
 * camera sends: beside the timer, where the student looks, so they can see whether their face is in view.
 */
export function recordingIndicator(t: Translator = englishTranslator()): SafeHtml {
  return html`<p class="recording-indicator" id="recording-indicator" data-state="starting"><video id="proctor-video" class="proctor-video" muted playsinline aria-hidden="true"></video><span class="recording-dot" aria-hidden="true"></span><span id="recording-text">${t.t('proctoring.indicator.starting')}</span></p>`;
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
export function supervisionPanel(mode: ProctoringPageState['mode'], relaxations: ProctoringPageState['relaxations'] = STRICT, t: Translator = englishTranslator()): SafeHtml {
  const live = mode === 'live_ai';
  // No full-screen button when full screen is not required: nothing to offer, nothing watched.
  return html`<section class="supervision" aria-labelledby="supervision-title" data-mode="${mode}">
<h2 id="supervision-title" class="sr-only">${t.t('proctoring.panel.title')}</h2>
<div class="supervision-body">
  <p id="proctor-message" class="proctor-message" role="status">${t.t(live ? 'proctoring.panel.messageLive' : 'proctoring.panel.messageRecord')}</p>
  <div class="supervision-actions">
    <button type="button" class="button" id="proctor-camera-retry" hidden>${t.t('proctoring.panel.cameraRetry')}</button>
    ${relaxations.fullscreenRequired ? html`<button type="button" class="button" id="proctor-fullscreen" hidden>${t.t('proctoring.panel.fullscreen')}</button>` : ''}
  </div>
</div>
</section>`;
}

/** One of the test's resolved thresholds from the page state (typed loosely there: the server applies them). */
function thresholdSeconds(rules: object, key: string, fallback: number): number {
  const v = (rules as Record<string, unknown>)[key];
  return typeof v === 'number' && Number.isFinite(v) && v > 0 ? v : fallback;
}
