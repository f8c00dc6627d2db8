import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestInput } from '../../src/modules/catalog/schemas.js';
import { DOCX } from '../../src/modules/attempts/file-content.js';
import { sweepPendingUploads } from '../../src/modules/proctoring/direct-uploads.js';
import { storageFor } from '../../src/platform/storage/storage.js';
import { componentAvailable } from '../helpers/components.js';
import { createHarness, manualClock, type Harness } from '../helpers/harness.js';
import { hasS3, startS3Server, type S3TestServer } from '../helpers/s3-server.js';
import { Student, assign, createPublishedTest } from '../helpers/student.js';

/**
 * File answers uploaded directly with S3 storage (s3rver, signatures
 * checked): presign, PUT to the bucket, record. The record checks the
 * object by HEAD and two ranged reads (never the whole file): the type by
 * its first bytes and, for a zip, by the central directory at its end; a
 * file whose bytes lie about its type is refused and deleted.
 */
const withS3 = componentAvailable('S3 server (@20minutes/s3rver)', hasS3, 'npm install (a devDependency)');
const MAX = 1024 * 1024;
const TEST: TestInput = {
  title: 'Coursework',
  description: 'Files',
  durationMinutes: 60,
  proctoring: 'none',
  marking: 'hybrid',
  resultVisibility: 'after_review',
  passPercent: 50,
  questions: [
    { id: 'scan', type: 'file_upload', prompt: 'Upload your drawing', points: 5, accept: ['application/pdf', 'image/*'], maxBytes: MAX },
    { id: 'doc', type: 'file_upload', prompt: 'Upload your essay', points: 5, accept: [DOCX], maxBytes: MAX },
  ],
};

const PNG = Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), Buffer.alloc(200, 7)]);

/** Local file headers only (stored, empty), no central directory. */
function zipOf(names: string[]): Buffer {
  return Buffer.concat(
    names.map((name) => {
      const header = Buffer.alloc(30);
      header.writeUInt32LE(0x04034b50, 0);
      header.writeUInt16LE(Buffer.byteLength(name), 26);
      return Buffer.concat([header, Buffer.from(name, 'latin1')]);
    }),
  );
}

/** A zip as an office program writes it: local entries, then the central directory naming each one at the end. */
function zipWithDirectory(entries: Array<{ name: string; size: number }>): Buffer {
  const parts: Buffer[] = [];
  const central: Buffer[] = [];
  let offset = 0;
  for (const e of entries) {
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(Buffer.byteLength(e.name), 26);
    const body = Buffer.alloc(e.size, 0x41);
    parts.push(local, Buffer.from(e.name, 'latin1'), body);
    const dir = Buffer.alloc(46);
    dir.writeUInt32LE(0x02014b50, 0);
    dir.writeUInt16LE(Buffer.byteLength(e.name), 28);
    dir.writeUInt32LE(offset, 42);
    central.push(dir, Buffer.from(e.name, 'latin1'));
    offset += 30 + Buffer.byteLength(e.name) + e.size;
  }
  return Buffer.concat([...parts, ...central, Buffer.alloc(22)]);
}

const clock = manualClock(new Date());
let h: Harness;
let s3: S3TestServer;
let testId: string;
let apiBytes = 0;

