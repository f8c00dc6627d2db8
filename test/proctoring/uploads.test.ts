import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { enqueueJob } from '../../src/platform/jobs.js';
import { storageFor } from '../../src/platform/storage/storage.js';
import { retentionJob, RETENTION_KEY } from '../../src/modules/proctoring/proctoring-jobs.js';
import { createHarness, manualClock, type Harness } from '../helpers/harness.js';
import { expectError } from '../helpers/expect-error.js';
import { createPublishedTest } from '../helpers/student.js';
import { flagsOf, FRAMELESS_WEBM, jpeg, proctoredTest, signal, startProctored, webm, type Proctored } from '../helpers/proctoring.js';

/**
 * Recording segments and snapshots: idempotent, in order, bounded (size,
 * rate), accepted after submission only for what was captured before it;
 * files behind signed URLs (expired and tampered refused); the retention
 * purge deletes files and rows.
 */
const clock = manualClock(new Date());
let h: Harness;
let testId: string;
const MIN = 60_000;

beforeAll(async () => {
  h = await createHarness({ clock });
  testId = await createPublishedTest(h, h.a, proctoredTest('record'));
});
afterAll(() => h.close());

const report = async (assignmentId: string) => {
  const res = await h.admin('GET', `/api/admin/v1/assignments/${assignmentId}/proctoring`);
  expect(res.statusCode, res.body).toBe(200);
  return res.json();
};
const rows = async (table: string, assignmentId: string) =>
  (await h.pool.query(`SELECT count(*)::int AS n FROM ${table} WHERE assignment_id = $1`, [assignmentId])).rows[0].n as number;
const filesOf = (p: Proctored) => storageFor(h.ctx.config).list(`proctoring/${h.a.institutionId}/${p.assignmentId}/`);
const pathOf = (url: string) => new URL(url).pathname;

