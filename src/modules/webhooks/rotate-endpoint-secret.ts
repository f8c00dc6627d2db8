import { notFound } from '../../platform/errors.js';
import type { AppContext } from '../../platform/context.js';
import { withTransaction } from '../../platform/db.js';
import { findEndpoint, setEndpointSecrets } from './endpoints-repo.js';
import { generateEndpointSecret } from './secret-box.js';
import { secretBoxFor } from './webhooks-context.js';

/**
 * Rotation with an overlap: for 24 hours after a rotation every delivery is
 * signed with both the new and the previous secret (two `v1,` signatures in
 * `webhook-signature`), so the partner can switch its verifier at any moment
 * in that window. Rotating again within the window drops the oldest secret:
 * only the current and the one before it ever sign.
 */
export const ROTATION_OVERLAP_MS = 24 * 60 * 60 * 1000;

export async function rotateEndpointSecret(
  ctx: AppContext,
  institutionId: string,
  endpointId: string,
  livemode?: boolean,
): Promise<{ endpointId: string; secret: string; previousSecretExpiresAt: Date }> {
  const now = ctx.clock.now();
  const box = secretBoxFor(ctx.config);
  const secret = generateEndpointSecret();
  const previousSecretExpiresAt = new Date(now.getTime() + ROTATION_OVERLAP_MS);
  await withTransaction(ctx.pool, async (tx) => {
    const current = await findEndpoint(tx, institutionId, endpointId, { forUpdate: true, livemode });
    if (!current) throw notFound('webhook endpoint');
    await setEndpointSecrets(tx, endpointId, { secretEnc: box.seal(secret, endpointId), previousSecretEnc: current.secretEnc, previousSecretExpiresAt, now });
  });
  return { endpointId, secret, previousSecretExpiresAt };
}
