import {
  generateAuthenticationOptions,
  generateRegistrationOptions,
  verifyAuthenticationResponse,
  verifyRegistrationResponse,
  type AuthenticationResponseJSON,
  type PublicKeyCredentialCreationOptionsJSON,
  type PublicKeyCredentialRequestOptionsJSON,
  type RegistrationResponseJSON,
} from '@simplewebauthn/server';
import type { AppContext } from '../../platform/context.js';
import { withTransaction, type Queryable } from '../../platform/db.js';
import { AppError, notFound } from '../../platform/errors.js';
import { recordAudit, type AuditContext } from './audit.js';
import { finishSignIn } from './finish-sign-in.js';
import type { StaffPrincipal } from './principal.js';

/**
 * Passkeys (WebAuthn), the second way into the portal. A signed-in staff
 * member registers one from the account page; afterwards "Sign in with a
 * passkey" on the sign-in page opens a session without a mail. Passkeys are
 * discoverable credentials with user verification (the device's PIN or
 * biometric), so the passkey alone is a full sign-in. The relying party is
 * PUBLIC_BASE_URL's host: a passkey only works on that exact origin.
 * Challenges are single use and live 5 minutes (the hourly purge deletes the
 * expired ones). A staff member holds at most MAX_REGISTER_CHALLENGES unused
 * registration challenges: asking for options again replaces the oldest, so
 * a page calling the options route in a loop stores a few rows, not one per call.
 */
const CHALLENGE_TTL_MS = 5 * 60 * 1000;
/** Enough for a few tabs or retries of "Add a passkey" at once. */
export const MAX_REGISTER_CHALLENGES = 3;
const MAX_PASSKEYS = 10;

export interface PasskeyView {
  credentialId: string;
  name: string;
  createdAt: Date;
  lastUsedAt: Date | null;
  backedUp: boolean;
}

function relyingParty(ctx: AppContext): { rpID: string; origin: string } {
  const url = new URL(ctx.config.publicBaseUrl);
  return { rpID: url.hostname, origin: url.origin };
}

/** What a passkey challenge was issued for: adding a passkey to the account, or signing in with one. */
type ChallengePurpose = 'register' | 'sign_in';

async function storeChallenge(db: Queryable, challenge: string, purpose: ChallengePurpose, staffId: string | null, now: Date): Promise<void> {
  await db.query('INSERT INTO webauthn_challenges (challenge, purpose, staff_id, expires_at) VALUES ($1, $2, $3, $4)', [
    challenge,
    purpose,
    staffId,
    new Date(now.getTime() + CHALLENGE_TTL_MS),
  ]);
}

/** Uses up a challenge: true only the first time, within its lifetime, for the same purpose and person. */
async function consumeChallenge(db: Queryable, challenge: string, purpose: ChallengePurpose, staffId: string | null, now: Date): Promise<boolean> {
  const { rowCount } = await db.query(
    `DELETE FROM webauthn_challenges WHERE challenge = $1 AND purpose = $2 AND staff_id IS NOT DISTINCT FROM $3 AND expires_at > $4`,
    [challenge, purpose, staffId, now],
  );
  return (rowCount ?? 0) > 0;
}

export async function listPasskeys(db: Queryable, staffId: string): Promise<PasskeyView[]> {
  const { rows } = await db.query(
    `SELECT credential_id, name, created_at, last_used_at, backed_up FROM staff_passkeys WHERE staff_id = $1 ORDER BY created_at, credential_id`,
    [staffId],
  );
  return rows.map((r) => ({ credentialId: r.credential_id, name: r.name, createdAt: r.created_at, lastUsedAt: r.last_used_at, backedUp: r.backed_up }));
}

export async function startPasskeyRegistration(ctx: AppContext, p: StaffPrincipal): Promise<PublicKeyCredentialCreationOptionsJSON> {
  const existing = await ctx.pool.query<{ credential_id: string; transports: string[] }>(
    'SELECT credential_id, transports FROM staff_passkeys WHERE staff_id = $1',
    [p.staffId],
  );
  if (existing.rows.length >= MAX_PASSKEYS) throw new AppError('invalid_state', `You can register at most ${MAX_PASSKEYS} passkeys; remove one first.`);
  const { rpID } = relyingParty(ctx);
  const options = await generateRegistrationOptions({
    rpName: 'Assay portal',
    rpID,
    userName: p.email,
    userDisplayName: p.name ?? p.email,
    userID: new TextEncoder().encode(p.staffId),
    attestationType: 'none',
    excludeCredentials: existing.rows.map((r) => ({ id: r.credential_id, transports: r.transports })),
    authenticatorSelection: { residentKey: 'required', userVerification: 'required' },
    timeout: CHALLENGE_TTL_MS,
  });
  await withTransaction(ctx.pool, async (tx) => {
    await storeChallenge(tx, options.challenge, 'register', p.staffId, ctx.clock.now());
    await tx.query(
      `DELETE FROM webauthn_challenges WHERE purpose = 'register' AND staff_id = $1
          AND seq NOT IN (SELECT seq FROM webauthn_challenges WHERE purpose = 'register' AND staff_id = $1 ORDER BY seq DESC LIMIT $2)`,
      [p.staffId, MAX_REGISTER_CHALLENGES],
    );
  });
  return options;
}

