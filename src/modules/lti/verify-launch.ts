import { decodeProtectedHeader, jwtVerify, type JWTPayload } from 'jose';
import type { AppContext } from '../../platform/context.js';
import { safeEqual, sha256Hex } from '../../platform/crypto.js';
import { randomBase62 } from '../../platform/ids.js';
import { ltiHttpFor, CLAIM, toolUrls } from './lti-context.js';
import { createPlatformKeys } from './platform-keys.js';
import { findLoginState, findPlatformById, findPlatformsByIssuer, insertLoginState, type PlatformRow } from './lti-repo.js';
import type { LoginRequest } from './schemas.js';

/**
 * The two halves of an LTI 1.3 launch (OIDC third-party login initiation,
 * then the id_token form post), and every check the launch must pass. A
 * failure is a LaunchRefused with the reason for the log; the browser only
 * learns that the launch could not be verified. Nothing is written by a
 * check: the state and the nonce are used (consumeStateAndNonce) only by the
 * caller, once every check has passed.
 */
export const STATE_TTL_MS = 10 * 60 * 1000;
/** Leeway on exp and nbf, and how far in the future iat may be, for clocks a little apart. */
export const CLOCK_LEEWAY_SECONDS = 60;
/**
 * An id_token issued longer ago than this is refused, whatever its exp (leeway
 * included: the window is iat ∈ [now − 5 min, now + 60 s]). A platform signs
 * the token as it answers the login redirect, a second before the browser
 * posts it; five minutes covers a slow network and clocks apart, and bounds
 * how long a leaked token could be tried.
 */
export const MAX_TOKEN_AGE_SECONDS = 5 * 60;
export const STATE_COOKIE_PREFIX = 'assay_lti_';

export const MESSAGE_TYPES = ['LtiResourceLinkRequest', 'LtiDeepLinkingRequest'] as const;
export type MessageType = (typeof MESSAGE_TYPES)[number];

/** A launch refused: the reason is for the log; `status` 400 when the request lacks its parameters, 403 for a form posted from another site, else 401. */
export class LaunchRefused extends Error {
  override name = 'LaunchRefused';
  constructor(
    message: string,
    readonly status: 400 | 401 | 403 = 401,
  ) {
    super(message);
  }
}

/** The state's cookie: its name carries part of the state's hash, so two launches in one browser do not overwrite each other. */
export const stateCookieName = (state: string) => `${STATE_COOKIE_PREFIX}${sha256Hex(state).slice(0, 16)}`;

export interface LoginRedirect {
  location: string;
  cookie: { name: string; value: string; maxAgeSeconds: number };
  /** When the login named a storage target: where the page writes the binding too (the cookie's name and value as key and value). */
  storage: { target: string; platformOrigin: string } | null;
}

function isOurUrl(ctx: AppContext, raw: string): boolean {
  try {
    const url = new URL(raw);
    return url.origin === new URL(ctx.config.publicBaseUrl).origin && url.pathname.startsWith('/lti/');
  } catch {
    return false;
  }
}

/** /lti/login: finds the platform, remembers a state and a nonce, and sends the browser to the platform's authorisation endpoint. */
export async function startLogin(ctx: AppContext, req: LoginRequest): Promise<LoginRedirect> {
  const candidates = await findPlatformsByIssuer(ctx.pool, req.iss, req.client_id || undefined);
  if (candidates.length !== 1) {
    throw new LaunchRefused(candidates.length === 0 ? 'login: no platform with this issuer and client id' : 'login: several platforms share this issuer; the login must name its client_id');
  }
  const platform = candidates[0]!;
  if (req.lti_deployment_id && !platform.deploymentIds.includes(req.lti_deployment_id)) throw new LaunchRefused('login: deployment id not registered');
  if (!isOurUrl(ctx, req.target_link_uri)) throw new LaunchRefused('login: target_link_uri is not a URL of this tool');

  const state = randomBase62(32);
  const nonce = randomBase62(32);
  const binding = randomBase62(32);
  const storageTarget = req.lti_storage_target || null;
  await insertLoginState(ctx.pool, {
    stateHash: sha256Hex(state),
    platformId: platform.id,
    nonce,
    browserHash: sha256Hex(binding),
    storageTarget,
    expiresAt: new Date(ctx.clock.now().getTime() + STATE_TTL_MS),
  });
  const location = new URL(platform.authLoginUrl);
  const params: Record<string, string> = {
    scope: 'openid',
    response_type: 'id_token',
    response_mode: 'form_post',
    prompt: 'none',
    client_id: platform.clientId,
    redirect_uri: toolUrls(ctx.config.publicBaseUrl).launchUrl,
    login_hint: req.login_hint,
    state,
    nonce,
  };
  if (req.lti_message_hint) params.lti_message_hint = req.lti_message_hint;
  for (const [k, v] of Object.entries(params)) location.searchParams.set(k, v);
  return {
    location: location.toString(),
    cookie: { name: stateCookieName(state), value: binding, maxAgeSeconds: STATE_TTL_MS / 1000 },
    storage: storageTarget ? { target: storageTarget, platformOrigin: location.origin } : null,
  };
}

