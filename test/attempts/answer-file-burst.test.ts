import { createHash } from 'node:crypto';
import { Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestInput } from '../../src/modules/catalog/schemas.js';
import { parseConfig } from '../../src/platform/config.js';
import { storageFor } from '../../src/platform/storage/storage.js';
import { componentAvailable } from '../helpers/components.js';
import { createHarness, type Harness } from '../helpers/harness.js';
import { hasS3, startS3Server, type S3TestServer } from '../helpers/s3-server.js';
import { Student, assign, createPublishedTest } from '../helpers/student.js';

/**
 * File answers sent together (a class told to hand in now): their database
 * work, the checks before the body and the record after it, runs two at a
 * time, so a burst of uploads never holds more than two of the pool's
 * connections; the session, which the upload route may take from this
 * process's recent ones, is looked up again before the body is read.
 */
const TEST: TestInput = {
  title: 'Hand-in',
  description: 'One file',
  durationMinutes: 60,
  proctoring: 'none',
  marking: 'manual',
  resultVisibility: 'after_review',
  passPercent: null,
  questions: [{ id: 'scan', type: 'file_upload', prompt: 'Upload your drawing', points: 5, accept: ['image/png'], maxBytes: 1024 * 1024 }],
};
const PNG = Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), Buffer.alloc(300_000, 7)]);

let h: Harness;
let testId: string;
/** Rate limits kept in memory: the only statements during a burst are the uploads' own. */
const operations = { ...parseConfig({}).operations, rateLimitStore: 'memory' as const };

async function started(externalUserId: string) {
  const a = await assign(h, h.a, { externalUserId, testId });
  const s = new Student(h);
  await s.start(a.startUrl);
  // The page load looks the session up: this process now remembers it.
  await s.page(a.assignmentId);
  return { assignmentId: a.assignmentId, s };
}

const upload = (t: { assignmentId: string; s: Student }, body: Buffer | Readable, version = 1) =>
  h.app.inject({
    method: 'POST',
    url: `/a/${t.assignmentId}/files/scan`,
    headers: { 'content-type': 'image/png', 'x-file-name': 'drawing.png', 'x-answer-version': String(version), cookie: t.s.cookie!, 'x-csrf-token': t.s.csrf! },
    payload: body,
  });

/** The pool's most connections checked out at once while `work` runs. */
async function mostConnections(work: () => Promise<void>): Promise<number> {
  let active = 0;
  let most = 0;
  const acquired = () => void (most = Math.max(most, ++active));
  const released = () => void active--;
  h.pool.on('acquire', acquired);
  h.pool.on('release', released);
  try {
    await work();
  } finally {
    h.pool.off('acquire', acquired);
    h.pool.off('release', released);
  }
  return most;
}

describe('file answers sent together', () => {
  beforeAll(async () => {
    h = await createHarness({ config: { operations } });
    testId = await createPublishedTest(h, h.a, TEST);
  });
  afterAll(() => h.close());

  it('take at most two of the pool connections at any moment, and every one is stored as its answer', async () => {
    const students = await Promise.all(Array.from({ length: 8 }, (_, i) => started(`burst-${i}`)));
    const most = await mostConnections(async () => {
      const answers = await Promise.all(students.map((t) => upload(t, PNG)));
      for (const res of answers) {
        expect(res.statusCode, res.body).toBe(200);
        expect(res.json()).toMatchObject({ saved: true, bytes: PNG.length });
      }
    });
    expect(most).toBeLessThanOrEqual(2);
    const { rows } = await h.pool.query(
      `SELECT count(*)::int AS n FROM answers a JOIN answer_files f ON f.id = a.value ->> 'fileId' AND f.bytes = $2 WHERE a.assignment_id = ANY($1)`,
      [students.map((t) => t.assignmentId), PNG.length],
    );
    expect(rows[0].n).toBe(8);
  });

  it('a session ended since this process last saw it (a new start link) is refused 401 before the body is read, storing nothing', async () => {
    const t = await started('revoked');
    const renewed = await h.partner(h.a, 'POST', `/api/partner/v1/assignments/${t.assignmentId}/start-link`);
    expect(renewed.statusCode, renewed.body).toBe(200);
    let produced = 0;
    const total = 8 * 1024 * 1024;
    const body = new Readable({
      read() {
        if (produced >= total) return this.push(null);
        const chunk = produced === 0 ? Buffer.concat([PNG.subarray(0, 8), Buffer.alloc(16 * 1024 - 8)]) : Buffer.alloc(16 * 1024);
        produced += chunk.length;
        this.push(chunk);
      },
    });
    const res = await upload(t, body);
    expect(res.statusCode, res.body).toBe(401);
    expect(res.json().error.code).toBe('unauthenticated');
    expect(produced).toBeLessThan(total / 2);
    const { rows } = await h.pool.query('SELECT count(*)::int AS n FROM answer_files WHERE assignment_id = $1', [t.assignmentId]);
    expect(rows[0].n).toBe(0);
    const { rows: inst } = await h.pool.query('SELECT institution_id FROM assignments WHERE id = $1', [t.assignmentId]);
    expect(await storageFor(h.ctx.config).list(`answers/${inst[0].institution_id}/${t.assignmentId}/`)).toEqual([]);
  });
});

