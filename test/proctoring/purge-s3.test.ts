import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { enqueueJob } from '../../src/platform/jobs.js';
import { storageFor } from '../../src/platform/storage/storage.js';
import { retentionJob, RETENTION_KEY } from '../../src/modules/proctoring/proctoring-jobs.js';
import { componentAvailable } from '../helpers/components.js';
import { createHarness, manualClock, type Harness } from '../helpers/harness.js';
import { createPublishedTest } from '../helpers/student.js';
import { jpeg, proctoredTest, startProctored, webm, type Proctored } from '../helpers/proctoring.js';
import { hasS3, startS3Server, type S3TestServer } from '../helpers/s3-server.js';

/**
 * The retention purge on S3 (s3rver): a recording and snapshot uploaded the
 * way pages upload with S3 (presigned PUT, record) are deleted from the
 * bucket with their rows once the attempt is past the retention; a recent
 * attempt's objects stay. (The same purge on the local store:
 * uploads.test.ts.)
 */
const withS3 = componentAvailable('S3 server (@20minutes/s3rver)', hasS3, 'npm install (a devDependency)');
const clock = manualClock(new Date());
const DAY = 86_400_000;
let h: Harness;
let s3: S3TestServer;
let testId: string;

describe.runIf(withS3)('proctoring retention on S3', () => {
  beforeAll(async () => {
    s3 = await startS3Server();
    h = await createHarness({ clock, config: { storage: s3.config } });
    testId = await createPublishedTest(h, h.a, proctoredTest('record'));
  });
  afterAll(async () => {
    await h?.close();
    await s3?.close();
  });

  async function direct(p: Proctored, intent: Record<string, unknown>, body: Buffer) {
    const signed = (await p.post('uploads', { ...intent, bytes: body.length })).json();
    expect((await fetch(signed.upload.url, { method: 'PUT', headers: signed.upload.headers, body: new Uint8Array(body) })).status).toBe(200);
    expect((await p.post('uploads/record', { key: signed.key })).statusCode).toBe(201);
  }
  const objects = (p: Proctored) => storageFor(h.ctx.config).list(`proctoring/${h.a.institutionId}/${p.assignmentId}/`);
  const count = async (table: string, assignmentId: string) =>
    (await h.pool.query(`SELECT count(*)::int AS n FROM ${table} WHERE assignment_id = $1`, [assignmentId])).rows[0].n as number;

  it('deletes the objects and rows of attempts past the retention, and keeps a recent one', async () => {
    const old = await startProctored(h, h.a, testId, 'old-s3');
    await direct(old, { kind: 'segment', seq: 0, startedAt: clock.now().toISOString(), durationMs: 10_000 }, webm(20_000));
    await direct(old, { kind: 'snapshot', takenAt: clock.now().toISOString(), snapshotId: 'snap-old-001' }, jpeg(5_000));
    expect((await old.student.submit(old.assignmentId)).statusCode).toBe(303);
    clock.advance((h.ctx.config.proctoringRetentionDays + 1) * DAY);
    const recent = await startProctored(h, h.a, testId, 'recent-s3');
    await direct(recent, { kind: 'segment', seq: 0, startedAt: clock.now().toISOString(), durationMs: 10_000 }, webm(20_000));
    expect((await recent.student.submit(recent.assignmentId)).statusCode).toBe(303);
    expect(await objects(old)).toHaveLength(2);

    const deletesBefore = s3.requests.filter((q) => q.method === 'DELETE' || q.query.includes('delete')).length;
    await enqueueJob(h.pool, retentionJob, {}, { runAt: clock.now(), uniqueKey: RETENTION_KEY });
    await h.runJobs();

    expect(await objects(old)).toEqual([]);
    expect(s3.requests.filter((q) => q.method === 'DELETE' || q.query.includes('delete')).length).toBeGreaterThan(deletesBefore);
    expect(await count('recording_segments', old.assignmentId)).toBe(0);
    expect(await count('proctoring_snapshots', old.assignmentId)).toBe(0);
    expect(await objects(recent)).toHaveLength(1);
    expect(await count('recording_segments', recent.assignmentId)).toBe(1);
  });
});