const keyStores = new WeakMap<object, ReturnType<typeof createPlatformKeys>>();
function platformKeysFor(ctx: AppContext) {
  let keys = keyStores.get(ctx.config);
  if (!keys) {
    keys = createPlatformKeys(ltiHttpFor(ctx.config), () => ctx.clock.now().getTime());
    keyStores.set(ctx.config, keys);
  }
  return keys;
}

export interface VerifiedLaunch {
  platform: PlatformRow;
  claims: JWTPayload & Record<string, unknown>;
  messageType: MessageType;
  deploymentId: string;
  stateHash: string;
  nonce: string;
  /** When the nonce's record may be dropped: after the token could no longer be accepted anyway. */
  nonceExpiresAt: Date;
}

/**
 * /lti/launch: every check of the id_token and the state. Reads only.
 * `binding` is what the browser holds for the state: its cookie, or the value
 * the tool's launch page read from the platform's storage.
 */
export async function verifyLaunch(
  ctx: AppContext,
  input: { idToken: string | undefined; state: string | undefined; binding: string | undefined },
): Promise<VerifiedLaunch> {
  const { idToken, state } = input;
  if (!idToken || !state) throw new LaunchRefused('launch: id_token or state missing', 400);
  const now = ctx.clock.now();
  const stateHash = sha256Hex(state);
  const login = await findLoginState(ctx.pool, stateHash);
  if (!login || login.expiresAt.getTime() <= now.getTime()) throw new LaunchRefused('launch: unknown, used or expired state');
  const binding = input.binding;
  if (!binding || !safeEqual(sha256Hex(binding), login.browserHash)) throw new LaunchRefused('launch: the state was not started by this browser');
  const platform = await findPlatformById(ctx.pool, login.platformId);
  if (!platform) throw new LaunchRefused('launch: the platform was removed');

  let header;
  try {
    header = decodeProtectedHeader(idToken);
  } catch {
    throw new LaunchRefused('launch: id_token is not a JWS');
  }
  if (header.alg !== 'RS256') throw new LaunchRefused(`launch: id_token alg ${JSON.stringify(header.alg)} refused (RS256 only)`);

  let claims: JWTPayload & Record<string, unknown>;
  try {
    const keys = platformKeysFor(ctx);
    ({ payload: claims } = await jwtVerify(idToken, (h) => keys.keyFor(platform.jwksUrl, h), {
      algorithms: ['RS256'],
      issuer: platform.issuer,
      audience: platform.clientId,
      clockTolerance: CLOCK_LEEWAY_SECONDS,
      currentDate: now,
      requiredClaims: ['exp', 'iat', 'nonce', 'sub'],
    }));
  } catch (err) {
    throw new LaunchRefused(`launch: id_token refused: ${(err as Error).name}: ${(err as Error).message}`);
  }
  // iat's window is checked here, not by jose's maxTokenAge, which adds the leeway to the age (an 11-minute-old token passed a 10-minute limit).
  const age = Math.floor(now.getTime() / 1000) - (claims.iat as number);
  if (age > MAX_TOKEN_AGE_SECONDS) throw new LaunchRefused(`launch: id_token issued ${age} s ago (at most ${MAX_TOKEN_AGE_SECONDS} s)`);
  if (age < -CLOCK_LEEWAY_SECONDS) throw new LaunchRefused(`launch: id_token issued ${-age} s in the future (at most ${CLOCK_LEEWAY_SECONDS} s)`);
  // aud may list several audiences; then azp must name this client (OIDC Core 3.1.3.7).
  const aud = claims.aud;
  if (Array.isArray(aud) && aud.length > 1 && claims.azp === undefined) throw new LaunchRefused('launch: several audiences and no azp');
  if (claims.azp !== undefined && claims.azp !== platform.clientId) throw new LaunchRefused('launch: azp is not this client');
  if (claims.nonce !== login.nonce) throw new LaunchRefused('launch: nonce does not match the login');
  const deploymentId = claims[CLAIM.deploymentId];
  if (typeof deploymentId !== 'string' || !platform.deploymentIds.includes(deploymentId)) throw new LaunchRefused('launch: deployment id not registered');
  if (claims[CLAIM.version] !== '1.3.0') throw new LaunchRefused('launch: LTI version is not 1.3.0');
  const messageType = claims[CLAIM.messageType];
  if (!MESSAGE_TYPES.includes(messageType as MessageType)) throw new LaunchRefused(`launch: message type ${JSON.stringify(messageType)} not supported`);

  const expSeconds = typeof claims.exp === 'number' ? claims.exp : 0;
  const nonceExpiresAt = new Date(Math.max(now.getTime() + STATE_TTL_MS, (expSeconds + CLOCK_LEEWAY_SECONDS) * 1000));
  return { platform, claims, messageType: messageType as MessageType, deploymentId, stateHash, nonce: login.nonce, nonceExpiresAt };
}
