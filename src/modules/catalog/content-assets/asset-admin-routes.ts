import { Type } from '@sinclair/typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { AppContext } from '../../../platform/context.js';
import { notFound } from '../../../platform/errors.js';
import { errors, Timestamp } from '../../../platform/http/schemas.js';
import { ASSET_MAX_BYTES, ASSET_TYPES } from './asset-bytes.js';
import { createAsset, findAsset, getAsset } from './assets-service.js';
import { sendAsset } from './send-asset.js';
import { operatorTokenAudit } from '../../staff/audit.js';

const AssetParams = Type.Object({ assetId: Type.String({ maxLength: 64 }) });
const Asset = Type.Object(
  {
    assetId: Type.String({ description: '`ast_…`; name it in Markdown as ![alt text](asset:ast_…)' }),
    contentType: Type.String({ enum: [...ASSET_TYPES] }),
    bytes: Type.Integer({ description: 'Size of the stored image (an SVG after sanitising)' }),
    sha256: Type.String({ description: 'SHA-256 of the stored bytes, hex' }),
  },
  { title: 'Asset' },
);
const AssetRead = Type.Object({ ...Asset.properties, createdAt: Timestamp }, { title: 'AssetRead' });

/**
 * The operators' images for test content (docs/content.md): the
 * body is the image itself, not JSON, so this scope reads any body as bytes
 * and the service checks the declared type against them.
 */
export const assetsAdminRoutes: FastifyPluginAsyncTypebox<{ ctx: AppContext }> = async (app, { ctx }) => {
  app.addContentTypeParser('*', { parseAs: 'buffer', bodyLimit: ASSET_MAX_BYTES }, (_request, body, done) => done(null, body));

  app.post(
    '/assets',
    {
      bodyLimit: ASSET_MAX_BYTES,
      config: { uploadTime: true },
      schema: {
        tags: ['Tests'],
        operationId: 'createAsset',
        summary: 'Upload an image for test content (the body is the image, at most 5 MB; SVG is sanitised)',
        consumes: [...ASSET_TYPES],
        // The image's bytes (read by this scope's parser, checked by createAsset).
        body: Type.Unsafe<Buffer>({ format: 'binary', description: 'The image: bytes, not JSON' }),
        response: { 201: Asset, ...errors(400, 401, 413, 415) },
      },
    },
    async (request, reply) => {
      const body = Buffer.isBuffer(request.body) ? request.body : Buffer.alloc(0);
      const { createdAt: _omit, ...created } = await createAsset(
        ctx,
        { contentType: request.headers['content-type'], body, ownerInstitutionId: null },
        operatorTokenAudit(request.ip),
      );
      return reply.status(201).send(created);
    },
  );
  app.get(
    '/assets/:assetId',
    { schema: { tags: ['Tests'], operationId: 'getAsset', summary: "An asset's type, size and hash", params: AssetParams, response: { 200: AssetRead, ...errors(401, 404) } } },
    async (request) => getAsset(ctx.pool, request.params.assetId),
  );
  app.get(
    '/assets/:assetId/content',
    {
      schema: {
        tags: ['Tests'],
        operationId: 'getAssetContent',
        summary: "An asset's bytes, with its Content-Type",
        params: AssetParams,
        response: { 200: Type.Unsafe<Buffer>({ type: 'string', format: 'binary', description: 'The image, with its stored Content-Type' }), ...errors(401, 404) },
      },
    },
    async (request, reply) => {
      const asset = await findAsset(ctx.pool, request.params.assetId);
      if (!asset) throw notFound('asset');
      return sendAsset(ctx, reply, asset);
    },
  );
};
