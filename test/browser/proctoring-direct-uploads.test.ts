import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { storageFor } from '../../src/platform/storage/storage.js';
import { componentAvailable } from '../helpers/components.js';
import { hasS3 } from '../helpers/s3-server.js';
import { assignTo, beginProctored, canRun, openRig, proctoredTest, publish, report, requireCameraTools, studentPage, until, type Rig } from './proctoring-rig.js';
import { closeContext } from './browser-env.js';

/**
 * A recorded test in Chromium with S3 storage (s3rver, signatures checked,
 * the bucket's CORS rule allowing the app's origin): the page PUTs its
 * segments and snapshots straight to the bucket with presigned requests and
 * has them recorded; the API's upload routes receive no bytes at all.
 */
requireCameraTools();
const withS3 = componentAvailable('S3 server (@20minutes/s3rver)', hasS3, 'npm install (a devDependency)');

describe.runIf(canRun && withS3)('direct uploads from the proctored page (S3 storage)', () => {
  let rig: Rig;
  let testId: string;

  beforeAll(async () => {
    rig = await openRig('Northfield University', { s3: true });
    testId = await publish(rig, proctoredTest('record', { leftTestSeconds: 3, leftTestCount: 10 }));
  }, 90_000);
  afterAll(() => rig?.close());

  it('segments and snapshots go from the browser to the bucket and are recorded; the API carries none of their bytes', async () => {
    const { context, page, problems } = await studentPage(await rig.browser('one_face'), { timings: { segmentMs: 3000, heartbeatMs: 2000, snapshotEveryMs: 4000 } });
    // Chromium asks the user before a page reaches an address on this machine (Local Network Access); the
    // bucket is on 127.0.0.1 here only because the test runs it there, so the test grants it as a user would.
    await context.grantPermissions(['local-network-access'], { origin: rig.origin });
    // Every request the browser sends to the API (the app's origin), with its body's size.
    const toApi: Array<{ path: string; bytes: number }> = [];
    context.on('request', (req) => {
      const url = new URL(req.url());
      if (url.origin === rig.origin) toApi.push({ path: url.pathname, bytes: req.postDataBuffer()?.length ?? 0 });
    });
    const a = await assignTo(rig, testId, 'direct');
    await beginProctored(page, a.startUrl, { timings: true });
    await page.waitForTimeout(10_000);
    await page.getByRole('button', { name: 'Submit test' }).click();
    await page.getByRole('button', { name: 'Submit', exact: true }).click();
    await page.getByRole('heading', { name: 'Your result' }).waitFor({ timeout: 30_000 });
    const r = await until('the last segment recorded', async () => {
      const rep = await report(rig, a.assignmentId);
      const made = Number(await page.evaluate((key) => localStorage.getItem(key), `assay:proctor:seq:${a.assignmentId}`));
      // Every object put is settled: recorded, or refused and deleted.
      const settled = await Promise.all(
        rig.s3!.requests.filter((q) => q.method === 'PUT').map(async (q) => {
          const key = decodeURIComponent(q.path).replace(`/${rig.s3!.bucket}/`, '');
          const row = await rig.h.pool.query('SELECT 1 FROM recording_segments WHERE storage_key = $1 UNION ALL SELECT 1 FROM proctoring_snapshots WHERE storage_key = $1', [key]);
          return row.rowCount === 1 || (await storageFor(rig.h.ctx.config).head(key)) === null;
        }),
      );
      return settled.every(Boolean) && rep.recording.segments.length >= made - 1 && rep.recording.segments.length >= 3 && rep.snapshots.length >= 1 && rep;
    }, 30_000);

    expect(r.recording.segments.map((s) => s.seq)).toEqual(r.recording.segments.map((_, i) => i));
    const { rows } = await rig.h.pool.query<{ storage_key: string; size_bytes: number }>(
      `SELECT storage_key, size_bytes FROM recording_segments WHERE assignment_id = $1
       UNION ALL SELECT storage_key, size_bytes FROM proctoring_snapshots WHERE assignment_id = $1`,
      [a.assignmentId],
    );
    const storage = storageFor(rig.h.ctx.config);
    let recordedBytes = 0;
    for (const row of rows) {
      expect((await storage.head(row.storage_key))?.size, row.storage_key).toBe(row.size_bytes);
      recordedBytes += row.size_bytes;
    }
    // The bucket received every recorded object as a PUT from the page (a cross-origin request: CORS let it
    // through). A PUT not recorded is an object the record refused (a segment begun at Submit holding no
    // frame): it was deleted.
    const puts = rig.s3!.requests.filter((q) => q.method === 'PUT');
    for (const q of puts) expect(q.origin).toBe(rig.origin);
    const putOf = new Map(puts.map((q) => [decodeURIComponent(q.path).replace(`/${rig.s3!.bucket}/`, ''), q.bytes]));
    for (const row of rows) expect(putOf.get(row.storage_key), row.storage_key).toBe(row.size_bytes);
    for (const [key] of putOf) if (!rows.some((row) => row.storage_key === key)) expect(await storage.head(key), key).toBeNull();
    // The API saw presign and record calls only (a few hundred bytes of JSON each), never the through-API routes.
    expect(toApi.filter((q) => /\/proctoring\/(segments|snapshots)/.test(q.path))).toEqual([]);
    const uploadCalls = toApi.filter((q) => /\/proctoring\/uploads/.test(q.path));
    // A presign and a record per object; a piece captured at Submit may also be presigned and refused.
    expect(uploadCalls.length).toBeGreaterThanOrEqual(2 * rows.length);
    for (const q of uploadCalls) expect(q.bytes).toBeLessThan(400);
    console.info(`direct uploads: ${rows.length} objects, ${recordedBytes} bytes to the bucket; ${uploadCalls.reduce((n, q) => n + q.bytes, 0)} bytes of JSON to the API's upload routes`);
    expect(problems).toEqual([]);
    await closeContext(context);
  }, 180_000);

  it('a record that fails after its PUT succeeded is retried from the record step: no piece is PUT twice', async () => {
    const { context, page, problems } = await studentPage(await rig.browser('one_face'), { timings: { segmentMs: 3000, heartbeatMs: 2000, snapshotEveryMs: 60_000 } });
    await context.grantPermissions(['local-network-access'], { origin: rig.origin });
    // The first three record calls answer 503, as an API restarting would.
    let refused = 0;
    await context.route(/\/proctoring\/uploads\/record$/, (route) => {
      if (refused < 3) {
        refused++;
        return route.fulfill({ status: 503, contentType: 'application/json', body: '{"error":{"code":"unavailable","message":"restarting"}}' });
      }
      return route.fallback();
    });
    const putsBefore = rig.s3!.requests.filter((q) => q.method === 'PUT').length;
    const a = await assignTo(rig, testId, 'direct-retry');
    await beginProctored(page, a.startUrl, { timings: true });
    await page.waitForTimeout(8_000);
    const rows = await until('three segments recorded after the failed records', async () => {
      const r = await rig.h.pool.query<{ storage_key: string }>('SELECT storage_key FROM recording_segments WHERE assignment_id = $1', [a.assignmentId]);
      return refused === 3 && r.rows.length >= 3 && r.rows;
    }, 45_000);
    const puts = rig.s3!.requests.filter((q) => q.method === 'PUT').slice(putsBefore).map((q) => decodeURIComponent(q.path));
    // Each segment number was PUT once (a new presign would have PUT it again, under a new key): the
    // retries after a failed record did not send the bytes again.
    const seqs = puts.map((p) => /\/segments\/(\d+)-/.exec(p)?.[1]).filter((x) => x !== undefined);
    expect(seqs.length).toBeGreaterThanOrEqual(3);
    expect(new Set(seqs).size).toBe(seqs.length);
    for (const row of rows) expect(puts.filter((p) => p.endsWith(row.storage_key))).toHaveLength(1);
    expect(problems).toEqual([]);
    await closeContext(context);
  }, 120_000);
});
