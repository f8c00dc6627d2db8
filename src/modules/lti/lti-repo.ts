import type { Queryable } from '../../platform/db.js';

/** The LTI module's SQL of registrations and logins: platforms, login states and nonces, the tool's keys, deep-linking requests and registration invites (migrations/0022_lti.sql). */
export interface PlatformRow {
  id: string;
  institutionId: string;
  issuer: string;
  clientId: string;
  deploymentIds: string[];
  authLoginUrl: string;
  authTokenUrl: string;
  jwksUrl: string;
  createdAt: Date;
}

const PLATFORM_COLUMNS = 'id, institution_id, issuer, client_id, deployment_ids, auth_login_url, auth_token_url, jwks_url, created_at';

function toPlatform(r: Record<string, any>): PlatformRow {
  return {
    id: r.id,
    institutionId: r.institution_id,
    issuer: r.issuer,
    clientId: r.client_id,
    deploymentIds: r.deployment_ids,
    authLoginUrl: r.auth_login_url,
    authTokenUrl: r.auth_token_url,
    jwksUrl: r.jwks_url,
    createdAt: r.created_at,
  };
}

/** False when the (issuer, client id) pair is registered already. */
export async function insertPlatform(db: Queryable, p: PlatformRow): Promise<boolean> {
  const { rowCount } = await db.query(
    `INSERT INTO lti_platforms (${PLATFORM_COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)
     ON CONFLICT (issuer, client_id) DO NOTHING`,
    [p.id, p.institutionId, p.issuer, p.clientId, p.deploymentIds, p.authLoginUrl, p.authTokenUrl, p.jwksUrl, p.createdAt],
  );
  return rowCount === 1;
}

export async function listPlatforms(db: Queryable, institutionId: string): Promise<PlatformRow[]> {
  const { rows } = await db.query(`SELECT ${PLATFORM_COLUMNS} FROM lti_platforms WHERE institution_id = $1 ORDER BY created_at, id`, [institutionId]);
  return rows.map(toPlatform);
}

export async function findPlatform(db: Queryable, institutionId: string, id: string): Promise<PlatformRow | null> {
  const { rows } = await db.query(`SELECT ${PLATFORM_COLUMNS} FROM lti_platforms WHERE institution_id = $1 AND id = $2`, [institutionId, id]);
  return rows[0] ? toPlatform(rows[0]) : null;
}

export async function findPlatformById(db: Queryable, id: string): Promise<PlatformRow | null> {
  const { rows } = await db.query(`SELECT ${PLATFORM_COLUMNS} FROM lti_platforms WHERE id = $1`, [id]);
  return rows[0] ? toPlatform(rows[0]) : null;
}

/** The platforms of an issuer, narrowed to one client id when it is given. */
export async function findPlatformsByIssuer(db: Queryable, issuer: string, clientId: string | undefined): Promise<PlatformRow[]> {
  const { rows } = await db.query(
    `SELECT ${PLATFORM_COLUMNS} FROM lti_platforms WHERE issuer = $1 AND ($2::text IS NULL OR client_id = $2) ORDER BY created_at LIMIT 2`,
    [issuer, clientId ?? null],
  );
  return rows.map(toPlatform);
}

export async function setDeploymentIds(db: Queryable, institutionId: string, id: string, deploymentIds: string[]): Promise<PlatformRow | null> {
  const { rows } = await db.query(`UPDATE lti_platforms SET deployment_ids = $3 WHERE institution_id = $1 AND id = $2 RETURNING ${PLATFORM_COLUMNS}`, [
    institutionId, id, deploymentIds,
  ]);
  return rows[0] ? toPlatform(rows[0]) : null;
}

export async function deletePlatform(db: Queryable, institutionId: string, id: string): Promise<boolean> {
  const { rowCount } = await db.query('DELETE FROM lti_platforms WHERE institution_id = $1 AND id = $2', [institutionId, id]);
  return rowCount === 1;
}

// ---- login states and nonces

export async function insertLoginState(
  db: Queryable,
  s: { stateHash: string; platformId: string; nonce: string; browserHash: string; storageTarget: string | null; expiresAt: Date },
): Promise<void> {
  await db.query('INSERT INTO lti_login_states (state_hash, platform_id, nonce, browser_hash, storage_target, expires_at) VALUES ($1, $2, $3, $4, $5, $6)', [
    s.stateHash, s.platformId, s.nonce, s.browserHash, s.storageTarget, s.expiresAt,
  ]);
}

export interface LoginStateRow {
  platformId: string;
  nonce: string;
  browserHash: string;
  /** The platform's storage frame (lti_storage_target) the login wrote the binding to, or null. */
  storageTarget: string | null;
  expiresAt: Date;
}

export async function findLoginState(db: Queryable, stateHash: string): Promise<LoginStateRow | null> {
  const { rows } = await db.query('SELECT platform_id, nonce, browser_hash, storage_target, expires_at FROM lti_login_states WHERE state_hash = $1', [stateHash]);
  const r = rows[0];
  return r ? { platformId: r.platform_id, nonce: r.nonce, browserHash: r.browser_hash, storageTarget: r.storage_target, expiresAt: r.expires_at } : null;
}

/**
 * Uses the state and the nonce, once: the state row is deleted and the nonce
 * recorded in one statement. False when either was used already (a replay,
 * or two posts of the same launch racing).
 */
