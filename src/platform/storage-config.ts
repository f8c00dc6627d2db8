import { boolVar, ConfigError, urlVar, type Env } from './config-vars.js';

/** Where files live (platform/storage): local folders, or an S3 bucket for several hosts. */
export type StorageConfig =
  | { kind: 'local'; /** ASSAY_STORAGE_SHARED: one shared mount (NFS…) every host sees (storage/storage-location.ts). */ shared: boolean }
  | {
      kind: 's3';
      bucket: string;
      /** An S3-compatible service (MinIO, R2, …); null for AWS itself. Path-style addressing when set. */
      endpoint: string | null;
      region: string;
      /** From AWS_ACCESS_KEY_ID / AWS_SECRET_ACCESS_KEY / AWS_SESSION_TOKEN; null: the SDK's own chain (instance role, profile). */
      credentials: { accessKeyId: string; secretAccessKey: string; sessionToken?: string } | null;
    };

export function storageConfig(env: Env): StorageConfig {
  const bucket = env.ASSAY_STORAGE_S3_BUCKET || '';
  if (!bucket) {
    for (const name of ['ASSAY_STORAGE_S3_ENDPOINT', 'ASSAY_STORAGE_S3_REGION']) {
      if (env[name]) throw new ConfigError(name, 'is set but ASSAY_STORAGE_S3_BUCKET is not (set the bucket to store in S3)');
    }
    return { kind: 'local', shared: boolVar(env, 'ASSAY_STORAGE_SHARED', false) };
  }
  if (boolVar(env, 'ASSAY_STORAGE_SHARED', false)) throw new ConfigError('ASSAY_STORAGE_SHARED', 'is for local storage; every host shares the S3 bucket already');
  if (!/^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/.test(bucket)) {
    throw new ConfigError('ASSAY_STORAGE_S3_BUCKET', `must be a bucket name (3–63 lower-case letters, digits, dots, hyphens), got "${bucket}"`);
  }
  const endpoint = env.ASSAY_STORAGE_S3_ENDPOINT ? urlVar(env, 'ASSAY_STORAGE_S3_ENDPOINT', '') : null;
  const region = env.ASSAY_STORAGE_S3_REGION || 'us-east-1';
  if (!/^[a-z0-9-]{1,32}$/.test(region)) throw new ConfigError('ASSAY_STORAGE_S3_REGION', `must be a region name like eu-west-1, got "${region}"`);
  const accessKeyId = env.AWS_ACCESS_KEY_ID || '';
  const secretAccessKey = env.AWS_SECRET_ACCESS_KEY || '';
  if (Boolean(accessKeyId) !== Boolean(secretAccessKey)) {
    // Never echo either value.
    throw new ConfigError(accessKeyId ? 'AWS_SECRET_ACCESS_KEY' : 'AWS_ACCESS_KEY_ID', 'must be set together with its pair (AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY)');
  }
  const credentials = accessKeyId
    ? { accessKeyId, secretAccessKey, ...(env.AWS_SESSION_TOKEN ? { sessionToken: env.AWS_SESSION_TOKEN } : {}) }
    : null;
  return { kind: 's3', bucket, endpoint, region, credentials };
}
