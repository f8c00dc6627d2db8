import path from 'node:path';
import type { Config } from '../config.js';
import { createLocalStore } from './local-store.js';
import type { ObjectStore } from './object-store.js';

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
    putStream: async (key, body, contentType, maxBytes) => (await store()).putStream(key, body, contentType, maxBytes),
    get: async (key) => (await store()).get(key),
    delete: async (key) => (await store()).delete(key),
    deletePrefix: async (prefix) => (await store()).deletePrefix(prefix),
    list: async (prefix) => (await store()).list(prefix),
    head: async (key) => (await store()).head(key),
    readStart: async (key, bytes) => (await store()).readStart(key, bytes),
    readRange: async (key, start, length) => (await store()).readRange(key, start, length),
    presignPut: async (key, size, contentType, expiresSeconds, sha256) => (await store()).presignPut!(key, size, contentType, expiresSeconds, sha256),
  };
}
