import type { FastifyReply } from 'fastify';
import type { AppContext } from '../../../platform/context.js';
import { openAsset, type AssetRow } from './assets-service.js';

/**
 * Sends an asset's bytes with headers that keep them an image: the stored
 * type, nosniff, and for SVG a CSP that forbids scripts and any load (so an
 * SVG opened on its own cannot act as a page) and `inline` disposition.
 * Assets never change, so browsers keep them for a year without asking; the
 * cache is private (access depends on who asks).
 */
export async function sendAsset(ctx: AppContext, reply: FastifyReply, asset: AssetRow): Promise<FastifyReply> {
  const object = await openAsset(ctx, asset);
  reply
    .type(asset.contentType)
    .header('content-length', String(object.size))
    .header('x-content-type-options', 'nosniff')
    .header('cache-control', 'private, max-age=31536000, immutable')
    .header('etag', `"${asset.sha256}"`)
    .header('cross-origin-resource-policy', 'same-origin');
  if (asset.contentType === 'image/svg+xml') {
    reply.header('content-security-policy', "default-src 'none'; style-src 'unsafe-inline'").header('content-disposition', 'inline');
  }
  return reply.send(object.body);
}
