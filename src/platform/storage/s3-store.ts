import type { Readable } from 'node:stream';
import {
  AbortMultipartUploadCommand,
  CompleteMultipartUploadCommand,
  CreateMultipartUploadCommand,
  DeleteObjectCommand,
  DeleteObjectsCommand,
  GetObjectCommand,
  HeadObjectCommand,
  ListObjectsV2Command,
  PutObjectCommand,
  S3Client,
  S3ServiceException,
  UploadPartCommand,
} from '@aws-sdk/client-s3';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import type { StorageConfig } from '../config.js';
import { sha256OffThread } from '../off-thread-hash.js';
import { checkKey, checkPrefix, limitedChunks, type ObjectStore } from './object-store.js';

/** Parts of a streamed upload: S3's multipart minimum is 5 MiB (except the last part). */
const PART_BYTES = 8 * 1024 * 1024;

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

  const missing = (err: unknown) => err instanceof S3ServiceException && (err.name === 'NoSuchKey' || err.name === 'NotFound' || err.$metadata.httpStatusCode === 404);

  return {
    kind: 's3',
    async put(key, body, contentType) {
      await client.send(new PutObjectCommand({ Bucket, Key: checkKey(key), Body: body, ContentType: contentType, ContentLength: body.length }));
    },
    /**
     * A stream of unknown length: an object smaller than one part is sent as
     * one PUT once it has all arrived; a larger one as a multipart upload of
     * 8 MiB parts (so at most one part is held in memory), completed only at
     * the end of the stream. Any failure (the limit, a lost client, S3)
     * aborts the multipart upload, and S3 never shows an uncompleted one as
     * an object.
     */
    async putStream(key, body, contentType, maxBytes) {
      const Key = checkKey(key);
      let part: Buffer[] = [];
      let partBytes = 0;
      let total = 0;
      let uploadId: string | undefined;
      const parts: Array<{ ETag: string | undefined; PartNumber: number }> = [];
      const hash = sha256OffThread();
      const sendPart = async () => {
        uploadId ??= (await client.send(new CreateMultipartUploadCommand({ Bucket, Key, ContentType: contentType }))).UploadId;
        const PartNumber = parts.length + 1;
        const Body = Buffer.concat(part, partBytes);
        part = [];
        partBytes = 0;
        const res = await client.send(new UploadPartCommand({ Bucket, Key, UploadId: uploadId, PartNumber, Body, ContentLength: Body.length }));
        parts.push({ ETag: res.ETag, PartNumber });
      };
      try {
        for await (const chunk of limitedChunks(body, maxBytes)) {
          const room = hash.update(chunk);
          if (room) await room;
          part.push(chunk);
          partBytes += chunk.length;
          total += chunk.length;
          if (partBytes >= PART_BYTES) await sendPart();
        }
        // Before the object is made whole: a failed digest leaves no object behind.
        const sha256 = await hash.digest();
        if (uploadId === undefined) {
          const Body = Buffer.concat(part, partBytes);
          await client.send(new PutObjectCommand({ Bucket, Key, Body, ContentType: contentType, ContentLength: Body.length }));
          return { bytes: total, sha256 };
        }
        if (partBytes > 0) await sendPart();
        await client.send(new CompleteMultipartUploadCommand({ Bucket, Key, UploadId: uploadId, MultipartUpload: { Parts: parts } }));
        return { bytes: total, sha256 };
      } catch (err) {
        hash.discard();
        if (uploadId !== undefined) await client.send(new AbortMultipartUploadCommand({ Bucket, Key, UploadId: uploadId })).catch(() => undefined);
        throw err;
      }
    },
    async get(key) {
      try {
        const res = await client.send(new GetObjectCommand({ Bucket, Key: checkKey(key) }));
        return { body: res.Body as Readable, size: Number(res.ContentLength ?? 0) };
      } catch (err) {
        if (missing(err)) return null;
        throw err;
      }
    },
    async head(key) {
      try {
        const res = await client.send(new HeadObjectCommand({ Bucket, Key: checkKey(key) }));
        return { size: Number(res.ContentLength ?? 0), contentType: res.ContentType ?? null, lastModified: res.LastModified ?? new Date(0) };
      } catch (err) {
        if (missing(err)) return null;
        throw err;
      }
    },
    async readStart(key, bytes) {
      return this.readRange(key, 0, bytes);
    },
    async readRange(key, start, length) {
      try {
        const res = await client.send(new GetObjectCommand({ Bucket, Key: checkKey(key), Range: `bytes=${start}-${start + length - 1}` }));
        return Buffer.from(await res.Body!.transformToByteArray());
      } catch (err) {
        if (missing(err)) return null;
        // An empty object has no byte 0: S3 answers 416 to any range of it.
        if (err instanceof S3ServiceException && err.$metadata.httpStatusCode === 416) return Buffer.alloc(0);
        throw err;
      }
    },
    /**
     * Content-Length and Content-Type are signed headers (X-Amz-SignedHeaders),
     * so a body of another length or a different type no longer matches the
     * signature and S3 refuses it with 403 SignatureDoesNotMatch.
     */
    async presignPut(key, size, contentType, expiresSeconds, sha256) {
      const command = new PutObjectCommand({ Bucket, Key: checkKey(key), ContentLength: size, ContentType: contentType, ...(sha256 ? { ChecksumSHA256: sha256 } : {}) });
      const signed = ['content-length', 'content-type', ...(sha256 ? ['x-amz-checksum-sha256'] : [])];
      // The checksum stays a header (the presigner would move x-amz-* into the query): S3 checks a header's checksum against the body.
      const url = await getSignedUrl(client, command, {
        expiresIn: expiresSeconds,
        signableHeaders: new Set(signed),
        unhoistableHeaders: new Set(sha256 ? ['x-amz-checksum-sha256'] : []),
      });
      return { method: 'PUT', url, headers: { 'content-type': contentType, ...(sha256 ? { 'x-amz-checksum-sha256': sha256 } : {}) } };
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
