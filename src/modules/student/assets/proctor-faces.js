// On-device face detection for live_ai tests: @vladmandic/face-api's TinyFaceDetector, served by Assay
// (/assets/proctoring/). The picture never leaves the device for this; only the count becomes a signal.

/**
 * Loads the library and the model. WebGL when the device has it, else TensorFlow.js's CPU backend;
 * the bundle's WebAssembly backend is never chosen (its .wasm files are not served, and the CSP has
 * no 'wasm-unsafe-eval').
 */
export async function loadFaceDetector(modelBase) {
  const faceapi = await import('./face-api.esm.js');
  const tf = faceapi.tf;
  let ok = false;
  try {
    ok = await tf.setBackend('webgl');
  } catch {
    ok = false;
  }
  if (!ok) await tf.setBackend('cpu');
  await tf.ready();
  await faceapi.nets.tinyFaceDetector.loadFromUri(modelBase);
  // 320 px input matches the recording's resolution; 0.5 is the library's default confidence.
  const options = new faceapi.TinyFaceDetectorOptions({ inputSize: 320, scoreThreshold: 0.5 });
  return {
    backend: tf.getBackend(),
    /** The number of faces in the video's current frame, or null when there is no frame to look at. */
    async count(video) {
      if (!video || video.videoWidth === 0 || video.readyState < 2) return null;
      const faces = await faceapi.detectAllFaces(video, options);
      return faces.length;
    },
  };
}
