import type { AppContext } from '../../../platform/context.js';
import { AppError } from '../../../platform/errors.js';
import type { AuditContext } from '../../staff/audit.js';
import { ASSET_MAX_BYTES, assetTypeOf, checkAssetBytes } from '../content-assets/asset-bytes.js';
import { createAsset } from '../content-assets/assets-service.js';

/**
 * Where an import puts the images its items show: content assets
 * (contentAssetSink). An import with neither a sink nor a dry run skips each
 * item that shows an image, so no item is imported without its picture.
 */
export interface AssetSink {
  /** Stores one image (already checked: a known image type, an SVG without script) and returns its asset id (`ast_…`). */
  store(image: { path: string; contentType: string; bytes: Uint8Array }): Promise<{ assetId: string }>;
}

const IMAGE_TYPES: Record<string, string> = {
  png: 'image/png',
  jpg: 'image/jpeg',
  jpeg: 'image/jpeg',
  gif: 'image/gif',
  webp: 'image/webp',
  svg: 'image/svg+xml',
};

/** The content type of an image file by its extension; null for anything else. */
export function imageType(path: string): string | null {
  return IMAGE_TYPES[path.split('.').pop()!.toLowerCase()] ?? null;
}

/**
 * The bytes to store for an image of `type`, or why it cannot be: the
 * content-assets check (a raster's magic bytes agree with its type; an SVG is
 * well-formed, has no DOCTYPE, and is sanitised: scripts, event handlers,
 * foreign content and external or script links removed), and the asset size
 * limit.
 */
export function checkImage(type: string, bytes: Uint8Array): Uint8Array | string {
  const assetType = assetTypeOf(type);
  if (!assetType) return 'is not a supported image type (PNG, JPEG, GIF, WebP, SVG)';
  if (bytes.length > ASSET_MAX_BYTES) return `is larger than the ${ASSET_MAX_BYTES / 1024 / 1024} MB an image may be`;
  try {
    return checkAssetBytes(assetType, Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength));
  } catch (err) {
    if (err instanceof AppError) return `is refused: ${err.message.replace(/^The body/, 'the file').replace(/^The SVG/, 'the SVG')}`;
    throw err;
  }
}

/**
 * The sink that stores each image as a content asset (docs/content.md) owned
 * by `ownerInstitutionId` (null: the platform's, for an operator's import),
 * audited as `asset.created` like an upload.
 */
export function contentAssetSink(ctx: Pick<AppContext, 'pool' | 'config'>, ownerInstitutionId: string | null, audit?: AuditContext): AssetSink {
  return {
    async store(image) {
      const view = await createAsset(ctx, { contentType: image.contentType, body: Buffer.from(image.bytes), ownerInstitutionId }, audit);
      return { assetId: view.assetId };
    },
  };
}
