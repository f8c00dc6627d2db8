import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RETENTION_KEY, retentionJob } from '../../src/modules/proctoring/proctoring-jobs.js';
import { enqueueJob } from '../../src/platform/jobs.js';
import { storageFor } from '../../src/platform/storage/storage.js';
import type { TestInput } from '../../src/modules/catalog/schemas.js';
import { createHarness, manualClock, type Harness, type Tenant } from '../helpers/harness.js';
import { portalGet, portalPost, signedIn } from '../helpers/portal.js';
import { Student, assign, createPublishedTest } from '../helpers/student.js';
import { testModeTenant } from '../helpers/test-mode.js';
import { componentAvailable } from '../helpers/components.js';
import { hasS3, startS3Server, type S3TestServer } from '../helpers/s3-server.js';

/**
 * Answer files are personal data: the retention run (ASSAY_PROCTORING_RETENTION_DAYS
 * after submission, once the marks are final) removes their objects and rows,
 * and a wipe of test-mode data removes them with the assignment. Run on
 * both stores: the local folder, and S3 (s3rver, a real S3 API).
 */
const DAY = 86_400_000;
const clock = manualClock(new Date('2032-01-10T10:00:00Z'));
const PNG = Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), Buffer.alloc(64, 3)]);
const TEST: TestInput = {
  title: 'Sketchbook',
  description: 'One file',
  durationMinutes: 30,
  proctoring: 'none',
  marking: 'manual',
  resultVisibility: 'after_review',
  questions: [{ id: 'sketch', type: 'file_upload', prompt: 'Upload a sketch', points: 5, accept: ['image/png'] }],
};

let h: Harness;
let testId: string;
const withS3 = componentAvailable('S3 server (@20minutes/s3rver)', hasS3, 'npm install (a devDependency)');
const STORES = ['local', ...(withS3 ? ['s3'] : [])] as const;

async function withFile(tenant: Tenant, externalUserId: string, submit = true) {
  const a = await assign(h, tenant, { testId, externalUserId });
  const s = new Student(h);
  await s.start(a.startUrl);
  await s.page(a.assignmentId);
  const up = storageFor(h.ctx.config).kind === 's3' ? await uploadDirect(a.assignmentId, s) : await h.app.inject({
    method: 'POST',
    url: `/a/${a.assignmentId}/files/sketch`,
    headers: { 'content-type': 'image/png', 'x-file-name': 'sketch.png', 'x-answer-version': '1', cookie: s.cookie!, 'x-csrf-token': s.csrf! },
    payload: PNG,
  });
  expect(up.statusCode, up.body).toBe(200);
  if (submit) expect((await s.submit(a.assignmentId)).statusCode).toBe(303);
  return { assignmentId: a.assignmentId, fileId: up.json().fileId as string };
}

/** With S3, as the page uploads there: presign, PUT to the bucket, record. */
async function uploadDirect(assignmentId: string, s: Student) {
  const post = (path: string, body: unknown) =>
    h.app.inject({ method: 'POST', url: `/a/${assignmentId}/files/${path}`, headers: { 'content-type': 'application/json', cookie: s.cookie!, 'x-csrf-token': s.csrf! }, payload: JSON.stringify(body) });
  const sha256 = createHash('sha256').update(PNG).digest('base64');
  const signed = (await post('sketch/uploads', { bytes: PNG.length, contentType: 'image/png', fileName: 'sketch.png', version: 1, sha256 })).json();
  expect((await fetch(signed.upload.url, { method: 'PUT', headers: signed.upload.headers, body: new Uint8Array(PNG) })).status).toBe(200);
  return post('uploads/record', { key: signed.key });
}

const objects = (institutionId: string, assignmentId: string) => storageFor(h.ctx.config).list(`answers/${institutionId}/${assignmentId}/`);
const rowCount = async (assignmentId: string) => (await h.pool.query('SELECT count(*)::int AS n FROM answer_files WHERE assignment_id = $1', [assignmentId])).rows[0].n as number;

async function runRetention() {
  await enqueueJob(h.pool, retentionJob, {}, { runAt: clock.now(), uniqueKey: RETENTION_KEY });
  await h.runJobs();
}

async function markAll(assignmentId: string) {
  const reviewer = await signedIn(h, 'reviewer', h.a.institutionId);
  const page = await portalGet(h, reviewer, `/portal/marking/${assignmentId}`);
  const version = /name="version" value="([^"]+)"/.exec(page.body)![1]!;
  const res = await portalPost(h, reviewer, `/portal/marking/${assignmentId}`, { version, action: 'finish', 'points-sketch': '4' });
  expect(res.statusCode, res.body).toBe(303);
  return reviewer;
}

describe.each(STORES)('answer file retention (%s storage)', (store) => {
  let s3: S3TestServer | null = null;
  beforeAll(async () => {
    if (store === 's3') s3 = await startS3Server();
    h = await createHarness({ clock, config: { proctoringRetentionDays: 30, ...(s3 ? { storage: s3.config } : {}) } });
    testId = await createPublishedTest(h, h.a, TEST);
  });
  afterAll(async () => {
    await h?.close();
    await s3?.close();
  });

  it('stores the files in the store under test', () => {
    expect(storageFor(h.ctx.config).kind).toBe(store);
  });

  it('removes the files of attempts submitted past the retention with final marks; keeps those awaiting a reviewer, recent ones, and open attempts', async () => {
    const marked = await withFile(h.a, 'ret-1');
    const waiting = await withFile(h.a, 'ret-2');
    const open = await withFile(h.a, 'ret-3', false);
    await markAll(marked.assignmentId);

    clock.advance(29 * DAY);
    await runRetention();
    expect(await objects(h.a.institutionId, marked.assignmentId)).toHaveLength(1);
    expect(await rowCount(marked.assignmentId)).toBe(1);

    clock.advance(2 * DAY);
    const recent = await withFile(h.a, 'ret-4');
    await markAll(recent.assignmentId);
    await runRetention();
    expect(await objects(h.a.institutionId, marked.assignmentId)).toEqual([]);
    expect(await rowCount(marked.assignmentId)).toBe(0);
    // The answer and its mark stand; the portal says the file is gone.
    const { rows } = await h.pool.query("SELECT value FROM answers WHERE assignment_id = $1 AND question_id = 'sketch'", [marked.assignmentId]);
    expect(rows[0].value).toEqual({ fileId: marked.fileId });
    const admin = await signedIn(h, 'admin', h.a.institutionId);
    expect((await portalGet(h, admin, `/portal/assignments/${marked.assignmentId}`)).body).toContain('The file is no longer stored.');
    expect((await portalGet(h, admin, `/portal/files/${marked.fileId}`)).statusCode).toBe(404);

    for (const kept of [waiting, open, recent]) {
      expect(await objects(h.a.institutionId, kept.assignmentId)).toHaveLength(1);
      expect(await rowCount(kept.assignmentId)).toBe(1);
    }
  });

  it('a wipe of test-mode data removes the files of its assignments with their rows', async () => {
    const sandbox = await testModeTenant(h, h.a);
    const t = await withFile(sandbox, 'sandbox-1');
    const live = await withFile(h.a, 'live-1');
    expect(await objects(h.a.institutionId, t.assignmentId)).toHaveLength(1);
    const res = await h.partner(sandbox, 'DELETE', '/api/partner/v1/test-data');
    expect(res.statusCode, res.body).toBe(200);
    expect(await objects(h.a.institutionId, t.assignmentId)).toEqual([]);
    expect(await rowCount(t.assignmentId)).toBe(0);
    expect(await objects(h.a.institutionId, live.assignmentId)).toHaveLength(1);
  });
});
