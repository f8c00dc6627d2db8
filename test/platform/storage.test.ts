import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import type { Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError, parseConfig } from '../../src/platform/config.js';
import { createLocalStore } from '../../src/platform/storage/local-store.js';
import { createS3Store } from '../../src/platform/storage/s3-store.js';
import { storageFor } from '../../src/platform/storage/storage.js';
import { type ObjectStore } from '../../src/platform/storage/object-store.js';

/** The object store: its configuration, the local store, and the S3 store against a minimal S3 REST server. */

async function text(body: Readable): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const c of body) chunks.push(Buffer.from(c));
  return Buffer.concat(chunks).toString('utf8');
}

/**
 * Enough of the S3 REST API (path-style) for the store: PutObject, GetObject,
 * DeleteObject, DeleteObjects and ListObjectsV2 (two keys a page, so
 * continuation is exercised). Signatures are not checked.
 */
function startFakeS3(bucket: string) {
  const objects = new Map<string, { body: Buffer; type: string }>();
  const requests: string[] = [];
  const xml = (res: http.ServerResponse, status: number, body: string) =>
    res.writeHead(status, { 'content-type': 'application/xml' }).end(`<?xml version="1.0" encoding="UTF-8"?>${body}`);
  const esc = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;');
  const server = http.createServer(async (req, res) => {
    const url = new URL(req.url!, 'http://s3.local');
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const body = Buffer.concat(chunks);
    const [, b, ...rest] = url.pathname.split('/');
    const key = rest.map(decodeURIComponent).join('/');
    requests.push(`${req.method} ${key ? 'object' : url.searchParams.has('delete') ? 'delete-many' : 'bucket'}`);
    if (b !== bucket) return xml(res, 404, '<Error><Code>NoSuchBucket</Code><Message>no</Message></Error>');
    if (key && req.method === 'PUT') {
      objects.set(key, { body, type: String(req.headers['content-type']) });
      return res.writeHead(200, { etag: '"e"' }).end();
    }
    if (key && req.method === 'GET') {
      const o = objects.get(key);
      if (!o) return xml(res, 404, `<Error><Code>NoSuchKey</Code><Message>The specified key does not exist.</Message><Key>${esc(key)}</Key></Error>`);
      return res.writeHead(200, { 'content-type': o.type, 'content-length': o.body.length }).end(o.body);
    }
    if (key && req.method === 'DELETE') {
      objects.delete(key);
      return res.writeHead(204).end();
    }
    if (!key && req.method === 'POST' && url.searchParams.has('delete')) {
      for (const [, k] of body.toString('utf8').matchAll(/<Key>([^<]*)<\/Key>/g)) objects.delete(k!.replace(/&lt;/g, '<').replace(/&amp;/g, '&'));
      return xml(res, 200, '<DeleteResult></DeleteResult>');
    }
    if (!key && req.method === 'GET' && url.searchParams.get('list-type') === '2') {
      const prefix = url.searchParams.get('prefix') ?? '';
      const all = [...objects.keys()].filter((k) => k.startsWith(prefix)).sort();
      const from = Number(url.searchParams.get('continuation-token') ?? 0);
      const page = all.slice(from, from + 2);
      const more = from + 2 < all.length;
      const contents = page.map((k) => `<Contents><Key>${esc(k)}</Key><Size>${objects.get(k)!.body.length}</Size></Contents>`).join('');
      return xml(
        res,
        200,
        `<ListBucketResult><Name>${bucket}</Name><Prefix>${esc(prefix)}</Prefix><KeyCount>${page.length}</KeyCount><IsTruncated>${more}</IsTruncated>${more ? `<NextContinuationToken>${from + 2}</NextContinuationToken>` : ''}${contents}</ListBucketResult>`,
      );
    }
    return xml(res, 400, '<Error><Code>NotImplemented</Code><Message>not in the fake</Message></Error>');
  });
  return { server, objects, requests };
}

