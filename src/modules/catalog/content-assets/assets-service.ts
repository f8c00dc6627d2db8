import type { AppContext } from '../../../platform/context.js';
import { sha256Hex } from '../../../platform/crypto.js';
import type { Queryable } from '../../../platform/db.js';
import { AppError, notFound } from '../../../platform/errors.js';
import { newId } from '../../../platform/ids.js';
import type { StoredObject } from '../../../platform/storage/object-store.js';
import { storageFor } from '../../../platform/storage/storage.js';
import { ASSET_TYPES, assetTypeOf, checkAssetBytes, type AssetType } from './asset-bytes.js';
import { defineWorkerTask, WorkerTaskError } from '../../../platform/worker-pool/worker-pool.js';
import { workerPool } from '../../../platform/worker-pool/shared-pool.js';
import * as repo from './assets-repo.js';
import { withAuditEntry, type AuditContext } from '../../staff/audit.js';

export type { AssetRow } from './assets-repo.js';
export { existingAssetIds, versionsNamingAsset } from './assets-repo.js';

/** What the API answers for an asset. */
export interface AssetView {
  assetId: string;
  contentType: string;
  bytes: number;
  sha256: string;
  createdAt: Date;
}

const view = (a: repo.AssetRow): AssetView => ({ assetId: a.assetId, contentType: a.contentType, bytes: a.bytes, sha256: a.sha256, createdAt: a.createdAt });

const CHECK_ASSET = defineWorkerTask<{ type: AssetType }, Uint8Array>(new URL('./check-asset-task.js', import.meta.url), 'checkAsset');

/** An SVG checked and sanitised on a worker-pool thread (a full pool answers 503 with Retry-After). */
async function checkSvgOffThread(body: Buffer): Promise<Buffer> {
  if (body.length === 0) return checkAssetBytes('image/svg+xml', body);
  try {
    const out = await workerPool().run(CHECK_ASSET, body, { type: 'image/svg+xml' });
    return Buffer.from(out.buffer, out.byteOffset, out.byteLength);
  } catch (err) {
    if (!(err instanceof WorkerTaskError) || err.reason === 'crashed') throw err;
    throw new AppError('invalid_request', 'The SVG takes too long or too much memory to check: simplify it or send a raster image.', [{ field: 'body', message: 'could not be checked in time' }]);
  }
}

/**
 * Stores an uploaded image: the declared type must be one of ASSET_TYPES
 * (415 otherwise) and agree with the bytes (400), an SVG is sanitised first;
 * the bytes go to object storage, then the row. `bytes` and `sha256` are of
 * what is stored (the sanitised SVG). The object is written before the row,
 * so a row never names missing bytes; a crash between leaves an unnamed
 * object and nothing else.
 */
export async function createAsset(
  ctx: Pick<AppContext, 'pool' | 'config'>,
  input: { contentType: string | undefined; body: Buffer; ownerInstitutionId: string | null },
  audit?: AuditContext,
): Promise<AssetView> {
  const type = assetTypeOf(input.contentType);
  if (!type) throw new AppError('unsupported_media_type', `Send the image with its Content-Type, one of ${ASSET_TYPES.join(', ')}.`);
  const body = type === 'image/svg+xml' ? await checkSvgOffThread(input.body) : checkAssetBytes(type, input.body);
  const assetId = newId('ast');
  const storageKey = `assets/${input.ownerInstitutionId ?? 'operator'}/${assetId}`;
  await storageFor(ctx.config).put(storageKey, body, type);
  const row = await withAuditEntry(
    ctx.pool,
    audit,
    (db) => repo.insertAsset(db, { assetId, ownerInstitutionId: input.ownerInstitutionId, storageKey, contentType: type, bytes: body.length, sha256: sha256Hex(body) }),
    (a) => ({ action: 'asset.created', objectType: 'asset', objectId: a.assetId, institutionId: a.ownerInstitutionId, details: { contentType: a.contentType, bytes: a.bytes } }),
  );
  return view(row);
}

export async function getAsset(db: Queryable, assetId: string): Promise<AssetView> {
  const row = await repo.findAsset(db, assetId);
  if (!row) throw notFound('asset');
  return view(row);
}

export function findAsset(db: Queryable, assetId: string): Promise<repo.AssetRow | null> {
  return repo.findAsset(db, assetId);
}

/** The asset's bytes (a 404 when the row or, after a storage mishap, the object is missing). */
export async function openAsset(ctx: AppContext, asset: repo.AssetRow): Promise<StoredObject> {
  const object = await storageFor(ctx.config).get(asset.storageKey);
  if (!object) throw notFound('asset');
  return object;
}
