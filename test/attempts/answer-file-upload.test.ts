import { createHash } from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import { Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestInput } from '../../src/modules/catalog/schemas.js';
import { storageFor } from '../../src/platform/storage/storage.js';
import { createHarness, manualClock, type Harness } from '../helpers/harness.js';
import { Student, assign, createPublishedTest } from '../helpers/student.js';

/**
 * POST /a/{assignmentId}/files/{questionId}: a file answer streamed to
 * storage, its type told by its bytes, its size limit enforced while it
 * arrives; every refusal stores nothing (no row, no object, the previous
 * answer kept).
 */
const LIMIT = 64 * 1024;
export const UPLOAD_TEST: TestInput = {
  title: 'Portfolio',
  description: 'Sections, a pool and file answers',
  durationMinutes: 60,
  proctoring: 'none',
  marking: 'hybrid',
  resultVisibility: 'after_review',
  passPercent: 50,
  sections: [
    {
      id: 'warm',
      title: 'Warm-up',
      draw: 1,
      questions: [
        { id: 'p1', type: 'short_text', prompt: 'Say hot', points: 1, acceptedAnswers: ['hot'] },
        { id: 'p2', type: 'short_text', prompt: 'Say cold', points: 1, acceptedAnswers: ['cold'] },
      ],
    },
    {
      id: 'work',
      title: 'Your work',
      questions: [
        { id: 'scan', type: 'file_upload', prompt: 'Upload your drawing', points: 5, accept: ['application/pdf', 'image/*'], maxBytes: LIMIT },
        {
          id: 'doc',
          type: 'file_upload',
          prompt: 'Upload your essay',
          points: 5,
          accept: ['text/plain', 'application/vnd.openxmlformats-officedocument.wordprocessingml.document'],
          maxBytes: LIMIT,
        },
        { id: 'es', type: 'essay', prompt: 'Explain', points: 2 },
      ],
    },
  ],
};

export const PNG = Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), Buffer.alloc(200, 7)]);
export const PDF = Buffer.from('%PDF-1.7\n1 0 obj <<>> endobj\ntrailer <<>>\n%%EOF\n');

/** A minimal zip whose local headers name the given entries (stored, empty): enough for the sniffer, as a real docx's are. */
export function zipOf(names: string[]): Buffer {
  return Buffer.concat(
    names.map((name) => {
      const header = Buffer.alloc(30);
      header.writeUInt32LE(0x04034b50, 0);
      header.writeUInt16LE(20, 4);
      header.writeUInt16LE(Buffer.byteLength(name), 26);
      return Buffer.concat([header, Buffer.from(name, 'latin1')]);
    }),
  );
}

const clock = manualClock(new Date());
let h: Harness;
let testId: string;
beforeAll(async () => {
  h = await createHarness({ clock });
  testId = await createPublishedTest(h, h.a, UPLOAD_TEST);
});
afterAll(() => h.close());

async function started(externalUserId: string) {
  const a = await assign(h, h.a, { externalUserId, testId });
  const s = new Student(h);
  await s.start(a.startUrl);
  await s.page(a.assignmentId);
  return { assignmentId: a.assignmentId, s };
}

function upload(
  s: Student,
  assignmentId: string,
  questionId: string,
  body: Buffer | Readable,
  opts: { type?: string; name?: string; version?: number; csrf?: string | null } = {},
) {
  const csrf = opts.csrf === undefined ? s.csrf : opts.csrf;
  return h.app.inject({
    method: 'POST',
    url: `/a/${assignmentId}/files/${questionId}`,
    headers: {
      'content-type': opts.type ?? 'application/octet-stream',
      ...(opts.name !== '' ? { 'x-file-name': encodeURIComponent(opts.name ?? 'drawing.png') } : {}),
      'x-answer-version': String(opts.version ?? 1),
      ...(s.cookie ? { cookie: s.cookie } : {}),
      ...(csrf ? { 'x-csrf-token': csrf } : {}),
    },
    payload: body,
  });
}

const rows = async (assignmentId: string) =>
  (await h.pool.query('SELECT id, question_id, file_name, content_type, bytes::int AS bytes, storage_key FROM answer_files WHERE assignment_id = $1 ORDER BY created_at', [assignmentId])).rows;
const answer = async (assignmentId: string, questionId: string) =>
  (await h.pool.query('SELECT value, version::int AS version FROM answers WHERE assignment_id = $1 AND question_id = $2', [assignmentId, questionId])).rows[0] ?? null;
