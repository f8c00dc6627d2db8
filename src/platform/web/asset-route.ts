import fs from 'node:fs';
import zlib from 'node:zlib';
import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import { sha256Hex } from '../crypto.js';

/**
 * A static file of the pages for people (script, stylesheet, model weights),
 * read once at start: a missing file fails the boot, not a page. Served with
 * a strong ETag and `must-revalidate`, so a browser asks every time and gets
 * a 304 while the file is unchanged, and with nosniff.
 */
export interface StaticAsset {
  body: Buffer;
  /** The body gzipped once at start, for large text files; served to clients that accept gzip. */
  gzipped: Buffer | null;
  type: string;
  etag: string;
}

export function loadAsset(file: string | URL, type: string, opts: { gzip?: boolean } = {}): StaticAsset {
  const body = fs.readFileSync(file);
  const gzipped = opts.gzip ? zlib.gzipSync(body, { level: 9 }) : null;
  return { body, gzipped, type, etag: `"${sha256Hex(body).slice(0, 16)}"` };
}

/**
 * Several scripts served as one file (the registered question types'
 * browser parts): concatenated in the given order at start, one ETag for the
 * whole. Each script is its own `(() => { … })()`, so joining them changes
 * nothing; an empty list serves an empty script.
 */
export function loadAssetBundle(files: ReadonlyArray<string | URL>, type: string): StaticAsset {
  const body = Buffer.from(files.map((f) => `${fs.readFileSync(f, 'utf8').trimEnd()}\n`).join(''));
  return { body, gzipped: null, type, etag: `"${sha256Hex(body).slice(0, 16)}"` };
}

export interface AssetRouteOptions {
  /** Headers sent besides cache-control, etag and nosniff (e.g. cross-origin-resource-policy). */
  headers?: Record<string, string>;
  /**
   * The student, portal and passkey assets have always answered 304 through
   * `send(null)`, which Fastify serialises as JSON (content-type
   * application/json, content-length 4, no body written); the proctoring
   * assets answer a bare 304. Kept as it was until it is changed on purpose.
   */
  bareNotModified?: boolean;
}

/** GET (and its HEAD twin) for one static asset at `url`. */
export function assetRoute(app: Pick<FastifyInstance, 'get'>, url: string, asset: StaticAsset, opts: AssetRouteOptions = {}): void {
  const schema = { hide: true, response: { 200: Type.Unsafe<Buffer>({ type: 'string' }), 304: Type.Null() } };
  app.get(url, { schema }, async (request, reply) => {
    reply.header('cache-control', 'public, max-age=0, must-revalidate').header('etag', asset.etag).header('x-content-type-options', 'nosniff');
    if (opts.headers) reply.headers(opts.headers);
    if (asset.gzipped) reply.header('vary', 'accept-encoding');
    if (request.headers['if-none-match'] === asset.etag) return opts.bareNotModified ? reply.code(304).send() : reply.code(304).send(null);
    reply.type(asset.type);
    if (asset.gzipped && /\bgzip\b/.test(request.headers['accept-encoding'] ?? '')) {
      return reply.header('content-encoding', 'gzip').send(asset.gzipped);
    }
    return reply.send(asset.body);
  });
}
