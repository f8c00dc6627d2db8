import zlib from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHarness, type Harness } from '../helpers/harness.js';

// The assets that serve the proctored pages' scripts, over HTTP. The pages' markup is checked without a
// server in src/modules/student/pages/proctoring-pages.test.ts.

describe('the proctoring assets', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await createHarness();
  });
  afterAll(() => h.close());

  const get = (url: string, headers: Record<string, string> = {}) => h.app.inject({ method: 'GET', url, headers });

  it.each([
    ['/assets/proctoring/proctor.js', 'text/javascript; charset=utf-8', 'createUploadQueue'],
    ['/assets/proctoring/camera-check.js', 'text/javascript; charset=utf-8', 'openCamera'],
    ['/assets/proctoring/proctor-uploads.js', 'text/javascript; charset=utf-8', 'indexedDB'],
    ['/assets/proctoring/upload-rest.js', 'text/javascript; charset=utf-8', 'createUploadQueue'],
    ['/assets/proctoring/face-api.esm.js', 'text/javascript; charset=utf-8', 'TinyFaceDetector'],
    ['/assets/proctoring/models/tiny_face_detector_model-weights_manifest.json', 'application/json; charset=utf-8', 'tiny_face_detector_model.bin'],
  ])('%s: its content type, nosniff, an ETag, and 304 for that ETag', async (url, type, marker) => {
    const res = await get(url);
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe(type);
    expect(res.headers['x-content-type-options']).toBe('nosniff');
    expect(res.body).toContain(marker);
    const etag = String(res.headers.etag);
    expect(etag).toMatch(/^"[0-9a-f]{16}"$/);
    const again = await get(url, { 'if-none-match': etag });
    expect(again.statusCode).toBe(304);
    expect(again.body).toBe('');
  });

  it('sends the 1.3 MB face-api bundle gzipped to browsers that accept it, and the same bytes unzipped', async () => {
    const plain = await get('/assets/proctoring/face-api.esm.js');
    const zipped = await get('/assets/proctoring/face-api.esm.js', { 'accept-encoding': 'gzip, deflate, br' });
    expect(zipped.headers['content-encoding']).toBe('gzip');
    expect(zipped.headers.vary).toBe('accept-encoding');
    expect(zipped.rawPayload.length).toBeLessThan(plain.rawPayload.length / 2);
    expect(zlib.gunzipSync(zipped.rawPayload).equals(plain.rawPayload)).toBe(true);
    expect(plain.headers['content-encoding']).toBeUndefined();
  });

  it('serves the model weights as binary, uncompressed', async () => {
    const res = await get('/assets/proctoring/models/tiny_face_detector_model.bin', { 'accept-encoding': 'gzip' });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('application/octet-stream');
    expect(res.headers['content-encoding']).toBeUndefined();
    expect(res.rawPayload.length).toBeGreaterThan(150_000);
  });

  it('serves no other file of the package (no path from the URL reaches the disk)', async () => {
    for (const url of [
      '/assets/proctoring/models/ssd_mobilenetv1_model.bin',
      '/assets/proctoring/models/../../../package.json',
      '/assets/proctoring/face-api.esm.js.map',
      '/assets/proctoring/%2e%2e/%2e%2e/package.json',
    ]) {
      expect((await get(url)).statusCode, url).toBe(404);
    }
  });
});
