import type { Readable } from 'node:stream';

/**
 * Object storage for files too big for PostgreSQL (proctoring recordings and
 * snapshots): one small interface, two implementations. Rows in the database
 * hold an object's key and size, never its bytes.
 *
 * Keys are relative paths of safe characters (`proctoring/ins_…/asg_…/x.webm`);
 * nothing else is accepted, so a key can never climb out of the local root
 * or name another bucket. Objects are written whole (no partial object is
 * ever visible: the local store renames a finished temporary file into place,
 * S3 has whole-object PUTs).
 */
export interface StoredObject {
  body: Readable;
  size: number;
}

export interface ObjectStore {
  readonly kind: 'local' | 's3';
  put(key: string, body: Buffer, contentType: string): Promise<void>;
  /**
   * Writes a stream as one object and returns its size and SHA-256 (hex),
   * hashed off the event loop as it is stored. Once more than `maxBytes`
   * arrive, or the stream fails (a client gone mid-upload), the write stops
   * with the error (ObjectTooLargeError for the limit) and nothing is left
   * behind under the key or beside it.
   */
  putStream(key: string, body: Readable, contentType: string, maxBytes: number): Promise<StoredStream>;
  /** The object as a stream, or null when there is none. */
  get(key: string): Promise<StoredObject | null>;
  /** Deleting a missing object is not an error. */
  delete(key: string): Promise<void>;
  /** Deletes every object whose key starts with `prefix` (which must end with `/`); returns how many went. */
  deletePrefix(prefix: string): Promise<number>;
  /** Every object under `prefix`, in key order. */
  list(prefix: string): Promise<Array<{ key: string; size: number }>>;
  /** The object's size, stored content type and time it was written, or null when there is none. */
  head(key: string): Promise<ObjectHead | null>;
  /** The object's first `bytes` bytes (all of it when shorter), or null when there is none. */
  readStart(key: string, bytes: number): Promise<Buffer | null>;
  /** `length` bytes from byte `start` (fewer at the end), or null when there is no object. */
  readRange(key: string, start: number, length: number): Promise<Buffer | null>;
  /**
   * S3 only: a presigned PUT of exactly `size` bytes of `contentType` to
   * `key`, valid for `expiresSeconds`. Both headers are signed, so S3
   * refuses another length or type. The local store has none (uploads go
   * through the API there). With `sha256` (base64), `x-amz-checksum-sha256`
   * is a signed header too: S3 computes the body's SHA-256 and refuses a
   * body that does not match it.
   */
  presignPut?(key: string, size: number, contentType: string, expiresSeconds: number, sha256?: string): Promise<PresignedPut>;
}

export interface ObjectHead {
  size: number;
  contentType: string | null;
  lastModified: Date;
}

/** What a browser sends to S3: this method, URL and these headers, the body exactly as declared. */
export interface PresignedPut {
  method: 'PUT';
  url: string;
  headers: Record<string, string>;
}

/** What putStream stored: its size, and the SHA-256 of its bytes (hex). */
export interface StoredStream {
  bytes: number;
  sha256: string;
}

/** A streamed object that grew past its limit (putStream); nothing was stored. */
export class ObjectTooLargeError extends Error {
  constructor(readonly maxBytes: number) {
    super(`storage: the object is larger than ${maxBytes} bytes`);
    this.name = 'ObjectTooLargeError';
  }
}

/**
 * The stream's chunks, stopping with ObjectTooLargeError as soon as their
 * total passes `maxBytes` (the rest is never read).
 */
export async function* limitedChunks(body: Readable, maxBytes: number): AsyncGenerator<Buffer> {
  let total = 0;
  // destroyOnReturn false: a stream stopped at the limit stays open, so an HTTP request can still be answered.
  for await (const chunk of body.iterator({ destroyOnReturn: false })) {
    const buf = Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk as Uint8Array);
    total += buf.length;
    if (total > maxBytes) throw new ObjectTooLargeError(maxBytes);
    yield buf;
  }
}

const KEY = /^[A-Za-z0-9_-]+(?:\/[A-Za-z0-9_-][A-Za-z0-9_.-]*)*$/;

export function checkKey(key: string): string {
  if (key.length > 512 || !KEY.test(key) || key.split('/').some((part) => part === '.' || part === '..')) {
    throw new Error(`storage: not a valid object key: ${JSON.stringify(key)}`);
  }
  return key;
}

export function checkPrefix(prefix: string): string {
  if (!prefix.endsWith('/')) throw new Error(`storage: a prefix ends with "/": ${JSON.stringify(prefix)}`);
  checkKey(prefix.slice(0, -1));
  return prefix;
}
