// The camera, for the intro page's check and the test page's recording: one set of constraints, the
// reasons a camera can fail said in words a student can act on (the page's messages, assets/i18n.js), and
// still pictures.

// Low resolution and frame rate: enough for a reviewer to see who is there, small enough to upload on a
// weak connection (a 10 s segment is about 100 kB). Browsers scale a larger camera down to this.
const VIDEO = { width: { ideal: 320 }, height: { ideal: 240 }, frameRate: { ideal: 5, max: 10 }, facingMode: 'user' };

export async function openCamera() {
  if (!navigator.mediaDevices || !navigator.mediaDevices.getUserMedia) {
    const error = new Error('This browser offers no camera access here');
    error.name = 'NotSupportedError';
    throw error;
  }
  return navigator.mediaDevices.getUserMedia({ video: VIDEO, audio: false });
}

// The recording's formats, best first; the server takes WebM only (one format for reviewers to play).
const RECORDING_TYPES = ['video/webm;codecs=vp8', 'video/webm;codecs=vp9', 'video/webm'];

/** The WebM type this browser can record, or null (then the test cannot be recorded here). */
export function recordingType() {
  if (!window.MediaRecorder || typeof MediaRecorder.isTypeSupported !== 'function') return null;
  return RECORDING_TYPES.find((t) => MediaRecorder.isTypeSupported(t)) || null;
}

/**
 * Why the camera failed, from a getUserMedia error (or a track that ended), as a reason the page's
 * messages are keyed by: `proctoring.cameraProblem.<reason>` says it on its own (the intro page's check),
 * `proctoring.cameraStopped.<reason>` as the test page's whole sentence about the camera stopping.
 */
export function cameraProblemReason(error) {
  switch (error && error.name) {
    case 'NotAllowedError':
    case 'PermissionDeniedError':
    case 'SecurityError':
      return 'notAllowed';
    case 'NotFoundError':
    case 'DevicesNotFoundError':
    case 'OverconstrainedError':
      return 'notFound';
    case 'NotReadableError':
    case 'TrackStartError':
    case 'AbortError':
      return 'notReadable';
    case 'NotSupportedError':
      return 'notSupported';
    case 'NoRecorderError':
      return 'noRecorder';
    case 'Ended':
      return 'ended';
    default:
      return 'unknown';
  }
}

/** What went wrong, for the student, in the page's language. */
export function cameraProblem(error) {
  return window.AssayI18n.t(`proctoring.cameraProblem.${cameraProblemReason(error)}`);
}

/** Shows the stream in the video element and resolves once a frame with a size has arrived. */
export async function attach(video, stream) {
  video.srcObject = stream;
  await video.play().catch(() => undefined); // muted inline video may autoplay; a refusal only delays the first frame
  const until = Date.now() + 10_000;
  while (video.videoWidth === 0) {
    if (Date.now() > until) {
      const error = new Error('The camera sent no picture');
      error.name = 'NotReadableError';
      throw error;
    }
    await new Promise((r) => setTimeout(r, 100));
  }
}

export function liveTrack(stream) {
  const track = stream && stream.getVideoTracks()[0];
  return track && track.readyState === 'live' ? track : null;
}

/** A JPEG of the current frame (at most 320 × 240), or null when there is no picture. */
export function stillPicture(video) {
  if (!video || video.videoWidth === 0) return Promise.resolve(null);
  const scale = Math.min(1, 320 / video.videoWidth, 240 / video.videoHeight);
  const canvas = document.createElement('canvas');
  canvas.width = Math.round(video.videoWidth * scale);
  canvas.height = Math.round(video.videoHeight * scale);
  canvas.getContext('2d').drawImage(video, 0, 0, canvas.width, canvas.height);
  return new Promise((resolve) => canvas.toBlob((blob) => resolve(blob), 'image/jpeg', 0.75));
}

/** Random ids for signals and snapshots ([A-Za-z0-9], as the server requires). */
export function randomId(prefix, length = 20) {
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
  const bytes = crypto.getRandomValues(new Uint8Array(length));
  let out = '';
  for (const b of bytes) out += alphabet[b % alphabet.length];
  return `${prefix}${out}`;
}