/** The same with S3 storage, where the page uploads directly: presign and record two at a time. */
const withS3 = componentAvailable('S3 server (@20minutes/s3rver)', hasS3, 'npm install (a devDependency)');
describe.runIf(withS3)('direct file answers sent together (S3 storage)', () => {
  let s3: S3TestServer;
  beforeAll(async () => {
    s3 = await startS3Server();
    h = await createHarness({ config: { operations, storage: s3.config } });
    testId = await createPublishedTest(h, h.a, TEST);
  });
  afterAll(async () => {
    await h?.close();
    await s3?.close();
  });
  const sha256 = createHash('sha256').update(PNG).digest('base64');
  const post = (t: { assignmentId: string; s: Student }, path: string, body: unknown) =>
    h.app.inject({
      method: 'POST',
      url: `/a/${t.assignmentId}/files/${path}`,
      headers: { cookie: t.s.cookie!, 'x-csrf-token': t.s.csrf!, 'content-type': 'application/json' },
      payload: JSON.stringify(body),
    });
  const presign = (t: { assignmentId: string; s: Student }) => post(t, 'scan/uploads', { bytes: PNG.length, contentType: 'image/png', fileName: 'drawing.png', version: 1, sha256 });

  it('presign and record with at most two of the pool connections at any moment', async () => {
    const students = await Promise.all(Array.from({ length: 8 }, (_, i) => started(`direct-burst-${i}`)));
    // A first presign loads the AWS SDK: not part of the burst.
    expect((await presign(await started('direct-warm'))).statusCode).toBe(200);
    let signed: Array<{ key: string; upload: { url: string; headers: Record<string, string> } }> = [];
    const presigning = await mostConnections(async () => {
      signed = (await Promise.all(students.map(presign))).map((res) => {
        expect(res.statusCode, res.body).toBe(200);
        return res.json();
      });
    });
    for (const s of signed) expect((await fetch(s.upload.url, { method: 'PUT', headers: s.upload.headers, body: new Uint8Array(PNG) })).status).toBe(200);
    const recording = await mostConnections(async () => {
      const recorded = await Promise.all(students.map((t, i) => post(t, 'uploads/record', { key: signed[i]!.key })));
      for (const res of recorded) expect(res.json()).toMatchObject({ saved: true, bytes: PNG.length });
    });
    expect(presigning).toBeLessThanOrEqual(2);
    expect(recording).toBeLessThanOrEqual(2);
  });

  it('a session ended since this process last saw it is refused 401 at the presign and at the record, storing nothing', async () => {
    const t = await started('direct-revoked');
    const signed = (await presign(t)).json();
    expect((await fetch(signed.upload.url, { method: 'PUT', headers: signed.upload.headers, body: new Uint8Array(PNG) })).status).toBe(200);
    expect((await h.partner(h.a, 'POST', `/api/partner/v1/assignments/${t.assignmentId}/start-link`)).statusCode).toBe(200);
    const record = await post(t, 'uploads/record', { key: signed.key });
    expect(record.statusCode, record.body).toBe(401);
    expect(record.json().error.code).toBe('unauthenticated');
    const again = await presign(t);
    expect(again.statusCode, again.body).toBe(401);
    const { rows } = await h.pool.query('SELECT count(*)::int AS n FROM answer_files WHERE assignment_id = $1', [t.assignmentId]);
    expect(rows[0].n).toBe(0);
  });
});
