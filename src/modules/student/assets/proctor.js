// The test page's supervision for `record` and `live_ai` tests: the webcam recorded in short, complete
// WebM segments and uploaded through a durable queue, a still picture now and then, the browser signals
// (leaving the page, full screen, copy and paste, the camera stopping, a second screen), face counts for
// live_ai, and a heartbeat that carries the signals to the server, which decides what they mean.
// It never blocks answering and never submits: a camera problem is explained, and the student works on.
// What it notices is also said to the student as it happens (proctor-notices.js), before it becomes a flag.
// Plain browser JavaScript (ES modules), no build step, under a CSP without inline script.
import { attach, cameraProblemReason, liveTrack, openCamera, randomId, stillPicture } from './proctor-camera.js';
import { loadFaceDetector } from './proctor-faces.js';
import { createNotices } from './proctor-notices.js';
import { createSignals } from './proctor-signals.js';
import { createUploadQueue } from './proctor-uploads.js';
import { createRecorder, watchBrowser } from './proctor-watch.js';

const stateEl = document.getElementById('assay-state');
const state = stateEl ? JSON.parse(stateEl.textContent) : null;
const cfg = state && state.proctoring;
// The page's messages in the candidate's language (i18n.js, a module that runs before this one).
const t = (key, values) => window.AssayI18n.t(key, values);
if (cfg) start();

