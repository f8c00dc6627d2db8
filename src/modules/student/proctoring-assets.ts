import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { FastifyPluginAsync } from 'fastify';
import { assetRoute, loadAsset, type StaticAsset } from '../../platform/web/asset-route.js';

/**
 * The proctoring scripts of the student pages and the on-device face
 * detector, served by Assay itself under /assets/proctoring/ (no CDN, so the
 * pages' `script-src 'self'; connect-src 'self'` CSP holds):
 * - our own ES modules (camera check on the intro page, recording and signals on the test page,
 *   the rest of the recording's uploads on the completion page);
 * - `@vladmandic/face-api`'s browser bundle (TensorFlow.js inside, WebGL with a CPU fallback: neither
 *   needs eval nor WebAssembly, so the CSP needs no 'unsafe-eval' or 'wasm-unsafe-eval');
 * - the TinyFaceDetector model (a 3 kB manifest and 190 kB of weights), the only model the page loads.
 * Every file is read once at start (a missing package fails the boot, not a student's test) and
 * gzipped once, since the face-api bundle is 1.3 MB as shipped.
 */
const OWN_SCRIPTS = ['proctor.js', 'proctor-camera.js', 'proctor-uploads.js', 'proctor-direct.js', 'proctor-signals.js', 'proctor-faces.js', 'proctor-watch.js', 'proctor-notices.js', 'camera-check.js', 'upload-rest.js'];
const MODEL_FILES = ['tiny_face_detector_model-weights_manifest.json', 'tiny_face_detector_model.bin'];

const JS = 'text/javascript; charset=utf-8';
const TYPES: Record<string, string> = { '.js': JS, '.json': 'application/json; charset=utf-8', '.bin': 'application/octet-stream' };

function load(file: string): StaticAsset {
  const type = TYPES[path.extname(file)];
  if (!type) throw new Error(`proctoring assets: no content type for ${file}`);
  // Weights are float data that gzip barely shrinks; text compresses about 4:1.
  return loadAsset(file, type, { gzip: type !== TYPES['.bin'] });
}

/** URL path → file, resolved at start. */
export function proctoringAssetFiles(): Map<string, string> {
  const require = createRequire(import.meta.url);
  const ownDir = new URL('./assets/', import.meta.url);
  const faceApi = require.resolve('@vladmandic/face-api/dist/face-api.esm.js');
  const modelDir = path.join(path.dirname(faceApi), '..', 'model');
  const files = new Map<string, string>();
  for (const name of OWN_SCRIPTS) files.set(`/assets/proctoring/${name}`, fileURLToPath(new URL(name, ownDir)));
  files.set('/assets/proctoring/face-api.esm.js', faceApi);
  for (const name of MODEL_FILES) files.set(`/assets/proctoring/models/${name}`, path.join(modelDir, name));
  return files;
}

export const proctoringAssets: FastifyPluginAsync = async (app) => {
  for (const [url, file] of proctoringAssetFiles()) {
    assetRoute(app, url, load(file), { headers: { 'cross-origin-resource-policy': 'same-origin' }, bareNotModified: true });
  }
};