export async function consumeStateAndNonce(
  db: Queryable,
  u: { stateHash: string; platformId: string; nonce: string; nonceExpiresAt: Date },
): Promise<boolean> {
  const { rows } = await db.query(
    `WITH s AS (DELETE FROM lti_login_states WHERE state_hash = $1 AND platform_id = $2 AND nonce = $3 RETURNING 1),
          n AS (INSERT INTO lti_nonces (platform_id, nonce, expires_at) SELECT $2, $3, $4 FROM s ON CONFLICT DO NOTHING RETURNING 1)
     SELECT (SELECT count(*) FROM n)::int AS used`,
    [u.stateHash, u.platformId, u.nonce, u.nonceExpiresAt],
  );
  return rows[0].used === 1;
}

export async function purgeLoginLeftovers(db: Queryable, now: Date): Promise<void> {
  await db.query('DELETE FROM lti_login_states WHERE expires_at < $1', [now]);
  await db.query('DELETE FROM lti_nonces WHERE expires_at < $1', [now]);
  await db.query('DELETE FROM lti_deep_link_requests WHERE expires_at < $1', [now]);
}

// ---- tool keys

export interface ToolKeyRow {
  kid: string;
  publicJwk: Record<string, unknown>;
  privateKeySealed: string;
  createdAt: Date;
  retiredAt: Date | null;
}

function toToolKey(r: Record<string, any>): ToolKeyRow {
  return { kid: r.kid, publicJwk: r.public_jwk, privateKeySealed: r.private_key_sealed, createdAt: r.created_at, retiredAt: r.retired_at };
}

export async function findCurrentToolKey(db: Queryable): Promise<ToolKeyRow | null> {
  const { rows } = await db.query('SELECT * FROM lti_tool_keys WHERE retired_at IS NULL');
  return rows[0] ? toToolKey(rows[0]) : null;
}

/** False when another process made the current key first. */
export async function insertCurrentToolKey(db: Queryable, k: Omit<ToolKeyRow, 'retiredAt'>): Promise<boolean> {
  const { rowCount } = await db.query(
    `INSERT INTO lti_tool_keys (kid, public_jwk, private_key_sealed, created_at) VALUES ($1, $2, $3, $4)
     ON CONFLICT DO NOTHING`,
    [k.kid, JSON.stringify(k.publicJwk), k.privateKeySealed, k.createdAt],
  );
  return rowCount === 1;
}

export async function retireCurrentToolKey(db: Queryable, now: Date): Promise<void> {
  await db.query('UPDATE lti_tool_keys SET retired_at = $1 WHERE retired_at IS NULL', [now]);
}

/** The keys to publish: the current one and those retired after `since`. */
export async function listPublishedToolKeys(db: Queryable, since: Date): Promise<ToolKeyRow[]> {
  const { rows } = await db.query('SELECT * FROM lti_tool_keys WHERE retired_at IS NULL OR retired_at > $1 ORDER BY created_at DESC', [since]);
  return rows.map(toToolKey);
}

// ---- deep-linking requests

export interface DeepLinkRequestRow {
  platformId: string;
  deploymentId: string;
  returnUrl: string;
  data: string | null;
  /** sha256 of the picker cookie's value: the browser that received the picker. */
  browserHash: string;
  expiresAt: Date;
}

export async function insertDeepLinkRequest(db: Queryable, r: DeepLinkRequestRow & { idHash: string }): Promise<void> {
  await db.query(
    'INSERT INTO lti_deep_link_requests (id_hash, platform_id, deployment_id, return_url, data, browser_hash, expires_at) VALUES ($1, $2, $3, $4, $5, $6, $7)',
    [r.idHash, r.platformId, r.deploymentId, r.returnUrl, r.data, r.browserHash, r.expiresAt],
  );
}

export async function findDeepLinkRequest(db: Queryable, idHash: string): Promise<DeepLinkRequestRow | null> {
  const { rows } = await db.query('SELECT * FROM lti_deep_link_requests WHERE id_hash = $1', [idHash]);
  const r = rows[0];
  return r ? { platformId: r.platform_id, deploymentId: r.deployment_id, returnUrl: r.return_url, data: r.data, browserHash: r.browser_hash, expiresAt: r.expires_at } : null;
}

/** Uses a picker request, once: false when it was used already, has expired, or another browser holds it. */
export async function consumeDeepLinkRequest(db: Queryable, idHash: string, browserHash: string, now: Date): Promise<boolean> {
  const { rowCount } = await db.query('DELETE FROM lti_deep_link_requests WHERE id_hash = $1 AND browser_hash = $2 AND expires_at > $3', [idHash, browserHash, now]);
  return rowCount === 1;
}

// ---- dynamic registration invites

export async function insertRegistrationInvite(db: Queryable, i: { tokenHash: string; institutionId: string; expiresAt: Date }): Promise<void> {
  await db.query('INSERT INTO lti_registration_invites (token_hash, institution_id, expires_at) VALUES ($1, $2, $3)', [i.tokenHash, i.institutionId, i.expiresAt]);
}

/** The institution of a usable invite (known, unused, unexpired), or null. */
export async function findUsableInvite(db: Queryable, tokenHash: string, now: Date): Promise<string | null> {
  const { rows } = await db.query('SELECT institution_id FROM lti_registration_invites WHERE token_hash = $1 AND used_at IS NULL AND expires_at > $2', [tokenHash, now]);
  return rows[0]?.institution_id ?? null;
}

/** Marks the invite used by the platform registered with it; false when another registration used it first. */
export async function useInvite(db: Queryable, tokenHash: string, platformId: string, now: Date): Promise<boolean> {
  const { rowCount } = await db.query(
    'UPDATE lti_registration_invites SET used_at = $3, lti_platform_id = $2 WHERE token_hash = $1 AND used_at IS NULL AND expires_at > $3',
    [tokenHash, platformId, now],
  );
  return rowCount === 1;
}
