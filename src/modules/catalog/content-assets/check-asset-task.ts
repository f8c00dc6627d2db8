import { checkAssetBytes, type AssetType } from './asset-bytes.js';

/**
 * The SVG check and sanitising of an uploaded image (asset-bytes.ts), run on
 * a worker-pool thread: sanitize-html over a 5 MB SVG takes about 2 s, which
 * on the event loop every tenant waits for. Raster images need only a look
 * at their first bytes and stay on the loop (assets-service.ts).
 */
export function checkAsset(input: Uint8Array, args: { type: AssetType }): Uint8Array {
  return checkAssetBytes(args.type, Buffer.from(input.buffer, input.byteOffset, input.byteLength));
}