/** The same behaviour asked of both stores. */
function behavesAsAStore(name: string, open: () => ObjectStore) {
  describe(name, () => {
    it('puts, gets (a stream with its size), lists in key order, and deletes', async () => {
      const s = open();
      await s.put('proctoring/ins_1/asg_1/segments/00002.webm', Buffer.from('second'), 'video/webm');
      await s.put('proctoring/ins_1/asg_1/segments/00001.webm', Buffer.from('first!!'), 'video/webm');
      await s.put('proctoring/ins_1/asg_2/x.jpg', Buffer.from('other'), 'image/jpeg');
      const got = await s.get('proctoring/ins_1/asg_1/segments/00001.webm');
      expect(got?.size).toBe(7);
      expect(await text(got!.body)).toBe('first!!');
      expect(await s.list('proctoring/ins_1/asg_1/')).toEqual([
        { key: 'proctoring/ins_1/asg_1/segments/00001.webm', size: 7 },
        { key: 'proctoring/ins_1/asg_1/segments/00002.webm', size: 6 },
      ]);
      await s.delete('proctoring/ins_1/asg_1/segments/00002.webm');
      await s.delete('proctoring/ins_1/asg_1/segments/never.webm');
      expect(await s.get('proctoring/ins_1/asg_1/segments/00002.webm')).toBeNull();
      expect((await s.list('proctoring/ins_1/asg_1/')).map((o) => o.key)).toEqual(['proctoring/ins_1/asg_1/segments/00001.webm']);
    });

    it('overwrites an object whole, and deletePrefix removes everything under the prefix only', async () => {
      const s = open();
      await s.put('p/a/1.bin', Buffer.from('old'), 'application/octet-stream');
      await s.put('p/a/1.bin', Buffer.from('new value'), 'application/octet-stream');
      expect(await text((await s.get('p/a/1.bin'))!.body)).toBe('new value');
      for (let i = 2; i <= 5; i++) await s.put(`p/a/sub/${i}.bin`, Buffer.from(String(i)), 'application/octet-stream');
      await s.put('p/ab/keep.bin', Buffer.from('keep'), 'application/octet-stream');
      expect(await s.deletePrefix('p/a/')).toBe(5);
      expect(await s.list('p/a/')).toEqual([]);
      expect((await s.list('p/')).map((o) => o.key)).toEqual(['p/ab/keep.bin']);
      expect(await s.deletePrefix('p/missing/')).toBe(0);
    });

    it('refuses keys that could escape their place', async () => {
      const s = open();
      for (const bad of ['../etc/passwd', 'a/../../b', '/abs', 'a//b', 'a/b/', '', 'a\\b', 'a/.hidden/../x']) {
        await expect(s.put(bad, Buffer.from('x'), 'text/plain'), bad).rejects.toThrow(/not a valid object key/);
      }
      await expect(s.deletePrefix('no-slash')).rejects.toThrow(/prefix/);
    });
  });
}

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'assay-storage-'));
behavesAsAStore('local store', () => createLocalStore(path.join(tmp, `root-${Math.random().toString(36).slice(2)}`)));

const fake = startFakeS3('assay-test');
beforeAll(async () => {
  await new Promise<void>((r) => fake.server.listen(0, '127.0.0.1', r));
});
afterAll(async () => {
  await new Promise((r) => fake.server.close(r));
  fs.rmSync(tmp, { recursive: true, force: true });
});
const endpoint = () => `http://127.0.0.1:${(fake.server.address() as AddressInfo).port}`;
// Through the configuration, as the app opens it (the SDK is loaded on first use).
behavesAsAStore('S3 store (path-style, against a minimal S3 server)', () => {
  fake.objects.clear();
  const config = parseConfig({
    ASSAY_STORAGE_S3_BUCKET: 'assay-test',
    ASSAY_STORAGE_S3_ENDPOINT: endpoint(),
    ASSAY_STORAGE_S3_REGION: 'eu-west-1',
    AWS_ACCESS_KEY_ID: 'AKIDTEST',
    AWS_SECRET_ACCESS_KEY: 'secret',
  });
  return storageFor(config);
});

