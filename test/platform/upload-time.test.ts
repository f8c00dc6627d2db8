import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { uploadTimeMs, REQUEST_TIME } from '../../src/platform/http/request-time.js';
import { ADMIN_TOKEN, createHarness, type Harness } from '../helpers/harness.js';
import { baseUrlOf } from '../helpers/read-during.js';
import { rawPost } from '../helpers/raw-post.js';

/**
 * A body's time to arrive (docs/file-uploads.md "Time to upload"): 30 s for
 * any request, and on an upload route 30 s plus the declared size at 50 KB/s.
 * Scaled down here (1 s, 64 KB/s) so the test takes seconds, not minutes.
 */
const KB = 1024;
let h: Harness;
let base: string;

beforeAll(async () => {
  h = await createHarness({ config: { requestTime: { baseMs: 1000, uploadFloorBytesPerSecond: 64 * KB } } });
  base = await baseUrlOf(h);
});
afterAll(() => h.close());

const admin = { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'image/png' };

describe('the time a body may take to arrive', () => {
  it('grows with the declared size on upload routes: a 20 MB file answer gets 30 s + 410 s', () => {
    expect(REQUEST_TIME).toEqual({ baseMs: 30_000, uploadFloorBytesPerSecond: 50 * KB });
    expect(uploadTimeMs(20 * KB * KB)).toBe(30_000 + 409_600);
    expect(uploadTimeMs(0)).toBe(30_000);
  });

  it('an upload slower than the base time but above the floor rate arrives and is answered', async () => {
    // 256 KB at about 128 KB/s: 2 s, over the 1 s base; allowed 1 s + 4 s.
    const t0 = performance.now();
    const res = await rawPost(base, '/api/admin/v1/assets', { headers: admin, body: randomBytes(256 * KB), chunkBytes: 16 * KB, chunkPauseMs: 125 });
    expect(performance.now() - t0).toBeGreaterThan(1500);
    // Not an image: refused for what it is, which shows the whole body was read.
    expect(res.status, res.body).toBe(400);
    expect(JSON.parse(res.body).error.code).toBe('invalid_request');
  });

  it('an upload below the floor rate is cut with the 408 envelope when its time is up', async () => {
    // 64 KB at 16 KB/s: 4 s; allowed 1 s + 1 s.
    const t0 = performance.now();
    const res = await rawPost(base, '/api/admin/v1/assets', { headers: admin, body: randomBytes(64 * KB), chunkBytes: 8 * KB, chunkPauseMs: 500 });
    const took = performance.now() - t0;
    expect(res.status).toBe(408);
    expect(res.headers.connection).toBe('close');
    const body = JSON.parse(res.body);
    expect(body.error.code).toBe('request_timeout');
    expect(body.error.requestId).toBe(res.headers['x-request-id']);
    expect(took).toBeGreaterThan(1800);
    expect(took).toBeLessThan(3500);
  });

  it('any other route keeps the base time: a JSON body trickling in is cut after it', async () => {
    const t0 = performance.now();
    const res = await rawPost(base, '/api/partner/v1/assignments', {
      headers: { authorization: `Bearer ${h.a.apiKey}`, 'content-type': 'application/json' },
      body: Buffer.from(JSON.stringify({ pad: 'x'.repeat(30 * KB) })),
      chunkBytes: 2 * KB,
      chunkPauseMs: 250,
    });
    expect(res.status).toBe(408);
    expect(JSON.parse(res.body).error.code).toBe('request_timeout');
    expect(performance.now() - t0).toBeLessThan(2500);
  });

  it('times no request made in-process: one refused before its body is read leaves no timer to fire on a connection it does not have', async () => {
    const errors: unknown[] = [];
    const onError = (e: unknown) => errors.push(e);
    process.on('uncaughtException', onError);
    try {
      const res = await h.partner('not-a-key', 'POST', '/api/partner/v1/assignments', { externalUserId: 'u' });
      expect(res.statusCode).toBe(401);
      await new Promise((r) => setTimeout(r, 1300)); // past the 1 s base time
      expect(errors).toEqual([]);
    } finally {
      process.off('uncaughtException', onError);
    }
  });
});
