import type { Config } from '../../platform/config.js';
import { randomBase62 } from '../../platform/ids.js';
import { urlPolicyFor } from '../webhooks/webhooks-context.js';
import { createGuardedHttp, type GuardedHttp } from './guarded-http.js';

/** The outbound HTTP client of one config (one per process), made on first use. */
const clients = new WeakMap<object, GuardedHttp>();

export function ltiHttpFor(config: Readonly<Config>): GuardedHttp {
  let client = clients.get(config);
  if (!client) {
    client = createGuardedHttp({ policy: urlPolicyFor(config), timeoutMs: config.webhooks.timeoutMs });
    clients.set(config, client);
  }
  return client;
}

/** Ids of this module's rows: prefixed, 22 base62 characters from the CSPRNG, like every id (platform/ids.ts). */
export const ltiId = (prefix: 'ltp' | 'lsp') => `${prefix}_${randomBase62(22)}`;

/** Where the tool's endpoints live, for the registration answer and the messages the tool signs. */
export function toolUrls(publicBaseUrl: string) {
  const base = publicBaseUrl.replace(/\/+$/, '');
  return {
    loginUrl: `${base}/lti/login`,
    launchUrl: `${base}/lti/launch`,
    jwksUrl: `${base}/lti/jwks`,
    deepLinkingUrl: `${base}/lti/launch`,
  };
}

/** The claims of LTI 1.3 and LTI Advantage that Assay reads or writes (docs/lti.md). */
export const CLAIM = {
  messageType: 'https://purl.imsglobal.org/spec/lti/claim/message_type',
  version: 'https://purl.imsglobal.org/spec/lti/claim/version',
  deploymentId: 'https://purl.imsglobal.org/spec/lti/claim/deployment_id',
  targetLinkUri: 'https://purl.imsglobal.org/spec/lti/claim/target_link_uri',
  resourceLink: 'https://purl.imsglobal.org/spec/lti/claim/resource_link',
  context: 'https://purl.imsglobal.org/spec/lti/claim/context',
  roles: 'https://purl.imsglobal.org/spec/lti/claim/roles',
  custom: 'https://purl.imsglobal.org/spec/lti/claim/custom',
  launchPresentation: 'https://purl.imsglobal.org/spec/lti/claim/launch_presentation',
  ags: 'https://purl.imsglobal.org/spec/lti-ags/claim/endpoint',
  deepLinkingSettings: 'https://purl.imsglobal.org/spec/lti-dl/claim/deep_linking_settings',
  contentItems: 'https://purl.imsglobal.org/spec/lti-dl/claim/content_items',
  data: 'https://purl.imsglobal.org/spec/lti-dl/claim/data',
} as const;

export const AGS_SCORE_SCOPE = 'https://purl.imsglobal.org/spec/lti-ags/scope/score';