describe('S3 store specifics', () => {
  it('keeps the content type, pages through listings and deletes in one DeleteObjects call', async () => {
    fake.objects.clear();
    fake.requests.length = 0;
    const s = createS3Store({ kind: 's3', bucket: 'assay-test', endpoint: endpoint(), region: 'eu-west-1', credentials: { accessKeyId: 'A', secretAccessKey: 'B' } });
    for (let i = 0; i < 5; i++) await s.put(`r/k${i}.webm`, Buffer.alloc(10 + i), 'video/webm');
    expect(fake.objects.get('r/k0.webm')?.type).toBe('video/webm');
    expect(await s.list('r/')).toHaveLength(5);
    expect(fake.requests.filter((r) => r === 'GET bucket')).toHaveLength(3);
    expect(await s.deletePrefix('r/')).toBe(5);
    expect(fake.requests.filter((r) => r === 'POST delete-many')).toHaveLength(1);
    expect(fake.objects.size).toBe(0);
  });
});

describe('storage configuration', () => {
  it('is local under ASSAY_DATA_DIR by default, with a 30-day retention', () => {
    const c = parseConfig({ ASSAY_DATA_DIR: tmp });
    expect(c.storage).toEqual({ kind: 'local' });
    expect(c.proctoringRetentionDays).toBe(30);
    expect(storageFor(c).kind).toBe('local');
  });

  it('is S3 when a bucket is set: endpoint, region and credentials read from their variables', () => {
    const c = parseConfig({
      ASSAY_STORAGE_S3_BUCKET: 'assay-media',
      ASSAY_STORAGE_S3_ENDPOINT: 'http://127.0.0.1:9000/',
      ASSAY_STORAGE_S3_REGION: 'eu-central-1',
      AWS_ACCESS_KEY_ID: 'AKID',
      AWS_SECRET_ACCESS_KEY: 'sekret',
      ASSAY_PROCTORING_RETENTION_DAYS: '7',
    });
    expect(c.storage).toEqual({
      kind: 's3',
      bucket: 'assay-media',
      endpoint: 'http://127.0.0.1:9000',
      region: 'eu-central-1',
      credentials: { accessKeyId: 'AKID', secretAccessKey: 'sekret' },
    });
    expect(c.proctoringRetentionDays).toBe(7);
    expect(storageFor(c).kind).toBe('s3');
    expect(parseConfig({ ASSAY_STORAGE_S3_BUCKET: 'assay-media' }).storage).toMatchObject({ region: 'us-east-1', endpoint: null, credentials: null });
  });

  it.each([
    [{ ASSAY_STORAGE_S3_ENDPOINT: 'http://minio:9000' }, 'ASSAY_STORAGE_S3_ENDPOINT'],
    [{ ASSAY_STORAGE_S3_REGION: 'eu-west-1' }, 'ASSAY_STORAGE_S3_REGION'],
    [{ ASSAY_STORAGE_S3_BUCKET: 'Bad_Bucket' }, 'ASSAY_STORAGE_S3_BUCKET'],
    [{ ASSAY_STORAGE_S3_BUCKET: 'ok-bucket', ASSAY_STORAGE_S3_ENDPOINT: 'minio:9000' }, 'ASSAY_STORAGE_S3_ENDPOINT'],
    [{ ASSAY_STORAGE_S3_BUCKET: 'ok-bucket', ASSAY_STORAGE_S3_REGION: 'EU WEST' }, 'ASSAY_STORAGE_S3_REGION'],
    [{ ASSAY_STORAGE_S3_BUCKET: 'ok-bucket', AWS_ACCESS_KEY_ID: 'AKID' }, 'AWS_SECRET_ACCESS_KEY'],
    [{ ASSAY_STORAGE_S3_BUCKET: 'ok-bucket', AWS_SECRET_ACCESS_KEY: 'very-secret-value' }, 'AWS_ACCESS_KEY_ID'],
    [{ ASSAY_PROCTORING_RETENTION_DAYS: '0' }, 'ASSAY_PROCTORING_RETENTION_DAYS'],
    [{ ASSAY_PROCTORING_RETENTION_DAYS: 'thirty' }, 'ASSAY_PROCTORING_RETENTION_DAYS'],
  ])('refuses %j naming the variable (and never echoes a secret)', (env, variable) => {
    let error: unknown;
    try {
      parseConfig(env);
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).variable).toBe(variable);
    expect((error as ConfigError).message).not.toContain('very-secret-value');
  });
});
