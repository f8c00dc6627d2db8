import type { AppContext } from '../../platform/context.js';
import { sha256Hex } from '../../platform/crypto.js';
import { withTransaction } from '../../platform/db.js';
import { notFound } from '../../platform/errors.js';
import { randomBase62 } from '../../platform/ids.js';
import { getInstitution } from '../institutions/institutions.js';
import { withAuditEntry, type AuditContext } from '../staff/audit.js';
import { checkEndpointUrl } from '../webhooks/url-guard.js';
import { urlPolicyFor } from '../webhooks/webhooks-context.js';
import { AGS_SCORE_SCOPE, ltiHttpFor, ltiId, toolUrls } from './lti-context.js';
import { sameSite } from './same-site.js';
import { findUsableInvite, insertPlatform, insertRegistrationInvite, useInvite, type PlatformRow } from './lti-repo.js';

/**
 * LTI Dynamic Registration 1.0. The operator makes a one-time registration
 * URL for an institution (valid INVITE_TTL_MS); the LMS administrator pastes
 * it into the platform, which opens it with `openid_configuration` and
 * `registration_token`. Assay fetches the platform's configuration (through
 * the address guard), checks it, registers itself at the platform's
 * registration endpoint, and stores the platform with the client id and
 * deployment id the platform answered. The invite is used once.
 */
export const INVITE_TTL_MS = 7 * 24 * 60 * 60 * 1000;

export class RegistrationFailed extends Error {
  override name = 'RegistrationFailed';
  /** `said`: words the administrator may read (never a secret, never a fetched body). */
  constructor(message: string, readonly said: string) {
    super(message);
  }
}

export async function createRegistrationInvite(ctx: AppContext, institutionId: string, audit?: AuditContext): Promise<{ registrationUrl: string; expiresAt: Date }> {
  if (!(await getInstitution(ctx.pool, institutionId))) throw notFound('institution');
  const token = randomBase62(32);
  const expiresAt = new Date(ctx.clock.now().getTime() + INVITE_TTL_MS);
  await withAuditEntry(
    ctx.pool,
    audit,
    (db) => insertRegistrationInvite(db, { tokenHash: sha256Hex(token), institutionId, expiresAt }),
    () => ({ action: 'lti_registration.invited', objectType: 'institution', objectId: institutionId, institutionId, details: { expiresAt: expiresAt.toISOString() } }),
  );
  const url = new URL('/lti/register', ctx.config.publicBaseUrl);
  url.searchParams.set('invite', token);
  return { registrationUrl: url.toString(), expiresAt };
}

const obj = (v: unknown): Record<string, unknown> => (typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : {});

function guardedUrl(ctx: AppContext, what: string, raw: unknown): string {
  if (typeof raw !== 'string') throw new RegistrationFailed(`registration: the configuration has no ${what}`, `The platform's configuration gives no ${what}.`);
  try {
    return checkEndpointUrl(raw, urlPolicyFor(ctx.config));
  } catch {
    throw new RegistrationFailed(`registration: ${what} is not an allowed URL`, `The platform's ${what} is not a public https address.`);
  }
}

async function getJson(ctx: AppContext, url: string, init: { method: 'GET' | 'POST'; headers?: Record<string, string>; body?: string }, what: string): Promise<Record<string, unknown>> {
  let res;
  try {
    res = await ltiHttpFor(ctx.config).send(url, { ...init, headers: { accept: 'application/json', ...init.headers } });
  } catch (err) {
    throw new RegistrationFailed(`registration: ${what} could not be reached: ${(err as Error).message}`, `The platform's ${what} could not be reached.`);
  }
  if (res.statusCode < 200 || res.statusCode >= 300) throw new RegistrationFailed(`registration: ${what} answered ${res.statusCode}`, `The platform's ${what} answered ${res.statusCode}.`);
  try {
    return obj(JSON.parse(res.body));
  } catch {
    throw new RegistrationFailed(`registration: ${what} did not answer JSON`, `The platform's ${what} did not answer JSON.`);
  }
}

