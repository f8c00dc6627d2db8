import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createRequire } from 'node:module';
import type { StorageConfig } from '../../src/platform/config.js';

/**
 * A real S3-compatible server for the tests: npm's `@20minutes/s3rver` (MIT,
 * the maintained fork of s3rver), started in this process on a free port
 * with a fresh temporary folder and one bucket. It checks every SigV4
 * signature, header-signed or presigned (the original s3rver 3.x accepts any
 * SigV4 signature without computing it), and a presigned request's expiry.
 * What it does not check, and real S3 does: an unsigned (anonymous) request
 * is let through, as if every bucket were public-writable, so a test must
 * never rely on an anonymous request being refused.
 *
 * When the package cannot be loaded, `hasS3` is false and the tests that
 * need it follow the rule of every component (components.ts:
 * componentAvailable): skipped with a notice, a failure under CI. No vitest
 * import here: the benches use it too.
 */
export const S3_ACCESS_KEY = 'S3RVER';
export const S3_SECRET_KEY = 'S3RVER';

type S3rverServer = { run(): Promise<{ port: number }>; close(): Promise<void> };
type S3rverClass = new (options: Record<string, unknown>) => S3rverServer;

function loadS3rver(): S3rverClass | null {
  try {
    return createRequire(import.meta.url)('@20minutes/s3rver') as S3rverClass;
  } catch {
    return null;
  }
}

/**
 * One correction to the fork's SigV4 check (a bug, not a relaxation): for a
 * bucket-level request made path-style (`GET /bucket/?list-type=2`, `POST
 * /bucket/?delete`) it drops the path's trailing slash from the canonical
 * URI, while the signer (AWS's SDK, like S3 itself) keeps it, so every
 * listing and batch delete was refused. The canonical URI is put back to
 * the path as sent; the signature is still computed and compared in full.
 */
function fixBucketUri(load: (id: string) => unknown): void {
  const v4 = load('@20minutes/s3rver/lib/signature/v4') as { getStringToSign(req: { uri: string; headers: Record<string, string> }, r: unknown): string; patched?: boolean };
  if (v4.patched) return;
  const original = v4.getStringToSign;
  v4.getStringToSign = (req, r) => {
    const sent = req.headers[RAW_PATH];
    const uri = sent !== undefined && /^\/[^/]+\/$/.test(sent) && `${req.uri}/` === sent ? sent : req.uri;
    return original({ ...req, uri }, r);
  };
  v4.patched = true;
}
const RAW_PATH = 'x-test-raw-path';

function loadS3rverPatched(): S3rverClass | null {
  const S3rver = loadS3rver();
  if (S3rver) fixBucketUri(createRequire(import.meta.url));
  return S3rver;
}

const S3rver = loadS3rverPatched();
export const hasS3 = S3rver !== null;

/**
 * The CORS rule the docs give operators (docs/file-uploads.md): PUT from
 * the service's pages, the two signed headers, nothing exposed but ETag.
 */
export function corsRule(origins: string[]): string {
  const allowed = origins.map((o) => `<AllowedOrigin>${o}</AllowedOrigin>`).join('');
  return `<CORSConfiguration><CORSRule>${allowed}<AllowedMethod>PUT</AllowedMethod><AllowedHeader>content-type</AllowedHeader><AllowedHeader>content-length</AllowedHeader><AllowedHeader>x-amz-checksum-sha256</AllowedHeader><ExposeHeader>ETag</ExposeHeader><MaxAgeSeconds>600</MaxAgeSeconds></CORSRule></CORSConfiguration>`;
}

export interface S3TestServer {
  endpoint: string;
  bucket: string;
  /** The store's configuration, as parseConfig makes it from ASSAY_STORAGE_S3_* and AWS_*. */
  config: Extract<StorageConfig, { kind: 's3' }>;
  /** The same as environment variables, for a child process. */
  env: Record<string, string>;
  /** Every request the server received, in order (method, path, query string, its body's declared length, its Origin). */
  requests: Array<{ method: string; path: string; query: string; bytes: number; origin: string | null }>;
  close(): Promise<void>;
}

/** Starts s3rver on a free port of 127.0.0.1 with one bucket (CORS for `corsOrigins` when given). */
export async function startS3Server(opts: { bucket?: string; corsOrigins?: string[] } = {}): Promise<S3TestServer> {
  if (!S3rver) throw new Error('@20minutes/s3rver is not installed');
  const bucket = opts.bucket ?? 'assay-test';
  const directory = fs.mkdtempSync(path.join(os.tmpdir(), 'assay-s3rver-'));
  const server = new S3rver({
    address: '127.0.0.1',
    port: 0,
    silent: true,
    directory,
    configureBuckets: [{ name: bucket, configs: opts.corsOrigins ? [corsRule(opts.corsOrigins)] : [] }],
  });
  const requests: S3TestServer['requests'] = [];
  // The path as sent, for fixBucketUri; not a signed header, so it changes no signature.
  (server as unknown as { middleware: Array<(ctx: { method: string; path: string; querystring: string; headers: Record<string, string> }, next: () => Promise<void>) => Promise<void>> }).middleware.unshift(
    (ctx, next) => {
      ctx.headers[RAW_PATH] = ctx.path;
      requests.push({ method: ctx.method, path: ctx.path, query: ctx.querystring, bytes: Number(ctx.headers['content-length'] ?? 0), origin: ctx.headers.origin ?? null });
      return next();
    },
  );
  const { port } = await server.run();
  const endpoint = `http://127.0.0.1:${port}`;
  const region = 'us-east-1';
  return {
    endpoint,
    bucket,
    config: { kind: 's3', bucket, endpoint, region, credentials: { accessKeyId: S3_ACCESS_KEY, secretAccessKey: S3_SECRET_KEY } },
    requests,
    env: {
      ASSAY_STORAGE_S3_BUCKET: bucket,
      ASSAY_STORAGE_S3_ENDPOINT: endpoint,
      ASSAY_STORAGE_S3_REGION: region,
      AWS_ACCESS_KEY_ID: S3_ACCESS_KEY,
      AWS_SECRET_ACCESS_KEY: S3_SECRET_KEY,
    },
    async close() {
      await server.close();
      fs.rmSync(directory, { recursive: true, force: true });
    },
  };
}
