import { Type } from '@sinclair/typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { AppContext } from '../../../platform/context.js';
import { notFound } from '../../../platform/errors.js';
import { errors } from '../../../platform/http/schemas.js';
import { findAsset, type AssetRow } from '../../catalog/content-assets/assets-service.js';
import { sendAsset } from '../../catalog/content-assets/send-asset.js';
import { requireStaff, type StaffPrincipal } from '../../staff/principal.js';
import { pageRoute } from '../ui/page.js';

/**
 * Which assets a signed-in staff member may load: operators every one; an
 * institution's staff the operators' (the catalogue's tests they mark and
 * review) and their own institution's, never another institution's.
 */
export function staffMaySeeAsset(p: StaffPrincipal, asset: Pick<AssetRow, 'ownerInstitutionId'>): boolean {
  return p.role === 'operator' || asset.ownerInstitutionId === null || asset.ownerInstitutionId === p.institutionId;
}

/** `GET /portal/content-assets/{assetId}`: the images of test content on the portal's pages (marking, review, preview). */
export const contentAssetPages: FastifyPluginAsyncTypebox<{ ctx: AppContext }> = async (app, { ctx }) => {
  app.get(
    '/content-assets/:assetId',
    {
      schema: {
        ...pageRoute,
        params: Type.Object({ assetId: Type.String({ maxLength: 64 }) }),
        response: { 200: Type.Unsafe<Buffer>({ type: 'string', description: 'The image' }), ...errors(404) },
      },
    },
    async (request, reply) => {
      const p = requireStaff(request);
      const asset = await findAsset(ctx.pool, request.params.assetId);
      if (!asset || !staffMaySeeAsset(p, asset)) throw notFound('asset');
      return sendAsset(ctx, reply, asset);
    },
  );
};
