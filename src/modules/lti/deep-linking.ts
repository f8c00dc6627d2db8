import type { AppContext } from '../../platform/context.js';
import { safeEqual, sha256Hex } from '../../platform/crypto.js';
import { randomBase62 } from '../../platform/ids.js';
import { findPublishedTest, listTestsForPartner, type TestSummary } from '../catalog/tests-service.js';
import { loadTestVersion } from '../catalog/test-versions.js';
import { plannedTotals } from '../catalog/delivery.js';
import { CLAIM, toolUrls } from './lti-context.js';
import { consumeDeepLinkRequest, consumeStateAndNonce, findDeepLinkRequest, findPlatformById, insertDeepLinkRequest, type PlatformRow } from './lti-repo.js';
import { signWithToolKey } from './tool-keys.js';
import { LaunchRefused, type VerifiedLaunch } from './verify-launch.js';
import { launchAudience } from './roles.js';

/**
 * Deep Linking 2.0: an LtiDeepLinkingRequest launch opens the picker of the
 * institution's published tests; choosing one answers the platform with a
 * signed LtiDeepLinkingResponse holding one ltiResourceLink (custom
 * `assay_test_id`, and a line item whose scoreMaximum is the test's points),
 * posted by the browser to the request's deep_link_return_url.
 *
 * The picker's token is a secret the picker's forms carry, and it is bound:
 * - to the browser that received the picker, by a cookie set with the picker
 *   page (pickerCookieName, browser-binding.ts: partitioned, so it works in
 *   the course's frame) whose hash is kept with the request, checked on every
 *   search and on the choice;
 * - to one answer: the choice uses the request (consumeDeepLinkRequest) before
 *   the response is signed, so a token never signs two responses;
 * - to this tool's pages: a choice the browser marks as posted from another
 *   site (Sec-Fetch-Site) is refused in the route.
 */
export const PICKER_TTL_MS = 60 * 60 * 1000;
const PICKER_COOKIE_PREFIX = 'assay_lti_dl_';
/** The picker's cookie: named after the token's hash, so two pickers in one browser keep their own. */
export const pickerCookieName = (requestId: string) => `${PICKER_COOKIE_PREFIX}${sha256Hex(requestId).slice(0, 16)}`;
const PICKER_LIMIT = 100;

const obj = (v: unknown): Record<string, unknown> => (typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : {});

/** A verified deep-linking launch: the request is kept under a new secret id, which the picker's forms carry, bound to `binding` (the picker's cookie). */
export async function startDeepLinking(ctx: AppContext, launch: VerifiedLaunch): Promise<{ requestId: string; binding: string }> {
  // Placing content is an instructor's act; a platform sends this message to them only, and a learner's is refused.
  if (launchAudience(launch.claims[CLAIM.roles]) !== 'staff') throw new LaunchRefused('deep linking: the user has no instructor role');
  const settings = obj(launch.claims[CLAIM.deepLinkingSettings]);
  const returnUrl = settings.deep_link_return_url;
  if (typeof returnUrl !== 'string') throw new LaunchRefused('deep linking: no deep_link_return_url');
  let url: URL;
  try {
    url = new URL(returnUrl);
  } catch {
    throw new LaunchRefused('deep linking: deep_link_return_url is not a URL');
  }
  if (url.protocol !== 'https:' && !(ctx.config.allowInsecureUrls && url.protocol === 'http:')) throw new LaunchRefused('deep linking: deep_link_return_url is not https');
  const accept = settings.accept_types;
  if (Array.isArray(accept) && !accept.includes('ltiResourceLink')) throw new LaunchRefused('deep linking: the platform does not accept ltiResourceLink');
  if (!(await consumeStateAndNonce(ctx.pool, { stateHash: launch.stateHash, platformId: launch.platform.id, nonce: launch.nonce, nonceExpiresAt: launch.nonceExpiresAt }))) {
    throw new LaunchRefused('launch: state or nonce used already');
  }
  const requestId = randomBase62(32);
  const binding = randomBase62(32);
  await insertDeepLinkRequest(ctx.pool, {
    idHash: sha256Hex(requestId),
    platformId: launch.platform.id,
    deploymentId: launch.deploymentId,
    returnUrl: url.toString(),
    data: typeof settings.data === 'string' ? settings.data : null,
    browserHash: sha256Hex(binding),
    expiresAt: new Date(ctx.clock.now().getTime() + PICKER_TTL_MS),
  });
  return { requestId, binding };
}

export interface PickerRequest {
  requestId: string;
  binding: string;
  platform: PlatformRow;
  deploymentId: string;
  returnUrl: string;
  data: string | null;
}

/**
 * The pending request a picker form names, when this browser holds it (`binding`: the picker's cookie),
 * or null (unknown, used, expired, another browser's, or its platform removed).
 */
export async function findPickerRequest(ctx: AppContext, requestId: string, binding: string | undefined): Promise<PickerRequest | null> {
  const row = await findDeepLinkRequest(ctx.pool, sha256Hex(requestId));
  if (!row || row.expiresAt.getTime() <= ctx.clock.now().getTime()) return null;
  if (!binding || !safeEqual(sha256Hex(binding), row.browserHash)) return null;
  const platform = await findPlatformById(ctx.pool, row.platformId);
  return platform ? { requestId, binding, platform, deploymentId: row.deploymentId, returnUrl: row.returnUrl, data: row.data } : null;
}

export async function pickerTests(ctx: AppContext, institutionId: string, query: string): Promise<{ tests: TestSummary[]; total: number }> {
  const { data } = await listTestsForPartner(ctx.pool, institutionId, { limit: PICKER_LIMIT, offset: 0 });
  const q = query.trim().toLowerCase();
  const tests = q ? data.filter((t) => t.title.toLowerCase().includes(q)) : data;
  return { tests, total: tests.length };
}

/**
 * The signed LtiDeepLinkingResponse for the chosen test; null when the test is not published to the
 * institution (the request is left for another choice). The request is used before anything is signed.
 */
export async function deepLinkingResponse(ctx: AppContext, request: PickerRequest, testId: string): Promise<{ jwt: string; test: TestSummary } | null> {
  const test = await findPublishedTest(ctx.pool, request.platform.institutionId, testId);
  if (!test) return null;
  if (!(await consumeDeepLinkRequest(ctx.pool, sha256Hex(request.requestId), sha256Hex(request.binding), ctx.clock.now()))) {
    throw new LaunchRefused('deep linking: the picker request was used already');
  }
  const version = await loadTestVersion(ctx.pool, test.testVersionId);
  const { points } = plannedTotals(version);
  const item = {
    type: 'ltiResourceLink',
    title: test.title,
    ...(test.description ? { text: test.description } : {}),
    url: toolUrls(ctx.config.publicBaseUrl).launchUrl,
    custom: { assay_test_id: test.testId },
    lineItem: { scoreMaximum: points, label: test.title, resourceId: test.testId },
  };
  const jwt = await signWithToolKey(
    ctx,
    {
      iss: request.platform.clientId,
      aud: request.platform.issuer,
      nonce: randomBase62(32),
      [CLAIM.messageType]: 'LtiDeepLinkingResponse',
      [CLAIM.version]: '1.3.0',
      [CLAIM.deploymentId]: request.deploymentId,
      [CLAIM.contentItems]: [item],
      ...(request.data !== null ? { [CLAIM.data]: request.data } : {}),
    },
    { expiresInSeconds: 300 },
  );
  return { jwt, test };
}
