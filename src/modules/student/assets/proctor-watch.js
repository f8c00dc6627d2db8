// The recorder and the browser's own signals, for proctor.js.
import { liveTrack, recordingType } from './proctor-camera.js';
const BITS_PER_SECOND = 100_000; // 320 × 240 at about 5 frames a second: about 125 kB per 10 s

// The WebM Tracks element's id. A MediaRecorder writes it with its first frame: stopped before one (a
// segment begun a moment before Submit, a camera starved of CPU) it hands over the EBML header alone,
// which holds no moment of the test and which no player can open. Such a file is not uploaded.
const TRACKS_ID = [0x16, 0x54, 0xae, 0x6b];
async function holdsFrames(blob) {
  if (blob.size === 0) return false;
  const head = new Uint8Array(await blob.slice(0, 64 * 1024).arrayBuffer());
  for (let i = 0; i + 3 < head.length; i++) {
    if (head[i] === TRACKS_ID[0] && head[i + 1] === TRACKS_ID[1] && head[i + 2] === TRACKS_ID[2] && head[i + 3] === TRACKS_ID[3]) return true;
  }
  return false;
}

/**
 * Records the stream in segments of `segmentMs`. Each segment is its own MediaRecorder, started and
 * stopped, so every upload is a complete WebM file that plays on its own; the next recorder starts just
 * before the previous one stops, so no moment falls between two segments.
 */
export function createRecorder(stream, segmentMs, onSegment) {
  const type = recordingType();
  let stopped = false;
  let current = null;
  const finishing = new Set();

  function begin() {
    if (stopped || !liveTrack(stream) || !type) return;
    const rec = new MediaRecorder(stream, { mimeType: type, videoBitsPerSecond: BITS_PER_SECOND });
    const chunks = [];
    let startedAt = Date.now();
    rec.addEventListener('start', () => (startedAt = Date.now()));
    rec.addEventListener('dataavailable', (e) => e.data && e.data.size > 0 && chunks.push(e.data));
    const done = new Promise((resolve) => {
      rec.addEventListener('stop', async () => {
        const durationMs = Date.now() - startedAt;
        const mime = (rec.mimeType || type).replace(/\s+/g, '');
        try {
          const blob = new Blob(chunks, { type: mime });
          if (await holdsFrames(blob)) await onSegment({ blob, type: mime, startedAt, durationMs });
        } finally {
          resolve();
        }
      });
    });
    finishing.add(done);
    done.then(() => finishing.delete(done));
    const timer = setTimeout(() => {
      begin();
      if (rec.state !== 'inactive') rec.stop();
    }, segmentMs);
    current = { rec, timer };
    rec.start();
  }

  begin();
  return {
    supported: Boolean(type),
    /** Stops recording; resolves once the last segment has been handed over. */
    async stop() {
      stopped = true;
      if (current) {
        clearTimeout(current.timer);
        if (current.rec.state !== 'inactive') current.rec.stop();
      }
      await Promise.all([...finishing]);
    },
  };
}

// Absences shorter than this are not reported: notifications and the browser's own dialogs take focus for
// a moment, and a student should not collect "left the test" flags for them.
const AWAY_MIN_MS = 1000;
// A burst of copy and paste (select, copy, paste again) is one signal.
const COPY_PASTE_GAP_MS = 2000;

/**
 * Page hidden or window unfocused, full screen left, copy and paste in the answers, a second screen.
 * `relaxations` (the assignment's accommodations): without fullscreenRequired the button is not offered
 * and leaving full screen is not reported; with copyPasteAllowed copy and paste are not reported.
 * `onReturn(awayMs)` is called when the student comes back from an absence that was reported.
 */
export function watchBrowser({ signals, answers, fullscreenButton, relaxations = { fullscreenRequired: true, copyPasteAllowed: false }, onReturn = () => undefined }) {
  // ---- Leaving the test: the page hidden, or the window without focus, counted as one absence.
  let awaySince = null;
  let awayTimer = null;
  const isAway = () => document.visibilityState === 'hidden' || !document.hasFocus();
  function checkAway() {
    if (isAway()) {
      if (awaySince !== null) return;
      awaySince = signals.now();
      const since = awaySince;
      awayTimer = setTimeout(() => {
        if (isAway() && awaySince === since) signals.start('left_test', { at: since });
      }, AWAY_MIN_MS);
    } else if (awaySince !== null) {
      clearTimeout(awayTimer);
      const reported = signals.isActive('left_test');
      const awayMs = signals.now() - awaySince;
      awaySince = null;
      signals.stop('left_test');
      if (reported) onReturn(awayMs);
    }
  }
  document.addEventListener('visibilitychange', checkAway);
  window.addEventListener('blur', checkAway);
  window.addEventListener('focus', checkAway);
  checkAway();

  if (relaxations.fullscreenRequired) watchFullscreen(signals, fullscreenButton);
  else if (fullscreenButton) fullscreenButton.hidden = true;
  if (!relaxations.copyPasteAllowed) watchCopyPaste(signals, answers);

  // ---- A second screen, where the browser can tell (Window Management API's screen.isExtended).
  function checkScreens() {
    if (window.screen.isExtended === true) signals.start('second_screen');
    else if (window.screen.isExtended === false) signals.stop('second_screen');
  }
  checkScreens();
  if (typeof window.screen.addEventListener === 'function') window.screen.addEventListener('change', checkScreens);
  setInterval(checkScreens, 10_000);
}

/** Full screen: offered, never forced; leaving it is a signal only once the student had entered it. */
function watchFullscreen(signals, fullscreenButton) {
  let entered = false;
  if (document.fullscreenEnabled && fullscreenButton) {
    fullscreenButton.hidden = false;
    fullscreenButton.addEventListener('click', () => {
      document.documentElement.requestFullscreen().catch(() => undefined);
    });
  }
  document.addEventListener('fullscreenchange', () => {
    const inFull = document.fullscreenElement !== null;
    if (fullscreenButton) fullscreenButton.hidden = inFull || !document.fullscreenEnabled;
    if (inFull) {
      entered = true;
      signals.stop('fullscreen_exit');
    } else if (entered) {
      signals.start('fullscreen_exit');
    }
  });
}

/** Copy, cut and paste in the questions and answers. */
function watchCopyPaste(signals, answers) {
  let lastCopyPaste = -Infinity;
  for (const type of ['copy', 'cut', 'paste']) {
    answers.addEventListener(type, () => {
      const t = Date.now();
      if (t - lastCopyPaste >= COPY_PASTE_GAP_MS) signals.once('copy_paste');
      lastCopyPaste = t;
    });
  }
}
