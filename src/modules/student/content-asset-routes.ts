import cookie from '@fastify/cookie';
import { Type } from '@sinclair/typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { AppContext } from '../../platform/context.js';
import type { Queryable } from '../../platform/db.js';
import { notFound } from '../../platform/errors.js';
import { errors } from '../../platform/http/schemas.js';
import type { StudentSession } from '../assignments/student-sessions.js';
import { studentTestVersionIds } from '../assignments/student-test-versions.js';
import { findAsset, versionsNamingAsset, type AssetRow } from '../catalog/content-assets/assets-service.js';
import { sendAsset } from '../catalog/content-assets/send-asset.js';
import { studentAssetUrl } from '../catalog/content/content-format.js';
import { sessionOf, studentSession } from './student-auth.js';

/**
 * The asset a student may load: one that the test version of one of their
 * assignments (in the session's institution) names. Anything else, and an
 * asset that does not exist, is null: the route answers 404 to both alike.
 */
export async function assetForStudent(db: Queryable, session: StudentSession, assetId: string): Promise<AssetRow | null> {
  const asset = await findAsset(db, assetId);
  if (!asset) return null;
  const versions = await studentTestVersionIds(db, session.institutionId, session.userId);
  return (await versionsNamingAsset(db, assetId, versions)) ? asset : null;
}

/**
 * `GET /a/content-assets/{assetId}`: the images of test content on the
 * student's pages. Under /a/ because the student's session cookie is scoped
 * there; one URL per asset for every student, so a version's rendered texts
 * are cached once (catalog/content/rendered-content.ts). No session: 404.
 */
export const studentContentAssetRoutes: FastifyPluginAsyncTypebox<{ ctx: AppContext }> = async (app, { ctx }) => {
  await app.register(cookie);
  await app.register(studentSession, { ctx });
  app.get(
    studentAssetUrl(':assetId'),
    {
      config: { page: true },
      schema: {
        hide: true,
        params: Type.Object({ assetId: Type.String({ maxLength: 64 }) }),
        response: { 200: Type.Unsafe<Buffer>({ type: 'string', description: 'The image' }), ...errors(404) },
      },
    },
    async (request, reply) => {
      const asset = await assetForStudent(ctx.pool, sessionOf(request), request.params.assetId);
      if (!asset) throw notFound('asset');
      return sendAsset(ctx, reply, asset);
    },
  );
};
