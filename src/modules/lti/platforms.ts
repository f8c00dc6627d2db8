import type { AppContext } from '../../platform/context.js';
import { AppError, notFound, type ErrorDetail } from '../../platform/errors.js';
import { withAuditEntry, type AuditContext } from '../staff/audit.js';
import { getInstitution } from '../institutions/institutions.js';
import { checkEndpointUrl } from '../webhooks/url-guard.js';
import { urlPolicyFor } from '../webhooks/webhooks-context.js';
import { deletePlatform, findPlatform, insertPlatform, listPlatforms, setDeploymentIds, type PlatformRow } from './lti-repo.js';
import { ltiId, toolUrls } from './lti-context.js';
import type { PlatformInput } from './schemas.js';

/**
 * Registration of a learning platform with an institution: the platform's
 * issuer and the client id it gave Assay, its deployments, and its login,
 * token and key-set URLs. The three URLs pass the webhook URL rules (https,
 * no credentials, no fragment, no address or name of a private network); the
 * address guard checks them again on every connection.
 */
export interface PlatformView {
  ltiPlatformId: string;
  institutionId: string;
  issuer: string;
  clientId: string;
  deploymentIds: string[];
  authLoginUrl: string;
  authTokenUrl: string;
  jwksUrl: string;
  createdAt: Date;
  tool: ReturnType<typeof toolUrls>;
}

export function platformView(ctx: AppContext, p: PlatformRow): PlatformView {
  return {
    ltiPlatformId: p.id,
    institutionId: p.institutionId,
    issuer: p.issuer,
    clientId: p.clientId,
    deploymentIds: p.deploymentIds,
    authLoginUrl: p.authLoginUrl,
    authTokenUrl: p.authTokenUrl,
    jwksUrl: p.jwksUrl,
    createdAt: p.createdAt,
    tool: toolUrls(ctx.config.publicBaseUrl),
  };
}

function checkUrl(ctx: AppContext, field: string, raw: string): string {
  try {
    return checkEndpointUrl(raw, urlPolicyFor(ctx.config));
  } catch (err) {
    if (!(err instanceof AppError)) throw err;
    const why = err.details?.[0]?.message ?? 'is not allowed';
    throw new AppError('invalid_request', `${field}: ${why}`, [{ field, message: why }]);
  }
}

/** The issuer is a URL too (LTI 1.3: https, no query or fragment); it is compared as given, never fetched. */
function checkIssuer(ctx: AppContext, raw: string): string {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new AppError('invalid_request', 'issuer: must be an absolute URL', [{ field: 'issuer', message: 'must be an absolute URL' }]);
  }
  if (url.protocol !== 'https:' && !(ctx.config.allowInsecureUrls && url.protocol === 'http:')) {
    throw new AppError('invalid_request', 'issuer: must use https:', [{ field: 'issuer', message: 'must use https:' }]);
  }
  if (url.search || url.hash || url.username || url.password) {
    throw new AppError('invalid_request', 'issuer: must not have a query, a fragment or credentials', [
      { field: 'issuer', message: 'must not have a query, a fragment or credentials' },
    ]);
  }
  return raw;
}

const URL_FIELDS = ['issuer', 'authLoginUrl', 'authTokenUrl', 'jwksUrl'] as const;
type UrlField = (typeof URL_FIELDS)[number];

/**
 * Every problem of the issuer and the three URLs at once (a form shows each
 * at its field), for the fields given: one detail per field at most.
 */
export function checkPlatformUrls(ctx: AppContext, input: Partial<Record<UrlField, string>>): ErrorDetail[] {
  const details: ErrorDetail[] = [];
  for (const field of URL_FIELDS) {
    const raw = input[field];
    if (raw === undefined) continue;
    try {
      if (field === 'issuer') checkIssuer(ctx, raw);
      else checkUrl(ctx, field, raw);
    } catch (err) {
      if (!(err instanceof AppError)) throw err;
      details.push(...(err.details ?? [{ field, message: err.message }]));
    }
  }
  return details;
}

export async function registerPlatform(ctx: AppContext, institutionId: string, input: PlatformInput, audit?: AuditContext): Promise<PlatformView> {
  const problems = checkPlatformUrls(ctx, input);
  if (problems.length > 0) throw new AppError('invalid_request', problems.map((d) => `${d.field}: ${d.message}`).join('; '), problems);
  const row: PlatformRow = {
    id: ltiId('ltp'),
    institutionId,
    issuer: input.issuer,
    clientId: input.clientId,
    deploymentIds: [...new Set(input.deploymentIds)],
    authLoginUrl: checkUrl(ctx, 'authLoginUrl', input.authLoginUrl),
    authTokenUrl: checkUrl(ctx, 'authTokenUrl', input.authTokenUrl),
    jwksUrl: checkUrl(ctx, 'jwksUrl', input.jwksUrl),
    createdAt: ctx.clock.now(),
  };
  if (!(await getInstitution(ctx.pool, institutionId))) throw notFound('institution');
  await withAuditEntry(
    ctx.pool,
    audit,
    async (tx) => {
      if (!(await insertPlatform(tx, row))) {
        throw new AppError('invalid_state', 'This issuer and client id are registered already.', [
          { field: 'clientId', message: 'is registered already for this issuer' },
        ]);
      }
    },
    () => ({ action: 'lti_platform.registered', objectType: 'lti_platform', objectId: row.id, institutionId, details: { issuer: row.issuer, clientId: row.clientId } }),
  );
  return platformView(ctx, row);
}

export async function listInstitutionPlatforms(ctx: AppContext, institutionId: string): Promise<PlatformView[]> {
  if (!(await getInstitution(ctx.pool, institutionId))) throw notFound('institution');
  return (await listPlatforms(ctx.pool, institutionId)).map((p) => platformView(ctx, p));
}

export async function getPlatform(ctx: AppContext, institutionId: string, platformId: string): Promise<PlatformView> {
  const p = await findPlatform(ctx.pool, institutionId, platformId);
  if (!p) throw notFound('LTI platform');
  return platformView(ctx, p);
}

export async function removePlatform(ctx: AppContext, institutionId: string, platformId: string, audit?: AuditContext): Promise<void> {
  await withAuditEntry(
    ctx.pool,
    audit,
    async (tx) => {
      if (!(await deletePlatform(tx, institutionId, platformId))) throw notFound('LTI platform');
    },
    () => ({ action: 'lti_platform.deleted', objectType: 'lti_platform', objectId: platformId, institutionId }),
  );
}

/** Replaces a platform's deployment ids: launches from a deployment no longer listed are refused from now on. */
export async function changeDeployments(ctx: AppContext, institutionId: string, platformId: string, deploymentIds: string[], audit?: AuditContext): Promise<PlatformView> {
  const ids = [...new Set(deploymentIds)];
  const row = await withAuditEntry(
    ctx.pool,
    audit,
    async (tx) => {
      const updated = await setDeploymentIds(tx, institutionId, platformId, ids);
      if (!updated) throw notFound('LTI platform');
      return updated;
    },
    () => ({ action: 'lti_platform.deployments_changed', objectType: 'lti_platform', objectId: platformId, institutionId, details: { deploymentIds: ids } }),
  );
  return platformView(ctx, row);
}
