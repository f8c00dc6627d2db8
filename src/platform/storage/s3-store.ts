import type { Readable } from 'node:stream';
import {
  DeleteObjectCommand,
  DeleteObjectsCommand,
  GetObjectCommand,
  ListObjectsV2Command,
  PutObjectCommand,
  S3Client,
  S3ServiceException,
} from '@aws-sdk/client-s3';
import type { StorageConfig } from '../config.js';
import { checkKey, checkPrefix, type ObjectStore } from './object-store.js';

/**
 * The S3-compatible store (AWS S3, MinIO, Ceph, R2, …), used when
 * ASSAY_STORAGE_S3_BUCKET is set. With an endpoint the client uses
 * path-style addresses (`{endpoint}/{bucket}/{key}`), which every
 * S3-compatible service accepts. Checksums only where the API requires them
 * (DeleteObjects): the SDK's newer default adds CRC headers on every PUT,
 * which several S3-compatible services still refuse.
 */
export function createS3Store(config: Extract<StorageConfig, { kind: 's3' }>): ObjectStore {
  const client = new S3Client({
    region: config.region,
    ...(config.endpoint ? { endpoint: config.endpoint, forcePathStyle: true } : {}),
    ...(config.credentials ? { credentials: config.credentials } : {}),
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
    maxAttempts: 3,
  });
  const Bucket = config.bucket;

  async function listAll(prefix: string): Promise<Array<{ key: string; size: number }>> {
    const out: Array<{ key: string; size: number }> = [];
    let ContinuationToken: string | undefined;
    do {
      const page = await client.send(new ListObjectsV2Command({ Bucket, Prefix: prefix, ContinuationToken }));
      for (const o of page.Contents ?? []) if (o.Key) out.push({ key: o.Key, size: Number(o.Size ?? 0) });
      ContinuationToken = page.IsTruncated ? page.NextContinuationToken : undefined;
    } while (ContinuationToken);
    return out;
  }

  return {
    kind: 's3',
    async put(key, body, contentType) {
      await client.send(new PutObjectCommand({ Bucket, Key: checkKey(key), Body: body, ContentType: contentType, ContentLength: body.length }));
    },
    async get(key) {
      try {
        const res = await client.send(new GetObjectCommand({ Bucket, Key: checkKey(key) }));
        return { body: res.Body as Readable, size: Number(res.ContentLength ?? 0) };
      } catch (err) {
        if (err instanceof S3ServiceException && (err.name === 'NoSuchKey' || err.$metadata.httpStatusCode === 404)) return null;
        throw err;
      }
    },
    async delete(key) {
      await client.send(new DeleteObjectCommand({ Bucket, Key: checkKey(key) }));
    },
    async deletePrefix(prefix) {
      const keys = (await listAll(checkPrefix(prefix))).map((o) => o.key);
      // DeleteObjects takes at most 1000 keys per call.
      for (let i = 0; i < keys.length; i += 1000) {
        const res = await client.send(
          new DeleteObjectsCommand({ Bucket, Delete: { Objects: keys.slice(i, i + 1000).map((Key) => ({ Key })), Quiet: true } }),
        );
        if (res.Errors && res.Errors.length > 0) {
          throw new Error(`storage: S3 refused to delete ${res.Errors.length} object(s), first ${res.Errors[0]!.Key}: ${res.Errors[0]!.Code}`);
        }
      }
      return keys.length;
    },
    async list(prefix) {
      return (await listAll(checkPrefix(prefix))).sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
    },
  };
}
