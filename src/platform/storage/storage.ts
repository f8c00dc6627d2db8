import path from 'node:path';
import type { Readable } from 'node:stream';
import type { Config } from '../config.js';
import { createLocalStore } from './local-store.js';

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
  /** The object as a stream, or null when there is none. */
  get(key: string): Promise<StoredObject | null>;
  /** Deleting a missing object is not an error. */
  delete(key: string): Promise<void>;
  /** Deletes every object whose key starts with `prefix` (which must end with `/`); returns how many went. */
  deletePrefix(prefix: string): Promise<number>;
  /** Every object under `prefix`, in key order. */
  list(prefix: string): Promise<Array<{ key: string; size: number }>>;
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

const stores = new WeakMap<object, ObjectStore>();

/**
 * The store the configuration names, one per configuration object (the
 * config is parsed once per process, so in practice one per process): local
 * files under `{ASSAY_DATA_DIR}/storage` by default, the S3 bucket when
 * ASSAY_STORAGE_S3_BUCKET is set.
 */
export function storageFor(config: Readonly<Pick<Config, 'storage' | 'dataDir'>>): ObjectStore {
  let store = stores.get(config);
  if (!store) {
    store = config.storage.kind === 's3' ? lazyS3Store(config.storage) : createLocalStore(path.join(config.dataDir, 'storage'));
    stores.set(config, store);
  }
  return store;
}

/**
 * The S3 store, its SDK loaded on first use: a process on local storage (the
 * default) never loads the AWS SDK, which is large and slows every start.
 */
function lazyS3Store(config: Extract<Config['storage'], { kind: 's3' }>): ObjectStore {
  let loading: Promise<ObjectStore> | null = null;
  const store = () => (loading ??= import('./s3-store.js').then((m) => m.createS3Store(config)));
  return {
    kind: 's3',
    put: async (key, body, contentType) => (await store()).put(key, body, contentType),
    get: async (key) => (await store()).get(key),
    delete: async (key) => (await store()).delete(key),
    deletePrefix: async (prefix) => (await store()).deletePrefix(prefix),
    list: async (prefix) => (await store()).list(prefix),
  };
}
