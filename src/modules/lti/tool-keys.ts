import { exportJWK, exportPKCS8, generateKeyPair, importPKCS8, SignJWT, type JWK, type JWTPayload } from 'jose';
import type { AppContext } from '../../platform/context.js';
import { randomBase62 } from '../../platform/ids.js';
import { secretBoxFor } from '../webhooks/webhooks-context.js';
import { findCurrentToolKey, insertCurrentToolKey, listPublishedToolKeys, retireCurrentToolKey, type ToolKeyRow } from './lti-repo.js';
import { withTransaction } from '../../platform/db.js';
import { recordAudit, type AuditContext } from '../staff/audit.js';

/**
 * The tool's own RSA key pair (RS256), with which Assay signs what it sends a
 * platform: deep-linking responses and the client assertions of the token
 * requests. Generated once, on first use, by whichever process needs it
 * first (a unique index keeps exactly one current key); the private key is
 * stored sealed with ASSAY_SECRET in the webhook secret box, with the key id
 * bound in as additional data. A rotation retires the current key and makes
 * a new one; a retired key stays published at /lti/jwks for RETIRED_KEY_PUBLISHED_MS,
 * so a platform that cached the old set still verifies messages signed just before.
 */
export const RETIRED_KEY_PUBLISHED_MS = 7 * 24 * 60 * 60 * 1000;
const ALG = 'RS256';

type SigningKey = Awaited<ReturnType<typeof importPKCS8>>;
const opened = new Map<string, SigningKey>();

async function makeKey(ctx: AppContext): Promise<Omit<ToolKeyRow, 'retiredAt'>> {
  const { publicKey, privateKey } = await generateKeyPair(ALG, { modulusLength: 2048, extractable: true });
  const kid = randomBase62(16);
  const publicJwk = { ...(await exportJWK(publicKey)), kid, alg: ALG, use: 'sig' };
  const pem = await exportPKCS8(privateKey);
  return { kid, publicJwk, privateKeySealed: secretBoxFor(ctx.config).seal(pem, `lti-tool-key:${kid}`), createdAt: ctx.clock.now() };
}

/** The current key, made if there is none yet. */
export async function currentToolKey(ctx: AppContext): Promise<{ kid: string; key: SigningKey }> {
  let row = await findCurrentToolKey(ctx.pool);
  if (!row) {
    await insertCurrentToolKey(ctx.pool, await makeKey(ctx));
    row = (await findCurrentToolKey(ctx.pool))!;
  }
  let key = opened.get(row.kid);
  if (!key) {
    key = await importPKCS8(secretBoxFor(ctx.config).open(row.privateKeySealed, `lti-tool-key:${row.kid}`), ALG);
    opened.set(row.kid, key);
  }
  return { kid: row.kid, key };
}

/** Retires the current key and makes a new one; returns the new key id. */
export async function rotateToolKey(ctx: AppContext, audit?: AuditContext): Promise<{ kid: string }> {
  const fresh = await makeKey(ctx);
  await withTransaction(ctx.pool, async (tx) => {
    await tx.query('LOCK TABLE lti_tool_keys IN SHARE ROW EXCLUSIVE MODE');
    await retireCurrentToolKey(tx, ctx.clock.now());
    await insertCurrentToolKey(tx, fresh);
    if (audit) {
      await recordAudit(tx, { ...audit, action: 'lti_tool_key.rotated', objectType: 'lti_tool_key', objectId: fresh.kid, institutionId: null });
    }
  });
  return { kid: fresh.kid };
}

/** The public key set served at /lti/jwks (made on first request if need be, so a platform can fetch it before any launch). */
export async function toolJwks(ctx: AppContext): Promise<{ keys: JWK[] }> {
  await currentToolKey(ctx);
  const rows = await listPublishedToolKeys(ctx.pool, new Date(ctx.clock.now().getTime() - RETIRED_KEY_PUBLISHED_MS));
  return { keys: rows.map((r) => r.publicJwk as JWK) };
}

/** A JWT signed with the tool's current key (header: RS256, its kid, typ JWT). */
export async function signWithToolKey(ctx: AppContext, payload: JWTPayload, opts: { expiresInSeconds: number }): Promise<string> {
  const { kid, key } = await currentToolKey(ctx);
  const now = Math.floor(ctx.clock.now().getTime() / 1000);
  return new SignJWT(payload)
    .setProtectedHeader({ alg: ALG, kid, typ: 'JWT' })
    .setIssuedAt(now)
    .setExpirationTime(now + opts.expiresInSeconds)
    .setJti(randomBase62(22))
    .sign(key);
}