export async function registerDynamically(
  ctx: AppContext,
  input: { invite: string; openidConfiguration: string; registrationToken: string | undefined },
): Promise<PlatformRow> {
  const tokenHash = sha256Hex(input.invite);
  const institutionId = await findUsableInvite(ctx.pool, tokenHash, ctx.clock.now());
  if (!institutionId) throw new RegistrationFailed('registration: unknown, used or expired invite', 'This registration link is not valid any more. Ask for a new one.');

  const configUrl = guardedUrl(ctx, 'openid_configuration', input.openidConfiguration);
  const config = await getJson(ctx, configUrl, { method: 'GET' }, 'configuration');
  const issuer = config.issuer;
  if (typeof issuer !== 'string') throw new RegistrationFailed('registration: no issuer', "The platform's configuration gives no issuer.");
  let issuerHost: string;
  try {
    issuerHost = new URL(issuer).hostname;
  } catch {
    throw new RegistrationFailed('registration: issuer is not a URL', "The platform's issuer is not a URL.");
  }
  // The issuer and the configuration URL must be of one site (Dynamic Registration 3.5.1): the same registrable
  // domain under the Public Suffix List, so a sibling under co.uk or github.io cannot vouch for another.
  if (!sameSite(issuerHost, new URL(configUrl).hostname)) {
    throw new RegistrationFailed('registration: issuer and configuration URL are on different domains', "The platform's issuer does not match where its configuration came from.");
  }
  const authLoginUrl = guardedUrl(ctx, 'authorization_endpoint', config.authorization_endpoint);
  const authTokenUrl = guardedUrl(ctx, 'token_endpoint', config.token_endpoint);
  const jwksUrl = guardedUrl(ctx, 'jwks_uri', config.jwks_uri);
  const registrationEndpoint = guardedUrl(ctx, 'registration_endpoint', config.registration_endpoint);

  const tool = toolUrls(ctx.config.publicBaseUrl);
  const registration = {
    application_type: 'web',
    response_types: ['id_token'],
    grant_types: ['implicit', 'client_credentials'],
    initiate_login_uri: tool.loginUrl,
    redirect_uris: [tool.launchUrl],
    client_name: 'Assay',
    jwks_uri: tool.jwksUrl,
    token_endpoint_auth_method: 'private_key_jwt',
    scope: AGS_SCORE_SCOPE,
    'https://purl.imsglobal.org/spec/lti-tool-configuration': {
      domain: new URL(ctx.config.publicBaseUrl).host,
      target_link_uri: tool.launchUrl,
      description: 'Online assessments: place a test in a course, students take it, scores go to the gradebook.',
      claims: ['iss', 'sub', 'name', 'given_name', 'family_name', 'email'],
      messages: [
        { type: 'LtiResourceLinkRequest', target_link_uri: tool.launchUrl },
        { type: 'LtiDeepLinkingRequest', target_link_uri: tool.deepLinkingUrl, label: 'Assay test' },
      ],
    },
  };
  const answer = await getJson(
    ctx,
    registrationEndpoint,
    {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...(input.registrationToken ? { authorization: `Bearer ${input.registrationToken}` } : {}) },
      body: JSON.stringify(registration),
    },
    'registration endpoint',
  );
  const clientId = answer.client_id;
  const deploymentId = obj(answer['https://purl.imsglobal.org/spec/lti-tool-configuration']).deployment_id;
  if (typeof clientId !== 'string' || clientId === '') throw new RegistrationFailed('registration: no client_id in the answer', 'The platform did not give Assay a client id.');
  if (typeof deploymentId !== 'string' || deploymentId === '') {
    throw new RegistrationFailed('registration: no deployment_id in the answer', 'The platform did not give a deployment id; register Assay by hand with the deployment id instead.');
  }

  const row: PlatformRow = {
    id: ltiId('ltp'),
    institutionId,
    issuer,
    clientId: clientId.slice(0, 255),
    deploymentIds: [deploymentId.slice(0, 255)],
    authLoginUrl,
    authTokenUrl,
    jwksUrl,
    createdAt: ctx.clock.now(),
  };
  await withTransaction(ctx.pool, async (tx) => {
    if (!(await useInvite(tx, tokenHash, row.id, row.createdAt))) throw new RegistrationFailed('registration: invite used meanwhile', 'This registration link has just been used.');
    if (!(await insertPlatform(tx, row))) throw new RegistrationFailed('registration: issuer and client id registered already', 'This platform is registered already.');
  });
  return row;
}
