import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import { Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLocalStore } from '../../src/platform/storage/local-store.js';
import { ObjectTooLargeError } from '../../src/platform/storage/object-store.js';
import { createS3Store } from '../../src/platform/storage/s3-store.js';

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

  it('writes the stream whole and returns its size', async () => {
    const { stream } = source(300_000);
    expect(await store.putStream('answers/i/a/fil_1', stream, 'image/png', 300_000)).toBe(300_000);
    expect((await read((await store.get('answers/i/a/fil_1'))!.body)).length).toBe(300_000);
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

/** Enough of S3 for putStream: PutObject, and the multipart calls (create, upload part, complete, abort). */
function startFakeS3() {
  const objects = new Map<string, Buffer>();
  const uploads = new Map<string, Map<number, Buffer>>();
  const calls: string[] = [];
  let seq = 0;
  const server = http.createServer(async (req, res) => {
    const url = new URL(req.url!, 'http://s3.local');
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const body = Buffer.concat(chunks);
    const key = url.pathname.split('/').slice(2).map(decodeURIComponent).join('/');
    const uploadId = url.searchParams.get('uploadId');
    const xml = (s: string) => res.writeHead(200, { 'content-type': 'application/xml' }).end(`<?xml version="1.0" encoding="UTF-8"?>${s}`);
    if (req.method === 'POST' && url.searchParams.has('uploads')) {
      calls.push('create');
      const id = `u${++seq}`;
      uploads.set(id, new Map());
      return xml(`<InitiateMultipartUploadResult><Bucket>b</Bucket><Key>${key}</Key><UploadId>${id}</UploadId></InitiateMultipartUploadResult>`);
    }
    if (req.method === 'PUT' && uploadId) {
      calls.push(`part ${body.length}`);
      uploads.get(uploadId)!.set(Number(url.searchParams.get('partNumber')), body);
      return res.writeHead(200, { etag: `"p${url.searchParams.get('partNumber')}"` }).end();
    }
    if (req.method === 'POST' && uploadId) {
      calls.push('complete');
      const parts = uploads.get(uploadId)!;
      objects.set(key, Buffer.concat([...parts.keys()].sort((a, b) => a - b).map((n) => parts.get(n)!)));
      uploads.delete(uploadId);
      return xml(`<CompleteMultipartUploadResult><Bucket>b</Bucket><Key>${key}</Key><ETag>"x"</ETag></CompleteMultipartUploadResult>`);
    }
    if (req.method === 'DELETE' && uploadId) {
      calls.push('abort');
      uploads.delete(uploadId);
      return res.writeHead(204).end();
    }
    if (req.method === 'PUT') {
      calls.push(`put ${body.length}`);
      objects.set(key, body);
      return res.writeHead(200, { etag: '"e"' }).end();
    }
    res.writeHead(400).end();
  });
  return { server, objects, uploads, calls };
}

describe('S3 store putStream', () => {
  const fake = startFakeS3();
  beforeAll(() => new Promise<void>((r) => fake.server.listen(0, '127.0.0.1', r)));
  afterAll(() => new Promise((r) => fake.server.close(r)));
  const store = () =>
    createS3Store({
      kind: 's3',
      bucket: 'b',
      endpoint: `http://127.0.0.1:${(fake.server.address() as AddressInfo).port}`,
      region: 'eu-west-1',
      credentials: { accessKeyId: 'A', secretAccessKey: 'B' },
    });

  it('sends a small object as one PUT', async () => {
    fake.calls.length = 0;
    expect(await store().putStream('answers/i/a/small', source(100_000).stream, 'image/png', 1_000_000)).toBe(100_000);
    expect(fake.calls).toEqual(['put 100000']);
    expect(fake.objects.get('answers/i/a/small')?.length).toBe(100_000);
  });

  it('sends a large one as a multipart upload of 8 MiB parts, completed at the end', async () => {
    fake.calls.length = 0;
    const total = 20 * 1024 * 1024;
    expect(await store().putStream('answers/i/a/large', source(total).stream, 'application/pdf', total)).toBe(total);
    expect(fake.calls).toEqual(['create', `part ${8 * 1024 * 1024}`, `part ${8 * 1024 * 1024}`, `part ${4 * 1024 * 1024}`, 'complete']);
    expect(fake.objects.get('answers/i/a/large')?.length).toBe(total);
  });

  it('aborts the multipart upload past maxBytes or when the source fails: no object, no upload left', async () => {
    fake.calls.length = 0;
    await expect(store().putStream('answers/i/a/over', source(30 * 1024 * 1024).stream, 'image/png', 12 * 1024 * 1024)).rejects.toBeInstanceOf(ObjectTooLargeError);
    await expect(store().putStream('answers/i/a/lost', source(30 * 1024 * 1024, 64 * 1024, 9 * 1024 * 1024).stream, 'image/png', 20 * 1024 * 1024)).rejects.toThrow(
      'client went away',
    );
    expect(fake.calls.filter((c) => c === 'abort')).toHaveLength(2);
    expect(fake.objects.has('answers/i/a/over')).toBe(false);
    expect(fake.objects.has('answers/i/a/lost')).toBe(false);
    expect(fake.uploads.size).toBe(0);
  });
});
