import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { enqueueJob } from '../../src/platform/jobs.js';
import { storageFor } from '../../src/platform/storage/storage.js';
import { PENDING_UPLOADS_KEY, pendingUploadsJob } from '../../src/modules/proctoring/proctoring-jobs.js';
import { createHarness, manualClock, type Harness } from '../helpers/harness.js';
import { createPublishedTest } from '../helpers/student.js';
import { jpeg, proctoredTest, startProctored, webm, type Proctored } from '../helpers/proctoring.js';
import { hasS3, startS3Server, type S3TestServer } from '../helpers/s3-server.js';
import { componentAvailable } from '../helpers/components.js';

/**
 * Direct uploads with S3 storage, against a real S3-compatible server
 * (s3rver, signatures checked): the page asks for a presigned PUT, puts the
 * bytes to S3, and asks for the record. The API receives JSON only; S3
 * refuses a body or type other than the signed one; a stored object that
 * fails the checks is deleted; the sweep records what the page never did.
 */
const withS3 = componentAvailable('S3 server (@20minutes/s3rver)', hasS3, 'npm install (a devDependency)');
const clock = manualClock(new Date());
let h: Harness;
let s3: S3TestServer;
let testId: string;
/** Bytes of every request body the API received during the tests (all requests go through inject). */
let apiBodyBytes = 0;
let s3BodyBytes = 0;