describe('recording segments', () => {
  let p: Proctored;
  beforeAll(async () => {
    p = await startProctored(h, h.a, testId, 'recorder');
  });

  it('are stored once each: 201 the first time, 200 stored:false for a duplicate, in any order, listed by seq', async () => {
    const first = await p.segment(3, webm(3000, 3));
    expect(first.statusCode, first.body).toBe(201);
    expect(first.json()).toEqual({ seq: 3, stored: true });
    expect(first.headers['cache-control']).toBe('no-store');
    for (const seq of [1, 0, 2]) expect((await p.segment(seq, webm(3000 + seq, seq), { durationMs: 9_000 + seq })).statusCode).toBe(201);
    const again = await p.segment(1, webm(999, 42));
    expect(again.statusCode).toBe(200);
    expect(again.json()).toEqual({ seq: 1, stored: false });

    const r = await report(p.assignmentId);
    expect(r.recording.segments.map((s: { seq: number }) => s.seq)).toEqual([0, 1, 2, 3]);
    expect(r.recording.segments[1]).toMatchObject({ seq: 1, durationMs: 9_001, sizeBytes: 3001, contentType: 'video/webm' });
    expect(r.recording).toMatchObject({ segmentCount: 4, totalDurationMs: 9_000 + 9_001 + 9_002 + 10_000, totalBytes: 3000 + 3000 + 3001 + 3002 });
    // The duplicate wrote nothing: one file per row.
    expect(await filesOf(p)).toHaveLength(4);
    expect(await rows('recording_segments', p.assignmentId)).toBe(4);
  });

  it('concurrent uploads of one seq store one row and one file', async () => {
    const results = await Promise.all(Array.from({ length: 6 }, () => p.segment(7, webm(5000, 7))));
    expect(results.map((r) => r.statusCode).sort()).toEqual([200, 200, 200, 200, 200, 201]);
    expect(results.filter((r) => r.json().stored)).toHaveLength(1);
    expect(await rows('recording_segments', p.assignmentId)).toBe(5);
    expect(await filesOf(p)).toHaveLength(5);
  });

  it('a segment over 4 MiB is 413 naming the limit, a non-WebM body or type is 415, a bad header 400; nothing is stored', async () => {
    const big = await p.segment(20, webm(4 * 1024 * 1024 + 1));
    expectError(big, 413, 'payload_too_large');
    expect(big.json().error.message).toContain('4 MiB');
    expectError(await p.segment(21, webm(), { type: 'video/mp4' }), 415, 'unsupported_media_type');
    expectError(await p.segment(22, Buffer.from('not a video at all')), 415, 'unsupported_media_type');
    // A recorder stopped before its first frame: a WebM header and no video, which no player can open.
    const frameless = expectError(await p.segment(24, FRAMELESS_WEBM), 400, 'invalid_request').error;
    expect(frameless.message).toMatch(/holds no video/);
    expectError(await p.segment(100_000), 400, 'invalid_request');
    const noStart = await h.app.inject({
      method: 'POST',
      url: `/a/${p.assignmentId}/proctoring/segments/23`,
      headers: { cookie: p.student.cookie!, 'x-csrf-token': p.student.csrf!, 'content-type': 'video/webm', 'x-segment-duration-ms': '10000' },
      payload: webm(),
    });
    expectError(noStart, 400, 'invalid_request');
    expect(noStart.json().error.details[0].field).toBe('header x-segment-started-at');
    expect(await rows('recording_segments', p.assignmentId)).toBe(5);
  });

  it('a snapshot over 512 KiB is 413 naming its limit', async () => {
    const big = await p.snapshot(jpeg(512 * 1024 + 1));
    expectError(big, 413, 'payload_too_large');
    expect(big.json().error.message).toContain('512 KiB');
  });

  it('a session sending too fast gets 429 rate_limited with Retry-After, in the envelope', async () => {
    const q = await startProctored(h, h.a, testId, 'flooder');
    const answers = [];
    for (let seq = 0; seq < 32; seq++) answers.push(await q.segment(seq, webm(64)));
    expect(answers.slice(0, 30).every((r) => r.statusCode === 201)).toBe(true);
    const refused = answers[31]!;
    expectError(refused, 429, 'rate_limited');
    expect(Number(refused.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    // The other student is not slowed down by this one.
    expect((await p.segment(40, webm(64))).statusCode).toBe(201);
  });
});

describe('after submission', () => {
  it('accepts for 10 minutes what was captured before submitting, nothing captured after, and still answers duplicates', async () => {
    const p = await startProctored(h, h.a, testId, 'submitter');
    const captured = clock.now();
    expect((await p.segment(0, webm(), { startedAt: captured })).statusCode).toBe(201);
    clock.advance(5_000);
    expect((await p.student.submit(p.assignmentId)).statusCode).toBe(303);
    const submittedAt = clock.now();
    clock.advance(MIN);
    expect((await p.segment(1, webm(), { startedAt: new Date(submittedAt.getTime() - 2_000) })).statusCode).toBe(201);
    expect((await p.snapshot(jpeg(), { takenAt: new Date(submittedAt.getTime() - 1_000) })).statusCode).toBe(201);
    expectError(await p.segment(2, webm(), { startedAt: new Date(submittedAt.getTime() + 1_000) }), 409, 'invalid_state');
    clock.advance(10 * MIN);
    expectError(await p.segment(3, webm(), { startedAt: captured }), 409, 'invalid_state');
    expect((await p.segment(0, webm(), { startedAt: captured })).json()).toEqual({ seq: 0, stored: false });
  });
});

describe('snapshots', () => {
  it('are idempotent by X-Snapshot-Id, become a flag’s evidence with X-Flag-Id, and refuse another attempt’s flag', async () => {
    const p = await startProctored(h, h.a, testId, 'snapper');
    const first = await p.snapshot(jpeg(2000, 1), { snapshotId: 'periodic-000001' });
    expect(first.statusCode, first.body).toBe(201);
    expect(first.json().snapshotId).toMatch(/^snp_/);
    const again = await p.snapshot(jpeg(2000, 2), { snapshotId: 'periodic-000001' });
    expect(again.statusCode).toBe(200);
    expect(again.json()).toEqual(first.json());

    clock.advance(1_000);
    const [flag] = flagsOf(await p.heartbeat([signal('camera-0001', 'camera_stopped', 0, clock.now())]));
    const evidence = await p.snapshot(jpeg(1500, 3), { flagId: flag!.flagId, snapshotId: 'evidence-000001' });
    expect(evidence.statusCode).toBe(201);
    const r = await report(p.assignmentId);
    expect(r.flags[0].evidence).toEqual({ snapshot: true, snapshotId: evidence.json().snapshotId, url: expect.stringContaining('/files/') });
    expect(r.snapshots.map((s: { flagId: string | null }) => s.flagId)).toEqual([null, flag!.flagId]);

    const other = await startProctored(h, h.a, testId, 'other-snapper');
    expectError(await other.snapshot(jpeg(), { flagId: flag!.flagId }), 400, 'invalid_request');
    expectError(await other.snapshot(Buffer.from('GIF89a....')), 415, 'unsupported_media_type');
    expect(await filesOf(p)).toHaveLength(2);
  });
});

describe('signed file URLs', () => {
  let p: Proctored;
  let url: string;
  beforeAll(async () => {
    p = await startProctored(h, h.a, testId, 'viewer');
    expect((await p.segment(0, webm(7000, 5))).statusCode).toBe(201);
    url = (await report(p.assignmentId)).recording.segments[0].url;
  });

  it('stream the exact file with its type, nosniff, no-store, from an unguessable URL on the public base', async () => {
    expect(url.startsWith(`${h.ctx.config.publicBaseUrl}/files/`)).toBe(true);
    expect(url).not.toContain(p.assignmentId);
    const res = await h.app.inject({ method: 'GET', url: pathOf(url) });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('video/webm');
    expect(res.headers['x-content-type-options']).toBe('nosniff');
    expect(res.headers['cache-control']).toBe('no-store');
    expect(res.headers['content-length']).toBe('7000');
    expect(res.rawPayload.equals(webm(7000, 5))).toBe(true);
  });

  it('a tampered token is 404 not_found; an expired one is 410 link_expired; both in the envelope', async () => {
    const [kid, payload, mac] = pathOf(url).replace('/files/', '').split('.') as [string, string, string];
    const forged = Buffer.from(Buffer.from(payload, 'base64url').toString('utf8').replace(/^\d+/, '9999999999')).toString('base64url');
    expectError(await h.app.inject({ method: 'GET', url: `/files/${kid}.${forged}.${mac}` }), 404, 'not_found');
    expectError(await h.app.inject({ method: 'GET', url: `/files/${kid}.${payload}.${mac.slice(0, -2)}AA` }), 404, 'not_found');
    expectError(await h.app.inject({ method: 'GET', url: '/files/nonsense' }), 404, 'not_found');
    clock.advance(15 * MIN + 1_000);
    const expired = await h.app.inject({ method: 'GET', url: pathOf(url) });
    expectError(expired, 410, 'link_expired');
    expect(expired.headers['cache-control']).toBe('no-store');
    // A fresh read gives a working link again.
    const fresh = (await report(p.assignmentId)).recording.segments[0].url;
    expect((await h.app.inject({ method: 'GET', url: pathOf(fresh) })).statusCode).toBe(200);
  });

  it('the partner route gives the same files to the owning institution, and 404 to another institution’s key', async () => {
    const own = await h.partner(h.a, 'GET', `/api/partner/v1/assignments/${p.assignmentId}/proctoring`);
    expect(own.statusCode, own.body).toBe(200);
    const body = own.json();
    expect(body).toMatchObject({ assignmentId: p.assignmentId, mode: 'record', summary: { reviewStatus: 'not_required' } });
    expect(Date.parse(body.urlsExpireAt) - clock.now().getTime()).toBeLessThanOrEqual(15 * MIN);
    expect((await h.app.inject({ method: 'GET', url: pathOf(body.recording.segments[0].url) })).statusCode).toBe(200);
    const foreign = await h.partner(h.b, 'GET', `/api/partner/v1/assignments/${p.assignmentId}/proctoring`);
    expectError(foreign, 404, 'not_found');
    expect(foreign.body).not.toContain('/files/');
  });
});

describe('retention', () => {
  it('purges files and rows of attempts submitted more than ASSAY_PROCTORING_RETENTION_DAYS ago, keeping the counts', async () => {
    const days = h.ctx.config.proctoringRetentionDays;
    const old = await startProctored(h, h.a, testId, 'old-student');
    expect((await old.segment(0)).statusCode).toBe(201);
    expect((await old.snapshot()).statusCode).toBe(201);
    flagsOf(await old.heartbeat([signal('cam-old-01', 'camera_stopped', 0, clock.now()), signal('cp-old-001', 'copy_paste', 0, clock.now(), false)]));
    expect((await old.student.submit(old.assignmentId)).statusCode).toBe(303);
    // A day past the retention; a newer attempt submitted now is kept.
    clock.advance((days + 1) * 24 * 60 * MIN);
    const recent = await startProctored(h, h.a, testId, 'recent-student');
    expect((await recent.segment(0)).statusCode).toBe(201);
    expect((await recent.student.submit(recent.assignmentId)).statusCode).toBe(303);

    expect((await filesOf(old)).length).toBe(2);
    await enqueueJob(h.pool, retentionJob, {}, { runAt: clock.now(), uniqueKey: RETENTION_KEY });
    await h.runJobs();

    expect(await filesOf(old)).toEqual([]);
    for (const table of ['recording_segments', 'proctoring_snapshots', 'proctoring_flags']) expect(await rows(table, old.assignmentId)).toBe(0);
    expect(await filesOf(recent)).toHaveLength(1);
    expect(await rows('recording_segments', recent.assignmentId)).toBe(1);
    const r = await report(old.assignmentId);
    expect(r.purgedAt).toBe(clock.now().toISOString());
    expect(r.flags).toEqual([]);
    expect(r.recording.segments).toEqual([]);
    expect(r.summary).toMatchObject({ critical: 1, warning: 1 });
    const read = await h.partner(h.a, 'GET', `/api/partner/v1/assignments/${old.assignmentId}`);
    expect(read.json().proctoring).toEqual({ mode: 'record', flags: { critical: 1, warning: 1, info: 0 }, reviewStatus: 'pending' });
    // The next run has nothing left to do, and reschedules itself.
    const next = await h.pool.query('SELECT run_at FROM jobs WHERE unique_key = $1', [RETENTION_KEY]);
    expect(next.rows[0].run_at.getTime()).toBe(clock.now().getTime() + 60 * MIN);
  });
});
