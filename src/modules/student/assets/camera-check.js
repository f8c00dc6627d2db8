// The intro page's camera check for proctored tests: a live preview, and "Begin test" enabled only once
// the camera gives a picture (and, for live_ai tests, once the face detector has loaded). When the camera
// is refused or missing, the page says what to do and offers "Try again"; the Begin form cannot be sent,
// so no attempt starts. Plain browser JavaScript, no build step, loaded under a CSP without inline script.
import { attach, cameraProblem, openCamera, recordingType } from './proctor-camera.js';
import { loadFaceDetector } from './proctor-faces.js';

const stateEl = document.getElementById('assay-state');
const state = stateEl ? JSON.parse(stateEl.textContent) : null;
const $ = (id) => document.getElementById(id);
const form = $('begin-form');
const begin = $('begin-button');
const video = $('camera-preview');
const placeholder = $('camera-placeholder');
const statusEl = $('camera-status');
const help = $('camera-help');
const problemEl = $('camera-problem');
const stepsEl = $('camera-steps');
const beginHint = $('begin-hint');
const retry = $('camera-retry');
const faceFeedback = $('face-feedback');
// The page's messages in the candidate's language (i18n.js, a module that runs before this one).
const t = (key, values) => window.AssayI18n.t(key, values);

let ready = false;
let stream = null;
let detector = null;
let attemptNo = 0;

function setStatus(kind, text) {
  statusEl.dataset.state = kind;
  statusEl.textContent = text;
}

function setReady(yes) {
  ready = yes;
  begin.disabled = !yes;
  if (beginHint) beginHint.hidden = yes;
}

// The button is disabled until the check passes; this also stops Enter in the form, or any other way of
// sending it, while the camera is not working.
form.addEventListener('submit', (event) => {
  if (!ready) {
    event.preventDefault();
    statusEl.focus();
    return;
  }
  begin.disabled = true; // one Begin; the server makes a second one harmless anyway
});

function fail(error) {
  setReady(false);
  video.dataset.state = 'off';
  placeholder.hidden = false;
  problemEl.textContent = t('proctoring.check.whatYouCanDo');
  stepsEl.hidden = false;
  help.hidden = false;
  setStatus('failed', t('proctoring.check.failed', { problem: cameraProblem(error) }));
  if (faceFeedback) faceFeedback.textContent = '';
}

async function check() {
  const mine = ++attemptNo;
  setReady(false);
  help.hidden = true;
  retry.disabled = true;
  setStatus('checking', t('proctoring.check.starting'));
  try {
    if (stream) for (const track of stream.getTracks()) track.stop();
    if (!recordingType()) {
      const error = new Error('MediaRecorder cannot write WebM here');
      error.name = 'NoRecorderError';
      throw error;
    }
    stream = await openCamera();
    await attach(video, stream);
  } catch (error) {
    retry.disabled = false;
    if (mine === attemptNo) fail(error);
    return;
  }
  retry.disabled = false;
  video.dataset.state = 'on';
  placeholder.hidden = true;
  const track = stream.getVideoTracks()[0];
  track.addEventListener('ended', () => {
    if (mine === attemptNo) fail({ name: 'Ended' });
  });

  if (state.proctoring.mode === 'live_ai' && !detector) {
    setStatus('checking', t('proctoring.check.loadingFaces'));
    try {
      detector = await loadFaceDetector(state.proctoring.modelBase);
    } catch {
      if (mine !== attemptNo) return;
      setReady(false);
      problemEl.textContent = t('proctoring.check.checkConnection');
      stepsEl.hidden = true;
      help.hidden = false;
      setStatus('failed', t('proctoring.check.faceDetectionFailed'));
      return;
    }
  }
  if (mine !== attemptNo || track.readyState !== 'live') return;
  setReady(true);
  setStatus('ready', t('proctoring.check.ready'));
  if (detector) watchFaces(mine);
}

// Guidance only: whether a face is in view never blocks Begin (lighting and angles vary); it tells the
// student what the test will see. Announced only when the finding changes.
async function watchFaces(mine) {
  let last = '';
  while (mine === attemptNo && ready) {
    let n = null;
    try {
      n = await detector.count(video);
    } catch {
      n = null;
    }
    const text = n === null ? '' : t(n === 0 ? 'proctoring.check.faceNone' : n === 1 ? 'proctoring.check.faceOne' : 'proctoring.check.faceMany');
    if (text !== last) {
      faceFeedback.textContent = text;
      faceFeedback.dataset.faces = n === null ? '' : String(Math.min(n, 2));
      last = text;
    }
    await new Promise((r) => setTimeout(r, 1500));
  }
}

if (state && state.proctoring) {
  retry.addEventListener('click', () => check());
  check();
}
