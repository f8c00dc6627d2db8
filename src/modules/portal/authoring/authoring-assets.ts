import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { AppContext } from '../../../platform/context.js';
import { errors } from '../../../platform/http/schemas.js';
import { ASSET_MAX_BYTES, ASSET_TYPES } from '../../catalog/content-assets/asset-bytes.js';
import { createAsset } from '../../catalog/content-assets/assets-service.js';
import { auditContext } from '../ui/page.js';
import { scopeOf } from './authoring-api.js';

/**
 * The editor's image upload (docs/authoring.md "Images"): the body is the
 * image itself, its type in Content-Type, the session's CSRF token in
 * `X-CSRF-Token`. The asset belongs to the author's institution (an
 * operator's to the platform), is checked and sanitised exactly as the
 * operator API's `POST /assets` does, and is named in Markdown as
 * `![alt text](asset:ast_…)`.
 */
const Asset = Type.Object({
  assetId: Type.String(),
  contentType: Type.String(),
  bytes: Type.Integer(),
  sha256: Type.String(),
});

export const authoringAssets: FastifyPluginAsyncTypebox<{ ctx: AppContext }> = async (app, { ctx }) => {
  // This scope reads any body as bytes; createAsset checks the declared type against them.
  app.addContentTypeParser('*', { parseAs: 'buffer', bodyLimit: ASSET_MAX_BYTES }, (_request, body, done) => done(null, body));
  app.post(
    '/authoring/assets',
    {
      bodyLimit: ASSET_MAX_BYTES,
      config: { json: true, upload: { permission: 'author_tests' }, uploadTime: true },
      schema: {
        hide: true,
        consumes: [...ASSET_TYPES],
        body: Type.Unsafe<Buffer>({ format: 'binary' }),
        response: { 201: Asset, ...errors(400, 401, 403, 413, 415) },
      },
    },
    async (request, reply) => {
      const scope = scopeOf(request);
      const body = Buffer.isBuffer(request.body) ? request.body : Buffer.alloc(0);
      const { createdAt: _omit, ...created } = await createAsset(
        ctx,
        { contentType: request.headers['content-type'], body, ownerInstitutionId: scope === 'all' ? null : scope.institutionId },
        auditContext(request),
      );
      return reply.status(201).send(created);
    },
  );
};