describe.runIf(withS3)('direct uploads (S3 storage)', () => {
  beforeAll(async () => {
    s3 = await startS3Server();
    h = await createHarness({ clock, config: { storage: s3.config, directUploadSeconds: 300 } });
    testId = await createPublishedTest(h, h.a, proctoredTest('record'));
    const inject = h.app.inject.bind(h.app);
    h.app.inject = ((opts: { payload?: string | Buffer }) => {
      if (opts.payload !== undefined) apiBodyBytes += Buffer.byteLength(opts.payload);
      return inject(opts as never);
    }) as typeof h.app.inject;
  });
  afterAll(async () => {
    await h?.close();
    await s3?.close();
  });

  const presignSegment = (p: Proctored, seq: number, bytes: number) =>
    p.post('uploads', { kind: 'segment', seq, bytes, startedAt: clock.now().toISOString(), durationMs: 10_000 });
  const put = async (signed: { upload: { url: string; headers: Record<string, string> } }, body: Buffer, type?: string) => {
    s3BodyBytes += body.length;
    return fetch(signed.upload.url, { method: 'PUT', body: new Uint8Array(body), headers: { ...signed.upload.headers, ...(type ? { 'content-type': type } : {}) } });
  };
  const count = async (table: string, assignmentId: string) =>
    (await h.pool.query(`SELECT count(*)::int AS n FROM ${table} WHERE assignment_id = $1`, [assignmentId])).rows[0].n as number;

  it('presigns, the bytes go to S3, the record writes the row once; the API received no upload bytes', async () => {
    apiBodyBytes = 0;
    s3BodyBytes = 0;
    const p = await startProctored(h, h.a, testId);
    apiBodyBytes = 0;
    const body = webm(200_000);
    const signed = await presignSegment(p, 0, body.length);
    expect(signed.statusCode, signed.body).toBe(200);
    const s = signed.json();
    expect(s.direct).toBe(true);
    expect(s.key).toMatch(new RegExp(`^proctoring/${h.a.institutionId}/${p.assignmentId}/segments/00000-`));
    expect(await count('pending_uploads', p.assignmentId)).toBe(1);
    expect((await put(s, body)).status).toBe(200);

    const rec = await p.post('uploads/record', { key: s.key });
    expect(rec.statusCode, rec.body).toBe(201);
    expect(rec.json()).toEqual({ kind: 'segment', seq: 0, stored: true });
    const again = await p.post('uploads/record', { key: s.key });
    expect(again.statusCode, again.body).toBe(200);
    expect(again.json()).toEqual({ kind: 'segment', seq: 0, stored: false });
    expect(await count('recording_segments', p.assignmentId)).toBe(1);
    expect(await count('pending_uploads', p.assignmentId)).toBe(0);
    // A retry of the same seq is told it is stored, without a presigned request.
    expect((await presignSegment(p, 0, body.length)).json()).toEqual({ direct: false, seq: 0, stored: false });

    const snapBody = jpeg(30_000);
    const snap = (await p.post('uploads', { kind: 'snapshot', bytes: snapBody.length, takenAt: clock.now().toISOString(), snapshotId: 'snap-client-1' })).json();
    expect((await put(snap, snapBody)).status).toBe(200);
    const snapRec = await p.post('uploads/record', { key: snap.key });
    expect(snapRec.statusCode, snapRec.body).toBe(201);
    expect(await count('proctoring_snapshots', p.assignmentId)).toBe(1);

    expect((await storageFor(h.ctx.config).head(s.key))?.size).toBe(body.length);
    // What the API received: a few hundred bytes of JSON; what S3 received: the files.
    expect(s3BodyBytes).toBe(230_000);
    expect(apiBodyBytes).toBeLessThan(2_000);
  });

  it('signs before the intent is written: no pool connection is held while a signature is made', async () => {
    const p = await startProctored(h, h.a, testId);
    const store = storageFor(h.ctx.config);
    const sign = store.presignPut!;
    const held: number[] = [];
    // Signing can wait (the SDK's first load, fetched credentials): here it waits 50 ms, and says what the pool had out.
    store.presignPut = async (...args) => {
      held.push(h.pool.totalCount - h.pool.idleCount);
      await new Promise((r) => setTimeout(r, 50));
      return sign(...args);
    };
    try {
      const signed = await presignSegment(p, 0, 1000);
      expect(signed.statusCode, signed.body).toBe(200);
      expect(held).toEqual([0]);
      // The URL left with its intent on record.
      expect(await count('pending_uploads', p.assignmentId)).toBe(1);
    } finally {
      store.presignPut = sign;
    }
  });

  it("the test page's CSP lets it connect to the bucket's origin", async () => {
    const p = await startProctored(h, h.a, testId);
    const page = await h.app.inject({ method: 'GET', url: `/a/${p.assignmentId}`, headers: { cookie: p.student.cookie! } });
    expect(page.statusCode).toBe(200);
    expect(page.headers['content-security-policy']).toContain(`connect-src 'self' ${s3.endpoint};`);
    // The page is told to upload directly.
    const state = JSON.parse(/<script type="application\/json" id="assay-state">([\s\S]*?)<\/script>/.exec(page.body)![1]!);
    expect(state.proctoring.directUploads).toBe(true);
  });

  it('S3 refuses a body longer than signed, or another type; nothing is stored', async () => {
    const p = await startProctored(h, h.a, testId);
    const s = (await presignSegment(p, 1, 5_000)).json();
    expect((await put(s, webm(5_001))).status).toBe(403);
    expect((await put(s, webm(5_000), 'image/jpeg')).status).toBe(403);
    expect(await storageFor(h.ctx.config).head(s.key)).toBeNull();
    const rec = await p.post('uploads/record', { key: s.key });
    expect(rec.statusCode).toBe(409);
    expect(rec.json().error.code).toBe('invalid_state');
  });

  it('a stored object that fails the checks is deleted, with a clear error; over the limit is refused before signing', async () => {
    const p = await startProctored(h, h.a, testId);
    const s = (await presignSegment(p, 2, 4_000)).json();
    expect((await put(s, Buffer.alloc(4_000, 1))).status).toBe(200);
    const rec = await p.post('uploads/record', { key: s.key });
    expect(rec.statusCode, rec.body).toBe(415);
    expect(rec.json().error).toMatchObject({ code: 'unsupported_media_type', message: expect.stringContaining('not a WebM file') });
    expect(await storageFor(h.ctx.config).head(s.key)).toBeNull();
    expect(await count('pending_uploads', p.assignmentId)).toBe(0);
    expect(await count('recording_segments', p.assignmentId)).toBe(0);

    const big = await presignSegment(p, 3, 4 * 1024 * 1024 + 1);
    expect(big.statusCode).toBe(413);
    // Another attempt's key is not this page's to record.
    const other = await startProctored(h, h.a, testId);
    const theirs = (await presignSegment(other, 0, 3_000)).json();
    expect((await p.post('uploads/record', { key: theirs.key })).statusCode).toBe(404);
  });

  it('the sweep records an upload the page put but never recorded, and deletes one never put', async () => {
    const p = await startProctored(h, h.a, testId);
    const body = webm(9_000);
    const put0 = (await presignSegment(p, 0, body.length)).json();
    expect((await put(put0, body)).status).toBe(200);
    const never = (await presignSegment(p, 1, body.length)).json();
    clock.advance(6 * 60_000);
    await enqueueJob(h.pool, pendingUploadsJob, {}, { runAt: clock.now(), uniqueKey: PENDING_UPLOADS_KEY });
    await h.runJobs();
    expect(await count('pending_uploads', p.assignmentId)).toBe(0);
    const { rows } = await h.pool.query('SELECT seq, storage_key, size_bytes FROM recording_segments WHERE assignment_id = $1', [p.assignmentId]);
    expect(rows).toEqual([{ seq: 0, storage_key: put0.key, size_bytes: body.length }]);
    expect(await storageFor(h.ctx.config).head(never.key)).toBeNull();
  });
});

describe('direct uploads with local storage', () => {
  it('are refused: uploads go through the API there', async () => {
    const local = await createHarness();
    try {
      const tid = await createPublishedTest(local, local.a, proctoredTest('record'));
      const p = await startProctored(local, local.a, tid);
      const res = await local.app.inject({
        method: 'POST',
        url: `/a/${p.assignmentId}/proctoring/uploads`,
        headers: { cookie: p.student.cookie!, 'x-csrf-token': p.student.csrf!, 'content-type': 'application/json' },
        payload: JSON.stringify({ kind: 'segment', seq: 0, bytes: 10, startedAt: new Date().toISOString(), durationMs: 1000 }),
      });
      expect(res.statusCode).toBe(409);
      expect(res.json().error.message).toContain('S3');
    } finally {
      await local.close();
    }
  });
});