describe.runIf(withS3)('direct answer-file uploads (S3 storage)', () => {
  beforeAll(async () => {
    s3 = await startS3Server();
    h = await createHarness({ clock, config: { storage: s3.config } });
    testId = await createPublishedTest(h, h.a, TEST);
    const inject = h.app.inject.bind(h.app);
    h.app.inject = ((opts: { payload?: string | Buffer }) => {
      if (opts.payload !== undefined) apiBytes += Buffer.byteLength(opts.payload);
      return inject(opts as never);
    }) as typeof h.app.inject;
  });
  afterAll(async () => {
    await h?.close();
    await s3?.close();
  });

  async function started(who: string) {
    const a = await assign(h, h.a, { externalUserId: who, testId });
    const s = new Student(h);
    await s.start(a.startUrl);
    await s.page(a.assignmentId);
    return { assignmentId: a.assignmentId, s };
  }
  const post = (t: { assignmentId: string; s: Student }, path: string, body: unknown) =>
    h.app.inject({
      method: 'POST',
      url: `/a/${t.assignmentId}/files/${path}`,
      headers: { cookie: t.s.cookie!, 'x-csrf-token': t.s.csrf!, 'content-type': 'application/json' },
      payload: JSON.stringify(body),
    });
  const sha = (b: Buffer) => createHash('sha256').update(b).digest('base64');
  const presign = (t: { assignmentId: string; s: Student }, q: string, file: Buffer, opts: { type?: string; name?: string; version?: number } = {}) =>
    post(t, `${q}/uploads`, { bytes: file.length, contentType: opts.type ?? 'image/png', fileName: opts.name ?? 'drawing.png', version: opts.version ?? 1, sha256: sha(file) });
  const put = (signed: { upload: { url: string; headers: Record<string, string> } }, body: Buffer, headers: Record<string, string> = signed.upload.headers) =>
    fetch(signed.upload.url, { method: 'PUT', body: new Uint8Array(body), headers });
  const answerFiles = async (assignmentId: string) =>
    (await h.pool.query('SELECT question_id, content_type, bytes::int AS bytes, sha256, storage_key FROM answer_files WHERE assignment_id = $1', [assignmentId])).rows;
  const pending = async (assignmentId: string) => (await h.pool.query('SELECT 1 FROM pending_uploads WHERE assignment_id = $1', [assignmentId])).rowCount;

  it('presign, PUT, record: the answer is the file, its hash the signed one; the API carries JSON only; a second record answers the same', async () => {
    const t = await started('direct-1');
    const file = Buffer.concat([PNG, Buffer.alloc(200_000, 3)]);
    apiBytes = 0;
    const signed = await presign(t, 'scan', file);
    expect(signed.statusCode, signed.body).toBe(200);
    const s = signed.json();
    expect(s.upload.headers['x-amz-checksum-sha256']).toBe(sha(file));
    expect((await put(s, file)).status).toBe(200);
    const rec = await post(t, 'uploads/record', { key: s.key });
    expect(rec.statusCode, rec.body).toBe(200);
    expect(rec.json()).toMatchObject({ questionId: 'scan', contentType: 'image/png', bytes: file.length, version: 1, saved: true });
    expect(await answerFiles(t.assignmentId)).toEqual([
      { question_id: 'scan', content_type: 'image/png', bytes: file.length, sha256: createHash('sha256').update(file).digest('hex'), storage_key: s.key },
    ]);
    const again = await post(t, 'uploads/record', { key: s.key });
    expect(again.statusCode, again.body).toBe(200);
    expect(again.json().fileId).toBe(rec.json().fileId);
    expect(await pending(t.assignmentId)).toBe(0);
    expect(apiBytes).toBeLessThan(1_500);
  });

  it('two record calls at once make one answer and keep its file', async () => {
    const t = await started('direct-race');
    const file = Buffer.concat([PNG, Buffer.alloc(5_000, 5)]);
    const s = (await presign(t, 'scan', file)).json();
    expect((await put(s, file)).status).toBe(200);
    const [a, b] = await Promise.all([post(t, 'uploads/record', { key: s.key }), post(t, 'uploads/record', { key: s.key })]);
    expect([a.statusCode, b.statusCode], `${a.body} ${b.body}`).toEqual([200, 200]);
    expect(a.json().fileId).toBe(b.json().fileId);
    expect(a.json().version).toBe(1);
    expect(b.json().version).toBe(1);
    expect((await storageFor(h.ctx.config).head(s.key))?.size).toBe(file.length);
    expect(await answerFiles(t.assignmentId)).toHaveLength(1);
  });

  it('the checksum is a signed header: a PUT without it, or with another, is refused by the server', async () => {
    const t = await started('direct-2');
    const file = Buffer.concat([PNG, Buffer.alloc(1_000, 4)]);
    const s = (await presign(t, 'scan', file)).json();
    const { 'x-amz-checksum-sha256': _drop, ...without } = s.upload.headers;
    expect((await put(s, file, without)).status).toBe(403);
    expect((await put(s, file, { ...s.upload.headers, 'x-amz-checksum-sha256': sha(Buffer.from('other')) })).status).toBe(403);
    expect(await storageFor(h.ctx.config).head(s.key)).toBeNull();
  });

  it('a file whose first bytes lie about its type is refused and deleted; the previous answer stays', async () => {
    const t = await started('direct-3');
    const good = Buffer.concat([PNG, Buffer.alloc(500, 1)]);
    const first = (await presign(t, 'scan', good)).json();
    await put(first, good);
    expect((await post(t, 'uploads/record', { key: first.key })).statusCode).toBe(200);
    // Plain text named and claimed as a PNG.
    const liar = Buffer.from('this is not a picture at all\n'.repeat(4000));
    const s = (await presign(t, 'scan', liar, { type: 'image/png', version: 2 })).json();
    expect((await put(s, liar)).status).toBe(200);
    const rec = await post(t, 'uploads/record', { key: s.key });
    expect(rec.statusCode, rec.body).toBe(415);
    expect(rec.json().error.message).toContain('plain text');
    expect(await storageFor(h.ctx.config).head(s.key)).toBeNull();
    expect(await pending(t.assignmentId)).toBe(0);
    expect((await answerFiles(t.assignmentId)).map((f) => f.storage_key)).toEqual([first.key]);
  });

  it("a large office file is told by the zip's central directory at its end (a second ranged read), not by reading it whole", async () => {
    const t = await started('direct-4');
    // [Content_Types].xml first, the word/ part past the first 64 KiB: only the end names it within the reads.
    const docx = zipWithDirectory([{ name: '[Content_Types].xml', size: 100 }, { name: 'padding.bin', size: 300_000 }, { name: 'word/document.xml', size: 50_000 }]);
    const s = (await presign(t, 'doc', docx, { type: DOCX, name: 'essay.docx' })).json();
    expect((await put(s, docx)).status).toBe(200);
    const before = s3.requests.length;
    const rec = await post(t, 'uploads/record', { key: s.key });
    expect(rec.statusCode, rec.body).toBe(200);
    expect(rec.json().contentType).toBe(DOCX);
    const reads = s3.requests.slice(before).filter((q) => q.method === 'GET');
    expect(reads.length).toBe(2);
    // The same bytes without a central directory are a bare zip to the two reads: refused for this question.
    const bare = Buffer.concat([zipOf(['[Content_Types].xml']), Buffer.alloc(300_000), zipOf(['word/document.xml'])]);
    const s2 = (await presign(t, 'doc', bare, { type: 'application/octet-stream', name: 'essay.docx', version: 2 })).json();
    await put(s2, bare);
    const rec2 = await post(t, 'uploads/record', { key: s2.key });
    expect(rec2.statusCode, rec2.body).toBe(415);
  });

  it('over the limit is refused before signing; a file put but never recorded is deleted by the sweep', async () => {
    const t = await started('direct-5');
    const big = await post(t, 'scan/uploads', { bytes: MAX + 1, contentType: 'image/png', fileName: 'a.png', version: 1, sha256: sha(Buffer.alloc(1)) });
    expect(big.statusCode).toBe(413);
    const file = Buffer.concat([PNG, Buffer.alloc(100, 2)]);
    const s = (await presign(t, 'scan', file)).json();
    await put(s, file);
    clock.advance(10 * 60_000);
    await sweepPendingUploads(h.ctx);
    expect(await storageFor(h.ctx.config).head(s.key)).toBeNull();
    expect(await pending(t.assignmentId)).toBe(0);
    expect(await answerFiles(t.assignmentId)).toEqual([]);
  });

  it('signing holds no database connection: a presign waiting on the signer (the SDK loading, credentials) leaves the pool alone', async () => {
    const t = await started('direct-6');
    const file = Buffer.concat([PNG, Buffer.alloc(100, 4)]);
    const store = storageFor(h.ctx.config);
    const sign = store.presignPut!;
    let release!: () => void;
    let entered!: () => void;
    const signing = new Promise<void>((resolve) => (entered = resolve));
    const held = new Promise<void>((resolve) => (release = resolve));
    store.presignPut = async (...args) => {
      entered();
      await held;
      return sign(...args);
    };
    try {
      const answer = presign(t, 'scan', file);
      await signing;
      // While the signer waits, no connection of this database sits in an open transaction.
      const open = await h.pool.query("SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND state LIKE 'idle in transaction%'");
      expect(open.rows[0].n).toBe(0);
      release();
      const signed = await answer;
      expect(signed.statusCode, signed.body).toBe(200);
      // The intent is on record once the URL has left.
      expect(await pending(t.assignmentId)).toBe(1);
    } finally {
      release();
      store.presignPut = sign;
    }
  });
});

describe('direct answer-file uploads with local storage', () => {
  it('are refused: files go through the API there', async () => {
    const local = await createHarness();
    try {
      const tid = await createPublishedTest(local, local.a, TEST);
      const a = await assign(local, local.a, { externalUserId: 'local', testId: tid });
      const s = new Student(local);
      await s.start(a.startUrl);
      await s.page(a.assignmentId);
      const res = await local.app.inject({
        method: 'POST',
        url: `/a/${a.assignmentId}/files/scan/uploads`,
        headers: { cookie: s.cookie!, 'x-csrf-token': s.csrf!, 'content-type': 'application/json' },
        payload: JSON.stringify({ bytes: 10, contentType: 'image/png', fileName: 'a.png', version: 1, sha256: 'A'.repeat(43) + '=' }),
      });
      expect(res.statusCode).toBe(409);
      expect(res.json().error.message).toContain('S3');
    } finally {
      await local.close();
    }
  });
});