export async function finishPasskeyRegistration(
  ctx: AppContext,
  p: StaffPrincipal,
  input: { response: RegistrationResponseJSON; name: string },
  audit: AuditContext,
): Promise<PasskeyView> {
  const { rpID, origin } = relyingParty(ctx);
  const now = ctx.clock.now();
  const refused = () => new AppError('invalid_request', 'The passkey could not be registered. Try again.', [{ field: 'response', message: 'was not accepted' }]);
  let verification;
  try {
    verification = await verifyRegistrationResponse({
      response: input.response,
      expectedChallenge: (challenge) => consumeChallenge(ctx.pool, challenge, 'register', p.staffId, now),
      expectedOrigin: origin,
      expectedRPID: rpID,
      requireUserVerification: true,
    });
  } catch {
    throw refused();
  }
  if (!verification.verified) throw refused();
  const info = verification.registrationInfo;
  const name = input.name.trim() || 'Passkey';
  return withTransaction(ctx.pool, async (tx) => {
    const { rowCount } = await tx.query(
      `INSERT INTO staff_passkeys (credential_id, staff_id, public_key, counter, transports, device_type, backed_up, name, created_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9) ON CONFLICT (credential_id) DO NOTHING`,
      [info.credential.id, p.staffId, Buffer.from(info.credential.publicKey), info.credential.counter, info.credential.transports ?? [], info.credentialDeviceType, info.credentialBackedUp, name, now],
    );
    if (rowCount === 0) throw refused();
    await recordAudit(tx, {
      actor: audit.actor,
      ip: audit.ip,
      action: 'staff.passkey_added',
      objectType: 'passkey',
      objectId: info.credential.id,
      institutionId: p.institutionId,
      details: { name },
    });
    return { credentialId: info.credential.id, name, createdAt: now, lastUsedAt: null, backedUp: info.credentialBackedUp };
  });
}

export async function removePasskey(ctx: AppContext, p: StaffPrincipal, credentialId: string, audit: AuditContext): Promise<void> {
  await withTransaction(ctx.pool, async (tx) => {
    const { rows } = await tx.query('DELETE FROM staff_passkeys WHERE credential_id = $1 AND staff_id = $2 RETURNING name', [credentialId, p.staffId]);
    if (rows.length === 0) throw notFound('passkey');
    await recordAudit(tx, {
      actor: audit.actor,
      ip: audit.ip,
      action: 'staff.passkey_removed',
      objectType: 'passkey',
      objectId: credentialId,
      institutionId: p.institutionId,
      details: { name: rows[0].name },
    });
  });
}

/** Options for "Sign in with a passkey": no account named, the authenticator offers the passkeys it holds for this site. */
export async function startPasskeySignIn(ctx: AppContext): Promise<PublicKeyCredentialRequestOptionsJSON> {
  const options = await generateAuthenticationOptions({ rpID: relyingParty(ctx).rpID, userVerification: 'required', timeout: CHALLENGE_TTL_MS });
  await storeChallenge(ctx.pool, options.challenge, 'sign_in', null, ctx.clock.now());
  return options;
}

/** Verifies the assertion and opens a session; null when it is not accepted (unknown passkey, bad signature, used challenge). */
export async function finishPasskeySignIn(
  ctx: AppContext,
  response: AuthenticationResponseJSON,
  ip: string | null,
  previousSessionId?: string,
): Promise<{ sessionId: string; staffId: string } | null> {
  const now = ctx.clock.now();
  const { rows } = await ctx.pool.query(
    `SELECT k.credential_id, k.public_key, k.counter, k.transports, s.id AS staff_id, s.email, s.institution_id
       FROM staff_passkeys k JOIN staff s ON s.id = k.staff_id
      WHERE k.credential_id = $1 AND s.removed_at IS NULL`,
    [response.id],
  );
  const k = rows[0];
  if (!k) return null;
  const handle = response.response.userHandle;
  if (handle && Buffer.from(handle, 'base64url').toString('utf8') !== k.staff_id) return null;
  const { rpID, origin } = relyingParty(ctx);
  let verification;
  try {
    verification = await verifyAuthenticationResponse({
      response,
      expectedChallenge: (challenge) => consumeChallenge(ctx.pool, challenge, 'sign_in', null, now),
      expectedOrigin: origin,
      expectedRPID: rpID,
      credential: { id: k.credential_id, publicKey: new Uint8Array(k.public_key), counter: Number(k.counter), transports: k.transports },
      requireUserVerification: true,
    });
  } catch {
    return null;
  }
  if (!verification.verified) return null;
  return withTransaction(ctx.pool, async (tx) => {
    // A counter that did not move past the stored one (when the authenticator keeps one) suggests a cloned key.
    const { rowCount } = await tx.query(
      `UPDATE staff_passkeys SET counter = $2, last_used_at = $3 WHERE credential_id = $1 AND (counter = 0 OR counter < $2)`,
      [k.credential_id, verification.authenticationInfo.newCounter, now],
    );
    if (rowCount === 0) return null;
    const staff = { id: k.staff_id, email: k.email, institutionId: k.institution_id };
    const sessionId = await finishSignIn(tx, { staff, method: 'passkey', details: { passkey: k.credential_id }, ip, previousSessionId, now });
    return { sessionId, staffId: k.staff_id };
  });
}