const objects = async (assignmentId: string) => {
  const { rows: r } = await h.pool.query('SELECT institution_id FROM assignments WHERE id = $1', [assignmentId]);
  return storageFor(h.ctx.config).list(`answers/${r[0].institution_id}/${assignmentId}/`);
};
/** Temporary files of the local store left anywhere under the answers folder. */
function strayTemporaries(): string[] {
  const root = path.join(h.ctx.config.dataDir, 'storage', 'answers');
  if (!fs.existsSync(root)) return [];
  return (fs.readdirSync(root, { recursive: true }) as string[]).filter((f) => path.basename(f).startsWith('.tmp-'));
}
async function drawnPoolQuestion(assignmentId: string): Promise<{ drawn: string; other: string }> {
  const { rows: r } = await h.pool.query('SELECT delivery FROM attempts WHERE assignment_id = $1', [assignmentId]);
  const warm = r[0].delivery.sections.find((x: { sectionId: string }) => x.sectionId === 'warm');
  const drawn = warm.questionIds[0] as string;
  return { drawn, other: drawn === 'p1' ? 'p2' : 'p1' };
}

describe('uploading a file answer', () => {
  it('stores the file, makes { fileId } the answer, and the page state names it after a reload', async () => {
    const { assignmentId, s } = await started('up-1');
    const res = await upload(s, assignmentId, 'scan', PNG, { type: 'image/png', name: 'my drawing (1).png' });
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body).toMatchObject({ questionId: 'scan', fileName: 'my drawing (1).png', contentType: 'image/png', bytes: PNG.length, version: 1, saved: true });
    expect(body.fileId).toMatch(/^fil_/);
    expect(await answer(assignmentId, 'scan')).toEqual({ value: { fileId: body.fileId }, version: 1 });
    const stored = await rows(assignmentId);
    expect(stored).toHaveLength(1);
    expect(stored[0]).toMatchObject({ id: body.fileId, file_name: 'my drawing (1).png', content_type: 'image/png', bytes: PNG.length });
    const { rows: hashed } = await h.pool.query('SELECT sha256 FROM answer_files WHERE id = $1', [body.fileId]);
    expect(hashed[0].sha256).toBe(createHash('sha256').update(PNG).digest('hex'));
    const obj = await storageFor(h.ctx.config).get(stored[0].storage_key);
    const chunks: Buffer[] = [];
    for await (const c of obj!.body) chunks.push(c as Buffer);
    expect(Buffer.concat(chunks).equals(PNG)).toBe(true);

    const page = await s.page(assignmentId);
    const state = JSON.parse(/<script type="application\/json" id="assay-state">([\s\S]*?)<\/script>/.exec(page.body)![1]!);
    expect(state.files).toEqual({ scan: { fileId: body.fileId, fileName: 'my drawing (1).png', contentType: 'image/png', bytes: PNG.length } });
  });

  it('takes a file sent without Content-Type, telling its type by content alone', async () => {
    const { assignmentId, s } = await started('up-0');
    const res = await h.app.inject({
      method: 'POST',
      url: `/a/${assignmentId}/files/scan`,
      headers: { 'x-file-name': 'scan.pdf', 'x-answer-version': '1', cookie: s.cookie!, 'x-csrf-token': s.csrf! },
      payload: PDF,
    });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toMatchObject({ contentType: 'application/pdf', bytes: PDF.length, saved: true });
  });

  it('tells the type by content: a docx (zip with word/) and plain text are accepted where listed', async () => {
    const { assignmentId, s } = await started('up-2');
    const docx = zipOf(['[Content_Types].xml', '_rels/.rels', 'word/document.xml']);
    const res = await upload(s, assignmentId, 'doc', docx, { type: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document', name: 'essay.docx' });
    expect(res.statusCode).toBe(200);
    expect(res.json().contentType).toBe('application/vnd.openxmlformats-officedocument.wordprocessingml.document');
    const text = await upload(s, assignmentId, 'doc', Buffer.from('Grüße, a plain essay.\n'), { type: 'text/plain', name: 'essay.txt', version: 2 });
    expect(text.statusCode).toBe(200);
    expect(text.json()).toMatchObject({ contentType: 'text/plain', saved: true, version: 2 });
  });

  it('replacing the file removes the old object and row once the new answer is stored', async () => {
    const { assignmentId, s } = await started('up-3');
    const first = (await upload(s, assignmentId, 'scan', PNG, { type: 'image/png', version: 1 })).json();
    const second = await upload(s, assignmentId, 'scan', PDF, { type: 'application/pdf', name: 'scan.pdf', version: 2 });
    expect(second.statusCode).toBe(200);
    expect(await answer(assignmentId, 'scan')).toEqual({ value: { fileId: second.json().fileId }, version: 2 });
    const left = await rows(assignmentId);
    expect(left.map((r) => r.id)).toEqual([second.json().fileId]);
    expect((await objects(assignmentId)).map((o) => o.key)).toEqual([left[0].storage_key]);
    expect(left[0].storage_key).not.toContain(first.fileId);
  });

  it('an older version than the stored answer is not stored (saved: false) and leaves nothing behind', async () => {
    const { assignmentId, s } = await started('up-4');
    const newer = (await upload(s, assignmentId, 'scan', PNG, { type: 'image/png', version: 5 })).json();
    const stale = await upload(s, assignmentId, 'scan', PDF, { type: 'application/pdf', version: 4 });
    expect(stale.statusCode).toBe(200);
    expect(stale.json()).toMatchObject({ saved: false, version: 5 });
    expect(await answer(assignmentId, 'scan')).toEqual({ value: { fileId: newer.fileId }, version: 5 });
    expect((await rows(assignmentId)).map((r) => r.id)).toEqual([newer.fileId]);
    expect(await objects(assignmentId)).toHaveLength(1);
  });

  it('a cleared file (autosave null) is no longer served as the answer, and the next upload removes it', async () => {
    const { assignmentId, s } = await started('up-5');
    await upload(s, assignmentId, 'scan', PNG, { type: 'image/png', version: 1 });
    expect((await s.save(assignmentId, [{ questionId: 'scan', value: null, version: 2 }])).statusCode).toBe(200);
    const page = await s.page(assignmentId);
    expect(JSON.parse(/id="assay-state">([\s\S]*?)<\/script>/.exec(page.body)![1]!).files).toEqual({});
    const next = await upload(s, assignmentId, 'scan', PDF, { type: 'application/pdf', version: 3 });
    expect((await rows(assignmentId)).map((r) => r.id)).toEqual([next.json().fileId]);
    expect(await objects(assignmentId)).toHaveLength(1);
  });
});

describe('refused uploads store nothing', () => {
  async function expectNothingStored(assignmentId: string, questionId = 'scan') {
    expect(await rows(assignmentId)).toEqual([]);
    expect(await objects(assignmentId)).toEqual([]);
    expect(await answer(assignmentId, questionId)).toBeNull();
    expect(strayTemporaries()).toEqual([]);
  }

  it('over the limit by its declared length: 413 before reading', async () => {
    const { assignmentId, s } = await started('bad-1');
    const res = await upload(s, assignmentId, 'scan', Buffer.concat([PNG, Buffer.alloc(LIMIT)]), { type: 'image/png' });
    expect(res.statusCode).toBe(413);
    expect(res.json().error.code).toBe('payload_too_large');
    expect(res.json().error.message).toContain('64 KB');
    await expectNothingStored(assignmentId);
  });

  it('over the limit without a declared length: stopped while streaming, the rest never read', async () => {
    const { assignmentId, s } = await started('bad-2');
    let produced = 0;
    const total = 8 * 1024 * 1024;
    const body = new Readable({
      read() {
        if (produced >= total) return this.push(null);
        const chunk = produced === 0 ? Buffer.concat([PNG, Buffer.alloc(16 * 1024 - PNG.length)]) : Buffer.alloc(16 * 1024);
        produced += chunk.length;
        this.push(chunk);
      },
    });
    const res = await upload(s, assignmentId, 'scan', body, { type: 'image/png' });
    expect(res.statusCode).toBe(413);
    expect(res.json().error.code).toBe('payload_too_large');
    expect(produced).toBeLessThan(total / 2);
    await expectNothingStored(assignmentId);
  });

  it('content that is not its claimed type, or not an accepted type: 415', async () => {
    const { assignmentId, s } = await started('bad-3');
    const claimedPdf = await upload(s, assignmentId, 'scan', PNG, { type: 'application/pdf', name: 'fake.pdf' });
    expect(claimedPdf.statusCode).toBe(415);
    expect(claimedPdf.json().error).toMatchObject({ code: 'unsupported_media_type', message: "The file's content is image/png, not application/pdf." });
    const exe = await upload(s, assignmentId, 'scan', Buffer.from([0x4d, 0x5a, 0x90, 0x00, 0x03, 0x00, 0x00, 0x00]), { type: 'image/png', name: 'x.png' });
    expect(exe.statusCode).toBe(415);
    const textForImages = await upload(s, assignmentId, 'scan', Buffer.from('just words'), { type: 'text/plain', name: 'a.txt' });
    expect(textForImages.statusCode).toBe(415);
    expect(textForImages.json().error.message).toBe('This question accepts application/pdf, image/*; the file is text/plain.');
    const bareZip = await upload(s, assignmentId, 'doc', zipOf(['a.txt']), {
      type: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
      name: 'essay.docx',
    });
    expect(bareZip.statusCode).toBe(415);
    const notUtf8 = await upload(s, assignmentId, 'doc', Buffer.from([0x61, 0xff, 0xfe, 0x62]), { type: 'text/plain', name: 'essay.txt' });
    expect(notUtf8.statusCode).toBe(415);
    const empty = await upload(s, assignmentId, 'doc', Buffer.alloc(0), { type: 'text/plain', name: 'essay.txt' });
    expect(empty.statusCode).toBe(415);
    await expectNothingStored(assignmentId);
    await expectNothingStored(assignmentId, 'doc');
  });

  it('a question not drawn, not a file_upload question, not in the test, or no file name: 400', async () => {
    const { assignmentId, s } = await started('bad-4');
    const { drawn, other } = await drawnPoolQuestion(assignmentId);
    const notDrawn = await upload(s, assignmentId, other, PNG, { type: 'image/png' });
    expect(notDrawn.statusCode).toBe(400);
    expect(notDrawn.json().error).toMatchObject({ code: 'invalid_request', details: [{ field: 'questionId', message: 'was not drawn for this assignment' }] });
    const essay = await upload(s, assignmentId, 'es', PNG, { type: 'image/png' });
    expect(essay.statusCode).toBe(400);
    expect(essay.json().error.details).toEqual([{ field: 'questionId', message: 'is not a file_upload question' }]);
    const shortText = await upload(s, assignmentId, drawn, PNG, { type: 'image/png' });
    expect(shortText.statusCode).toBe(400);
    const unknown = await upload(s, assignmentId, 'nope', PNG, { type: 'image/png' });
    expect(unknown.statusCode).toBe(400);
    expect(unknown.json().error.details).toEqual([{ field: 'questionId', message: 'is not a question of this test' }]);
    const noName = await upload(s, assignmentId, 'scan', PNG, { type: 'image/png', name: '' });
    expect(noName.statusCode).toBe(400);
    expect(noName.json().error.code).toBe('invalid_request');
    const blankName = await upload(s, assignmentId, 'scan', PNG, { type: 'image/png', name: '  ' });
    expect(blankName.statusCode).toBe(400);
    await expectNothingStored(assignmentId);
    expect(await answer(assignmentId, other)).toBeNull();
  });

  it("another student's assignment: 404; no CSRF token: 403", async () => {
    const mine = await started('bad-5');
    const theirs = await started('bad-6');
    const res = await upload(mine.s, theirs.assignmentId, 'scan', PNG, { type: 'image/png' });
    expect(res.statusCode).toBe(404);
    expect(res.json().error.code).toBe('not_found');
    const noToken = await upload(mine.s, mine.assignmentId, 'scan', PNG, { type: 'image/png', csrf: null });
    expect(noToken.statusCode).toBe(403);
    await expectNothingStored(theirs.assignmentId);
    await expectNothingStored(mine.assignmentId);
  });

  it('after submission: 409 invalid_state, the submitted answer unchanged', async () => {
    const { assignmentId, s } = await started('bad-7');
    const first = (await upload(s, assignmentId, 'scan', PNG, { type: 'image/png', version: 1 })).json();
    expect((await s.submit(assignmentId)).statusCode).toBe(303);
    const late = await upload(s, assignmentId, 'scan', PDF, { type: 'application/pdf', version: 2 });
    expect(late.statusCode).toBe(409);
    expect(late.json().error.code).toBe('invalid_state');
    expect(await answer(assignmentId, 'scan')).toEqual({ value: { fileId: first.fileId }, version: 1 });
    expect((await rows(assignmentId)).map((r) => r.id)).toEqual([first.fileId]);
    expect(await objects(assignmentId)).toHaveLength(1);
  });
});

describe('when time is up', () => {
  it('refuses an upload past the deadline and its grace with 409, the answer unchanged', async () => {
    const { assignmentId, s } = await started('late-1');
    const first = (await upload(s, assignmentId, 'scan', PNG, { type: 'image/png', version: 1 })).json();
    clock.advance(60 * 60_000 + 31_000);
    const late = await upload(s, assignmentId, 'scan', PDF, { type: 'application/pdf', version: 2 });
    expect(late.statusCode).toBe(409);
    expect(late.json().error).toMatchObject({ code: 'invalid_state', message: 'Time is up; answers can no longer change.' });
    expect(await answer(assignmentId, 'scan')).toEqual({ value: { fileId: first.fileId }, version: 1 });
    expect((await rows(assignmentId)).map((r) => r.id)).toEqual([first.fileId]);
  });
});

describe('over a real connection', () => {
  it('stores a streamed upload sent by an HTTP client (the raw request stream reaches the service untouched)', async () => {
    const { assignmentId, s } = await started('http-1');
    await h.app.listen({ port: 0, host: '127.0.0.1' });
    const { port } = h.app.server.address() as AddressInfo;
    const big = Buffer.concat([PDF, Buffer.alloc(LIMIT - PDF.length - 1, 0x20)]);
    const res = await fetch(`http://127.0.0.1:${port}/a/${assignmentId}/files/scan`, {
      method: 'POST',
      headers: { 'content-type': 'application/pdf', 'x-file-name': encodeURIComponent('Übung 1.pdf'), 'x-answer-version': '1', cookie: s.cookie!, 'x-csrf-token': s.csrf! },
      body: big,
    });
    const body = await res.json();
    expect(res.status, JSON.stringify(body)).toBe(200);
    expect(body).toMatchObject({ fileName: 'Übung 1.pdf', contentType: 'application/pdf', bytes: big.length, saved: true });
    const over = await fetch(`http://127.0.0.1:${port}/a/${assignmentId}/files/scan`, {
      method: 'POST',
      headers: { 'content-type': 'application/pdf', 'x-file-name': 'big.pdf', 'x-answer-version': '2', cookie: s.cookie!, 'x-csrf-token': s.csrf! },
      body: Buffer.concat([big, Buffer.alloc(10)]),
    });
    expect(over.status).toBe(413);
    expect(await answer(assignmentId, 'scan')).toEqual({ value: { fileId: body.fileId }, version: 1 });
  });
});

describe('an upload lost mid-way', () => {
  it('keeps the previous file as the answer and leaves no object, temporary file or row behind', async () => {
    const { assignmentId, s } = await started('lost-1');
    const first = (await upload(s, assignmentId, 'scan', PNG, { type: 'image/png', version: 1 })).json();
    if (!h.app.server.listening) await h.app.listen({ port: 0, host: '127.0.0.1' });
    const { port } = h.app.server.address() as AddressInfo;
    let streaming = false;
    await new Promise<void>((resolve) => {
      const req = http.request({
        host: '127.0.0.1',
        port,
        method: 'POST',
        path: `/a/${assignmentId}/files/scan`,
        headers: {
          'content-type': 'image/png',
          'content-length': String(LIMIT - 10),
          'x-file-name': 'half.png',
          'x-answer-version': '2',
          cookie: s.cookie!,
          'x-csrf-token': s.csrf!,
        },
      });
      req.on('error', () => resolve());
      req.on('response', () => resolve());
      req.write(Buffer.concat([PNG, Buffer.alloc(8 * 1024)]));
      // Part of the body is written to storage (a temporary file exists); then the connection drops.
      void (async () => {
        for (let i = 0; i < 100 && !streaming; i++) {
          streaming = strayTemporaries().length > 0;
          if (!streaming) await new Promise((r) => setTimeout(r, 20));
        }
        req.destroy();
      })();
    });
    expect(streaming).toBe(true);
    // The server notices the abort on its own schedule: wait until the write has been cleaned up.
    for (let i = 0; i < 50 && strayTemporaries().length > 0; i++) await new Promise((r) => setTimeout(r, 20));
    await new Promise((r) => setTimeout(r, 100));
    expect(await answer(assignmentId, 'scan')).toEqual({ value: { fileId: first.fileId }, version: 1 });
    expect((await rows(assignmentId)).map((r) => r.id)).toEqual([first.fileId]);
    expect((await objects(assignmentId)).map((o) => o.key)).toEqual([`answers/${h.a.institutionId}/${assignmentId}/${first.fileId}`]);
    expect(strayTemporaries()).toEqual([]);
  });
});
