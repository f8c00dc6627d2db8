import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError, parseConfig } from '../../src/platform/config.js';
import { createLocalStore } from '../../src/platform/storage/local-store.js';
import { createS3Store } from '../../src/platform/storage/s3-store.js';
import { storageFor } from '../../src/platform/storage/storage.js';
import { type ObjectStore } from '../../src/platform/storage/object-store.js';
import { hasS3, startS3Server, type S3TestServer } from '../helpers/s3-server.js';
import { componentAvailable } from '../helpers/components.js';

/** The object store: its configuration, the local store, and the S3 store against a real S3-compatible server (s3rver). */

async function text(body: Readable): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const c of body) chunks.push(Buffer.from(c));
  return Buffer.concat(chunks).toString('utf8');
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
      expect((await s.head('proctoring/ins_1/asg_1/segments/00001.webm'))?.size).toBe(7);
      expect((await s.readStart('proctoring/ins_1/asg_1/segments/00001.webm', 3))!.toString()).toBe('fir');
      // A range from the middle, and one running past the end (an answer file's last bytes, read apart).
      expect((await s.readRange('proctoring/ins_1/asg_1/segments/00001.webm', 2, 3))!.toString()).toBe('rst');
      expect((await s.readRange('proctoring/ins_1/asg_1/segments/00001.webm', 3, 1000))!.length).toBe((await s.head('proctoring/ins_1/asg_1/segments/00001.webm'))!.size - 3);
      expect(await s.head('proctoring/ins_1/asg_1/segments/none.webm')).toBeNull();
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

const withS3 = componentAvailable('S3 server (@20minutes/s3rver)', hasS3, 'npm install (a devDependency)');
let s3: S3TestServer;
beforeAll(async () => {
  if (withS3) s3 = await startS3Server();
});
afterAll(async () => {
  await s3?.close();
  fs.rmSync(tmp, { recursive: true, force: true });
});
let prefixes = 0;
/** Each test on its own prefix of the one bucket (s3rver keeps objects between tests). */
function scoped(store: ObjectStore): ObjectStore {
  const p = `t${++prefixes}/`;
  const k = (key: string) => (/^[A-Za-z0-9_-]/.test(key) && !key.startsWith('/') ? p + key : key);
  return {
    kind: store.kind,
    put: (key, body, type) => store.put(k(key), body, type),
    putStream: (key, body, type, max) => store.putStream(k(key), body, type, max),
    get: (key) => store.get(k(key)),
    delete: (key) => store.delete(k(key)),
    deletePrefix: async (prefix) => (prefix.endsWith('/') ? store.deletePrefix(k(prefix)) : store.deletePrefix(prefix)),
    list: async (prefix) => (await store.list(k(prefix))).map((o) => ({ ...o, key: o.key.slice(p.length) })),
    head: (key) => store.head(k(key)),
    readStart: (key, n) => store.readStart(k(key), n),
    readRange: (key, start, n) => store.readRange(k(key), start, n),
  };
}
// Through the configuration, as the app opens it (the SDK is loaded on first use).
describe.runIf(withS3)('against s3rver', () => {
  behavesAsAStore('S3 store (path-style, against s3rver)', () => {
    const config = parseConfig({
      ASSAY_STORAGE_S3_BUCKET: s3.bucket,
      ASSAY_STORAGE_S3_ENDPOINT: s3.endpoint,
      ASSAY_STORAGE_S3_REGION: s3.config.region,
      AWS_ACCESS_KEY_ID: s3.config.credentials!.accessKeyId,
      AWS_SECRET_ACCESS_KEY: s3.config.credentials!.secretAccessKey,
    });
    return scoped(storageFor(config));
  });

  describe('S3 store specifics', () => {
    it('keeps the content type, heads an object, reads its first bytes, and answers null for a missing one', async () => {
      const s = createS3Store(s3.config);
      await s.put('spec/k.webm', Buffer.from('0123456789'), 'video/webm');
      const head = await s.head('spec/k.webm');
      expect(head).toMatchObject({ size: 10, contentType: 'video/webm' });
      expect(Math.abs(head!.lastModified.getTime() - Date.now())).toBeLessThan(60_000);
      expect((await s.readStart('spec/k.webm', 4))!.toString()).toBe('0123');
      expect((await s.readStart('spec/k.webm', 100))!.toString()).toBe('0123456789');
      expect(await s.head('spec/none')).toBeNull();
      expect(await s.readStart('spec/none', 4)).toBeNull();
      expect(await s.deletePrefix('spec/')).toBe(1);
    });

    it('is refused by the server when its secret is wrong: signatures are checked', async () => {
      const s = createS3Store({ ...s3.config, credentials: { accessKeyId: s3.config.credentials!.accessKeyId, secretAccessKey: 'not-the-secret' } });
      await expect(s.put('spec/forged', Buffer.from('x'), 'text/plain')).rejects.toMatchObject({ name: 'SignatureDoesNotMatch' });
      expect(await createS3Store(s3.config).head('spec/forged')).toBeNull();
    });

    it('presigns a PUT bound to one length and one type: another body or type, or a tampered signature, is refused', async () => {
      const s = createS3Store(s3.config);
      const put = (p: { url: string }, body: Buffer, type: string) => fetch(p.url, { method: 'PUT', body: new Uint8Array(body), headers: { 'content-type': type } });
      const signed = await s.presignPut!('spec/direct.webm', 16, 'video/webm', 300);
      expect(signed.url).toContain('X-Amz-SignedHeaders=content-length%3Bcontent-type%3Bhost');
      expect((await put(signed, Buffer.alloc(17), 'video/webm')).status).toBe(403);
      expect((await put(signed, Buffer.alloc(16), 'image/jpeg')).status).toBe(403);
      const tampered = { url: signed.url.replace(/X-Amz-Signature=([0-9a-f])/, (_m, c: string) => `X-Amz-Signature=${c === '0' ? '1' : '0'}`) };
      expect((await put(tampered, Buffer.alloc(16), 'video/webm')).status).toBe(403);
      expect(await s.head('spec/direct.webm')).toBeNull();
      expect((await put(signed, Buffer.alloc(16, 1), 'video/webm')).status).toBe(200);
      expect(await s.head('spec/direct.webm')).toMatchObject({ size: 16, contentType: 'video/webm' });
    });

    it('refuses a presigned PUT once it has expired', async () => {
      const s = createS3Store(s3.config);
      const signed = await s.presignPut!('spec/late.webm', 4, 'video/webm', 1);
      await new Promise((r) => setTimeout(r, 2100));
      const res = await fetch(signed.url, { method: 'PUT', body: new Uint8Array(4), headers: { 'content-type': 'video/webm' } });
      expect(res.status).toBe(403);
      expect(await res.text()).toContain('Request has expired');
    });
  });
});

describe('storage configuration', () => {
  it('is local under ASSAY_DATA_DIR by default, with a 30-day retention', () => {
    const c = parseConfig({ ASSAY_DATA_DIR: tmp });
    expect(c.storage).toEqual({ kind: 'local', shared: false });
    expect(parseConfig({ ASSAY_STORAGE_SHARED: '1' }).storage).toEqual({ kind: 'local', shared: true });
    expect(() => parseConfig({ ASSAY_STORAGE_SHARED: '1', ASSAY_STORAGE_S3_BUCKET: 'assay-media' })).toThrow(/ASSAY_STORAGE_SHARED is for local storage/);
    expect(() => parseConfig({ ASSAY_STORAGE_SHARED: 'maybe' })).toThrow(/ASSAY_STORAGE_SHARED must be 1\/0/);
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