async function start() {
  const $ = (id) => document.getElementById(id);
  const base = `/a/${encodeURIComponent(state.assignmentId)}/proctoring`;
  const offset = state.serverNow ? Date.parse(state.serverNow) - Date.now() : 0;
  const now = () => Date.now() + offset; // the server's clock, as student.js's timer uses
  const video = $('proctor-video');
  const indicator = $('recording-indicator');
  const indicatorText = $('recording-text');
  const message = $('proctor-message');
  const retry = $('proctor-camera-retry');
  const panel = document.querySelector('.supervision');
  const notices = createNotices({ alertEl: $('proctor-alert'), noticeEl: $('proctor-notice') });
  const defaultMessage = message.textContent;
  let cameraWasOn = false;

  let stream = null;
  let recorder = null;
  let detector = null;
  let over = false; // the attempt has ended (submitted here or elsewhere)

  const signals = createSignals({ now, onChange: () => beatSoon() });
  const uploads = await createUploadQueue({
    assignmentId: state.assignmentId,
    csrfToken: state.csrfToken,
    direct: Boolean(cfg.directUploads),
    onChange: ({ failing }) => {
      indicator.dataset.uploads = failing ? 'waiting' : 'ok';
      indicator.title = failing ? t('proctoring.indicator.uploadsWaiting') : '';
    },
  });
  uploads.flush(); // what an earlier page load of this attempt left unsent

  // ---- Segment numbers: one sequence per attempt, continued across reloads -----------------------------
  // Kept in localStorage and checked against this device's queue and the server's count, so a reload never
  // reuses a number (the server keeps the first upload of each number and answers later ones as duplicates).
  const seqKey = `assay:proctor:seq:${state.assignmentId}`;
  function nextSeq() {
    let stored = 0;
    try {
      stored = Number(localStorage.getItem(seqKey)) || 0;
    } catch {
      /* blocked storage: the other sources still count */
    }
    const seq = Math.max(stored, uploads.highestQueuedSeq() + 1, Number(cfg.nextSeq) || 0, memorySeq);
    memorySeq = seq + 1;
    try {
      localStorage.setItem(seqKey, String(seq + 1));
    } catch {
      /* memorySeq keeps this page load's numbers apart */
    }
    return seq;
  }
  let memorySeq = 0;

  // ---- Camera ------------------------------------------------------------------------------------------
  function setIndicator(kind) {
    indicator.dataset.state = kind;
    indicatorText.textContent = t(`proctoring.indicator.${kind}`);
  }

  function cameraLost(error) {
    if (over) return;
    recorder && recorder.stop();
    recorder = null;
    setIndicator('off');
    panel.dataset.camera = 'off';
    signals.start('camera_stopped');
    retry.hidden = false;
    retry.disabled = false;
    message.textContent = t('proctoring.test.cameraOffMessage');
    notices.resolve('camera_muted');
    notices.warn('camera', cameraStoppedText(error, cameraWasOn), t('proctoring.test.cameraOffTodo'));
    beatSoon();
  }

  async function startCamera() {
    setIndicator('starting');
    retry.disabled = true;
    try {
      stream = await openCamera();
      await attach(video, stream);
    } catch (error) {
      cameraLost(error);
      return;
    }
    const track = stream.getVideoTracks()[0];
    track.addEventListener('ended', () => cameraLost({ name: 'Ended' }));
    // Muted: the source gives no picture for now (a privacy shutter, the system taking the camera).
    track.addEventListener('mute', () => {
      signals.start('camera_stopped', { key: 'camera_muted' });
      notices.warn('camera_muted', t('proctoring.test.cameraMuted'), t('proctoring.test.cameraMutedTodo'));
    });
    track.addEventListener('unmute', () => {
      signals.stop('camera_muted');
      notices.resolve('camera_muted', t('proctoring.test.cameraUnmuted'));
    });
    const wasLost = signals.isActive('camera_stopped');
    signals.stop('camera_stopped');
    retry.hidden = true;
    panel.dataset.camera = 'on';
    setIndicator('recording');
    cameraWasOn = true;
    if (wasLost) message.textContent = defaultMessage;
    notices.resolve('camera', t('proctoring.test.cameraBack'));
    recorder = createRecorder(stream, cfg.segmentMs, async (segment) => {
      await uploads.addSegment({ seq: nextSeq(), type: segment.type, startedAt: segment.startedAt + offset, durationMs: segment.durationMs, blob: segment.blob });
    });
    if (!recorder.supported) {
      // The intro page's check refuses such a browser; this is a test reopened in another one.
      setIndicator('watching');
      message.textContent = t('proctoring.test.noRecorder');
    }
    setTimeout(takeSnapshot, 2000);
  }

  retry.addEventListener('click', () => startCamera());

  // ---- Pictures ----------------------------------------------------------------------------------------
  const evidenceTaken = new Set();
  async function takeSnapshot(flagId) {
    if (!liveTrack(stream)) return false;
    const blob = await stillPicture(video);
    if (!blob) return false;
    await uploads.addSnapshot({ snapshotId: randomId('snp_', 24), takenAt: now(), blob, ...(flagId ? { flagId } : {}) });
    return true;
  }
  setInterval(() => !over && takeSnapshot(), cfg.snapshotEveryMs);

  // ---- Heartbeat ---------------------------------------------------------------------------------------
  let beating = null;
  let beatAgain = false;
  let soonTimer = null;

  function beatSoon() {
    clearTimeout(soonTimer);
    soonTimer = setTimeout(beat, 250);
  }

  function fullscreenState() {
    return document.fullscreenEnabled ? document.fullscreenElement !== null : null;
  }

  function beat() {
    if (over) return Promise.resolve();
    if (beating) {
      beatAgain = true;
      return beating;
    }
    beating = sendBeat().finally(() => {
      beating = null;
      if (beatAgain) {
        beatAgain = false;
        beat();
      }
    });
    return beating;
  }

  async function sendBeat() {
    const { signals: list, finished } = signals.take();
    let res;
    try {
      res = await fetch(`${base}/heartbeat`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-csrf-token': state.csrfToken },
        body: JSON.stringify({ signals: list, cameraActive: liveTrack(stream) !== null && !liveTrack(stream).muted, fullscreen: fullscreenState() }),
        credentials: 'same-origin',
        cache: 'no-store',
      });
    } catch {
      return; // offline or restarting: the signals stay queued for the next beat
    }
    if (res.status === 409) {
      // The attempt is over (submitted in another tab, or by the deadline); student.js reloads the page.
      over = true;
      recorder && recorder.stop();
      return;
    }
    if (res.status === 400) {
      signals.accepted(finished); // only a broken page sends what the server calls malformed; resending cannot help
      return;
    }
    if (!res.ok) return;
    signals.accepted(finished);
    const body = await res.json().catch(() => ({ flags: [] }));
    for (const flag of body.flags || []) {
      if (!flag.needsEvidence || evidenceTaken.has(flag.flagId)) continue;
      evidenceTaken.add(flag.flagId); // one picture per flag: the first moment the server asked for it
      takeSnapshot(flag.flagId);
    }
  }
  setInterval(beat, cfg.heartbeatMs);

  // ---- Browser signals and faces -----------------------------------------------------------------------
  // An assignment's accommodations: what is relaxed is neither offered nor reported (absent: the strict defaults).
  const relaxations = { fullscreenRequired: true, copyPasteAllowed: false, ...(cfg.relaxations || {}) };
  watchBrowser({
    signals,
    answers: $('answers'),
    fullscreenButton: $('proctor-fullscreen'),
    relaxations,
    // Said after the fact: while the student is away, nothing on this page can reach them.
    onReturn: (awayMs) => notices.note(t('proctoring.test.leftPage', { seconds: Math.max(1, Math.round(awayMs / 1000)) }), 'info'),
  });

  if (cfg.mode === 'live_ai') {
    loadFaceDetector(cfg.modelBase)
      .then((d) => {
        detector = d;
        watchFaces();
      })
      .catch(() => {
        message.textContent = t('proctoring.test.faceDetectionFailed');
      });
  }

  // The student is warned at half the test's threshold (when the server's flag turns `warning`), so there is
  // time to act before it turns critical; a moment's miss (looking down) says nothing.
  const rules = cfg.rules || {};
  const warnAfterMs = (seconds) => (Number(seconds) > 0 ? Number(seconds) : 0) * 500;
  const noFaceWarnMs = warnAfterMs(rules.noFaceSeconds ?? 10);
  const facesWarnMs = warnAfterMs(rules.multipleFacesSeconds ?? 3);

  // About once a second on the current frame: no face, or more than one, is a lasting condition.
  async function watchFaces() {
    let noFaceSince = null;
    let facesSince = null;
    while (!over) {
      const started = Date.now();
      let n = null;
      if (liveTrack(stream) && !liveTrack(stream).muted) {
        try {
          n = await detector.count(video);
        } catch {
          n = null;
        }
      }
      const at = now();
      if (n === 0) signals.start('no_face', { at });
      else signals.stop('no_face', at);
      if (n !== null && n >= 2) signals.start('multiple_faces', { at });
      else signals.stop('multiple_faces', at);

      noFaceSince = n === 0 ? (noFaceSince ?? at) : null;
      if (noFaceSince !== null && at - noFaceSince >= noFaceWarnMs) notices.warn('no_face', t('proctoring.test.noFace'), t('proctoring.test.noFaceTodo'));
      // No frame to look at (the camera stopped): the camera's own warning says so; nothing is "back".
      else if (noFaceSince === null) notices.resolve('no_face', n !== null && n >= 1 ? t('proctoring.test.faceBack') : null);
      facesSince = n !== null && n >= 2 ? (facesSince ?? at) : null;
      if (facesSince !== null && at - facesSince >= facesWarnMs) notices.warn('multiple_faces', t('proctoring.test.manyFaces'), t('proctoring.test.manyFacesTodo'));
      else if (facesSince === null) notices.resolve('multiple_faces', n === 1 ? t('proctoring.test.onlyFaceBack') : null);
      await new Promise((r) => setTimeout(r, Math.max(200, 1000 - (Date.now() - started))));
    }
  }

  // ---- The end of the attempt --------------------------------------------------------------------------
  // student.js waits (a few seconds at most) for this before sending the Submit form: the last segment
  // and the last signals go out while the attempt still accepts them.
  document.addEventListener('assay:before-submit', (event) => {
    event.detail.waitUntil(
      (async () => {
        signals.stopAll({ minMs: 1500 });
        await beat();
        over = true;
        if (recorder) await recorder.stop();
        recorder = null;
        await uploads.flush();
      })(),
    );
  });

  // Leaving the page (reload, navigation, closing): end what lasts, in one last request that outlives the page.
  // A page hidden by its own unloading is not the student leaving, hence the minimum age.
  window.addEventListener('pagehide', () => {
    if (over) return;
    signals.stopAll({ minMs: 1500 });
    const { signals: list } = signals.take();
    if (list.length === 0) return;
    fetch(`${base}/heartbeat`, {
      method: 'POST',
      keepalive: true,
      headers: { 'content-type': 'application/json', 'x-csrf-token': state.csrfToken },
      body: JSON.stringify({ signals: list, cameraActive: false, fullscreen: fullscreenState() }),
      credentials: 'same-origin',
    }).catch(() => undefined);
  });

  await startCamera();
  beat();
}

/**
 * "Your camera stopped: …" (or "Your camera is off: …" when it never came on) from a getUserMedia error or
 * an ended track: one whole sentence per reason, so each language words it as it needs.
 */
function cameraStoppedText(error, wasOn) {
  return t(`proctoring.cameraStopped.${cameraProblemReason(error)}`, { wasOn: wasOn ? 'yes' : 'no' });
}
