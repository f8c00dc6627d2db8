import { fork } from 'node:child_process';
import { createHash } from 'node:crypto';
import { once } from 'node:events';
import path from 'node:path';
import type { Pool as HttpPool } from 'undici';
import type { StorageConfig } from '../src/platform/config.js';
import { createS3Store } from '../src/platform/storage/s3-store.js';
import type { UploadSeat } from './upload-server.js';

/**
 * The upload bench's direct uploads (`--s3`): a bucket in its own process
 * (bench/bucket-process.ts), and a student's upload as the test page makes
 * it with S3 storage (question-fields.js): presign (with the file's SHA-256),
 * PUT the bytes to the bucket, record.
 */
export async function startBucket() {
  const child = fork(path.join(import.meta.dirname, 'bucket-process.ts'), [], { execArgv: ['--import', 'tsx'], stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  const [{ config }] = (await once(child, 'message')) as [{ config: Extract<StorageConfig, { kind: 's3' }> }];
  return {
    config,
    store: createS3Store(config),
    /** The bodies of the PUTs the bucket received. */
    async bytes(): Promise<number> {
      child.send('bytes');
      const [{ bytes }] = (await once(child, 'message')) as [{ bytes: number }];
      return bytes;
    },
    async stop(): Promise<void> {
      child.send('stop');
      await once(child, 'exit').catch(() => undefined);
    },
  };
}

const hashes = new WeakMap<Buffer, string>();

/** Presign, PUT, record: the answer's fileId, or a throw naming the step that failed. */
export async function directUpload(http: HttpPool, seat: UploadSeat, version: number, body: Buffer): Promise<string> {
  let sha256 = hashes.get(body);
  if (!sha256) hashes.set(body, (sha256 = createHash('sha256').update(body).digest('base64')));
  const headers = { cookie: seat.cookie, 'x-csrf-token': seat.csrf, 'content-type': 'application/json' };
  const call = async (what: string, urlPath: string, json: unknown) => {
    const res = await http.request({ method: 'POST', path: urlPath, headers, body: JSON.stringify(json) });
    const text = await res.body.text();
    if (res.statusCode !== 200 && res.statusCode !== 201) throw new Error(`${what} HTTP ${res.statusCode} ${text.slice(0, 80)}`);
    return JSON.parse(text) as Record<string, unknown>;
  };
  const signed = (await call('presign', `/a/${seat.assignmentId}/files/portfolio/uploads`, {
    bytes: body.length,
    contentType: 'application/pdf',
    fileName: `portfolio-${version}.pdf`,
    version,
    sha256,
  })) as { key: string; upload: { method: string; url: string; headers: Record<string, string> } };
  const put = await fetch(signed.upload.url, { method: 'PUT', headers: signed.upload.headers, body: new Uint8Array(body) });
  await put.arrayBuffer();
  if (put.status !== 200) throw new Error(`PUT to the bucket HTTP ${put.status}`);
  const recorded = await call('record', `/a/${seat.assignmentId}/files/uploads/record`, { key: signed.key });
  if (recorded.saved !== true) throw new Error('record: not saved');
  return String(recorded.fileId);
}
