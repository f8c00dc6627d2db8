import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLocalStore } from '../../src/platform/storage/local-store.js';
import { ObjectTooLargeError } from '../../src/platform/storage/object-store.js';
import { createS3Store } from '../../src/platform/storage/s3-store.js';
import { hasS3, startS3Server, type S3TestServer } from '../helpers/s3-server.js';
import { componentAvailable } from '../helpers/components.js';

/**
 * putStream on both stores: a stream of unknown length written as one
 * object; past maxBytes, or when the source fails, nothing is left behind
 * and the rest of the source is not read. S3: one PUT below a part, a
 * multipart upload above, aborted on failure.
 */
function source(total: number, chunk = 64 * 1024, failAt: number | null = null) {
  let produced = 0;
  const stream = new Readable({
    read() {
      if (failAt !== null && produced >= failAt) return this.destroy(new Error('client went away'));
      if (produced >= total) return this.push(null);
      const n = Math.min(chunk, total - produced);
      const buf = Buffer.alloc(n, produced % 251);
      produced += n;
      this.push(buf);
    },
  });
  return { stream, produced: () => produced };
}

async function read(body: Readable): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const c of body) chunks.push(c as Buffer);
  return Buffer.concat(chunks);
}

describe('local store putStream', () => {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'assay-streams-'));
  afterAll(() => fs.rmSync(root, { recursive: true, force: true }));
  const store = createLocalStore(root);
  const files = () => (fs.readdirSync(root, { recursive: true }) as string[]).filter((f) => fs.statSync(path.join(root, f)).isFile());

  it('writes the stream whole and returns its size and SHA-256', async () => {
    const { stream } = source(300_000);
    const stored = await store.putStream('answers/i/a/fil_1', stream, 'image/png', 300_000);
    const file = await read((await store.get('answers/i/a/fil_1'))!.body);
    expect(file.length).toBe(300_000);
    expect(stored).toEqual({ bytes: 300_000, sha256: createHash('sha256').update(file).digest('hex') });
  });

  it('stops past maxBytes with ObjectTooLargeError, leaving nothing, without reading the rest', async () => {
    const src = source(10 * 1024 * 1024);
    await expect(store.putStream('answers/i/a/fil_2', src.stream, 'image/png', 100_000)).rejects.toBeInstanceOf(ObjectTooLargeError);
    expect(src.produced()).toBeLessThan(1024 * 1024);
    expect(await store.get('answers/i/a/fil_2')).toBeNull();
    expect(files()).toEqual([path.join('answers', 'i', 'a', 'fil_1')]);
  });

  it('leaves nothing when the source fails mid-way', async () => {
    const src = source(1_000_000, 64 * 1024, 200_000);
    await expect(store.putStream('answers/i/a/fil_3', src.stream, 'image/png', 2_000_000)).rejects.toThrow('client went away');
    expect(files()).toEqual([path.join('answers', 'i', 'a', 'fil_1')]);
  });
});

/** Against s3rver: the SDK's multipart calls are signed and checked like any other. */
const withS3 = componentAvailable('S3 server (@20minutes/s3rver)', hasS3, 'npm install (a devDependency)');
describe.runIf(withS3)('S3 store putStream', () => {
  let s3: S3TestServer;
  beforeAll(async () => {
    s3 = await startS3Server();
  });
  afterAll(() => s3.close());
  const store = () => createS3Store(s3.config);
  /** The S3 calls since `from`: put, create, part, complete, abort (as the server saw them). */
  const calls = (from: number) =>
    s3.requests.slice(from).filter((r) => r.method !== 'HEAD' && r.method !== 'GET').map((r) => {
      const q = new URLSearchParams(r.query);
      if (r.method === 'POST' && q.has('uploads')) return 'create';
      if (r.method === 'PUT' && q.has('uploadId')) return 'part';
      if (r.method === 'POST' && q.has('uploadId')) return 'complete';
      if (r.method === 'DELETE' && q.has('uploadId')) return 'abort';
      return r.method.toLowerCase();
    });

  it('sends a small object as one PUT', async () => {
    const from = s3.requests.length;
    const stored = await store().putStream('answers/i/a/small', source(100_000).stream, 'image/png', 1_000_000);
    expect((await store().head('answers/i/a/small'))?.size).toBe(100_000);
    const expected = Buffer.concat([Buffer.alloc(65536, 0), Buffer.alloc(100_000 - 65536, 65536 % 251)]);
    expect((await read((await store().get('answers/i/a/small'))!.body)).equals(expected)).toBe(true);
    expect(stored).toEqual({ bytes: 100_000, sha256: createHash('sha256').update(expected).digest('hex') });
    expect(calls(from)).toEqual(['put']);
  });

  it('sends a large one as a multipart upload of 8 MiB parts, completed at the end', async () => {
    const total = 20 * 1024 * 1024;
    const from = s3.requests.length;
    const stored = await store().putStream('answers/i/a/large', source(total).stream, 'application/pdf', total);
    expect(calls(from)).toEqual(['create', 'part', 'part', 'part', 'complete']);
    const got = await read((await store().get('answers/i/a/large'))!.body);
    expect(got.length).toBe(total);
    expect(stored).toEqual({ bytes: total, sha256: createHash('sha256').update(got).digest('hex') });
    // Parts in order: the byte at each 64 KiB boundary is the fill of its chunk.
    for (const at of [0, 8 * 1024 * 1024, 16 * 1024 * 1024 + 65536, total - 1]) expect(got[at]).toBe((at - (at % 65536)) % 251);
  });

  it('aborts the multipart upload past maxBytes or when the source fails: no object left', async () => {
    const from = s3.requests.length;
    await expect(store().putStream('answers/i/a/over', source(30 * 1024 * 1024).stream, 'image/png', 12 * 1024 * 1024)).rejects.toBeInstanceOf(ObjectTooLargeError);
    await expect(store().putStream('answers/i/a/lost', source(30 * 1024 * 1024, 64 * 1024, 9 * 1024 * 1024).stream, 'image/png', 20 * 1024 * 1024)).rejects.toThrow(
      'client went away',
    );
    expect(calls(from).filter((c) => c === 'abort')).toHaveLength(2);
    expect(await store().head('answers/i/a/over')).toBeNull();
    expect(await store().head('answers/i/a/lost')).toBeNull();
  });
});
