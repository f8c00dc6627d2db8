import type { AssignmentsContext } from '../assignments/context.js';
import { createAssignment, METADATA_MAX_BYTES } from '../assignments/create-assignment.js';
import { findAssignmentById } from '../assignments/find-assignment.js';
import { findPublishedTest, type TestSummary } from '../catalog/tests-service.js';
import { sha256Hex } from '../../platform/crypto.js';
import { CLAIM } from './lti-context.js';
import { launchLocale } from './lti-locale.js';
import { consumeStateAndNonce } from './lti-repo.js';
import { findLinkAssignment, insertLinkAssignment, updateLinkLineItem, upsertResourceLink } from './links-repo.js';
import { launchAudience, type LaunchAudience } from './roles.js';
import { LaunchRefused, type VerifiedLaunch } from './verify-launch.js';

/**
 * A verified LtiResourceLinkRequest. Every check that can refuse it runs
 * before anything is written (the test must be published to the platform's
 * institution); then the state and nonce are used, and:
 * - staff (roles.ts) get the link's page (who started, submitted, completed);
 * - an observer (a mentor) gets a page saying they cannot take the test:
 *   nothing is written, the state and nonce are left as they were;
 * - a link that names no test (a tool URL added by hand, without deep
 *   linking) gets a page saying so and how to choose one: nothing is written;
 * - a learner gets the one assignment of (resource link, user), created
 *   through the partner API's own service on the first launch (in the
 *   launch's language, when the platform sends a well-formed one), and a fresh
 *   start link of it, which the launch opens (open-start-link.ts) or, in a
 *   frame, offers to open in a new window.
 */
export type ResourceLinkOutcome =
  | { kind: 'instructor'; platformId: string; resourceLinkId: string; test: TestSummary; linkTitle: string | null; contextTitle: string | null }
  /** A fresh start link of the learner's assignment: opened at once, or offered in a new window when the launch is framed. */
  | { kind: 'learner'; assignmentId: string; token: string; testTitle: string; candidateLocale: string | null; assignmentLocale: string | null }
  | { kind: 'observer'; testTitle: string; contextTitle: string | null }
  | { kind: 'no_test'; audience: LaunchAudience; linkTitle: string | null; contextTitle: string | null };

const str = (v: unknown, max: number): string | null => (typeof v === 'string' && v.trim() !== '' ? v.trim().slice(0, max) : null);
const obj = (v: unknown): Record<string, unknown> => (typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : {});

/** The return URL of the launch presentation claim when it is a usable http(s) URL without credentials or fragment. */
function launchReturnUrl(claims: Record<string, unknown>, allowInsecure: boolean): URL | null {
  const raw = obj(claims[CLAIM.launchPresentation]).return_url;
  if (typeof raw !== 'string') return null;
  try {
    const url = new URL(raw);
    if (url.protocol !== 'https:' && !(allowInsecure && url.protocol === 'http:')) return null;
    if (url.username || url.password || url.hash) return null;
    return url;
  } catch {
    return null;
  }
}

function lineItemOf(claims: Record<string, unknown>): string | null {
  const url = str(obj(claims[CLAIM.ags]).lineitem, 2048);
  if (!url) return null;
  try {
    return new URL(url).toString();
  } catch {
    return null;
  }
}

/** The LTI context kept in the assignment's metadata, shortened until it fits the 1 KB limit. */
function metadataOf(platformId: string, resourceLinkId: string, contextId: string | null, contextTitle: string | null): Record<string, unknown> {
  let title = contextTitle;
  for (;;) {
    const lti = { ltiPlatformId: platformId, contextId, contextTitle: title, resourceLinkId };
    const metadata = { lti };
    if (Buffer.byteLength(JSON.stringify(metadata)) <= METADATA_MAX_BYTES || title === null) return metadata;
    title = title.length > 20 ? title.slice(0, Math.floor(title.length / 2)) : null;
  }
}

export async function resourceLinkLaunch(ctx: AssignmentsContext, launch: VerifiedLaunch): Promise<ResourceLinkOutcome> {
  const { platform, claims } = launch;
  const resourceLink = obj(claims[CLAIM.resourceLink]);
  const resourceLinkId = str(resourceLink.id, 255);
  if (!resourceLinkId) throw new LaunchRefused('launch: no resource link id');
  const audience = launchAudience(claims[CLAIM.roles]);
  const context = obj(claims[CLAIM.context]);
  const contextId = str(context.id, 255);
  const contextTitle = str(context.title, 255);
  const linkTitle = str(resourceLink.title, 255);
  const testId = str(obj(claims[CLAIM.custom]).assay_test_id, 64);
  // A verified launch of a link that names no test is the course's set-up, not an attack: say what to do.
  if (!testId) return { kind: 'no_test', audience, linkTitle, contextTitle };
  const test = await findPublishedTest(ctx.pool, platform.institutionId, testId);
  if (!test) throw new LaunchRefused('launch: assay_test_id is not a test published to the institution');
  const sub = str(claims.sub, 255);
  if (!sub) throw new LaunchRefused('launch: no sub');
  if (audience === 'observer') return { kind: 'observer', testTitle: test.title, contextTitle };
  const lineitemUrl = lineItemOf(claims);
  const now = ctx.clock.now();

  if (!(await consumeStateAndNonce(ctx.pool, { stateHash: launch.stateHash, platformId: platform.id, nonce: launch.nonce, nonceExpiresAt: launch.nonceExpiresAt }))) {
    throw new LaunchRefused('launch: state or nonce used already');
  }
  await upsertResourceLink(ctx.pool, {
    platformId: platform.id, resourceLinkId, institutionId: platform.institutionId, testId, contextId, contextTitle, title: linkTitle, lineitemUrl, now,
  });
  if (audience === 'staff') return { kind: 'instructor', platformId: platform.id, resourceLinkId, test, linkTitle, contextTitle };

  let assignmentId = await findLinkAssignment(ctx.pool, platform.id, resourceLinkId, sub);
  if (!assignmentId) {
    const back = launchReturnUrl(claims, ctx.config.allowInsecureUrls);
    const callbackUrl = back ?? new URL('/lti/return', ctx.config.publicBaseUrl);
    const given = [str(claims.given_name, 100), str(claims.family_name, 100)].filter(Boolean).join(' ');
    const name = str(claims.name, 200) ?? (given || null);
    const email = str(claims.email, 254);
    const key = sha256Hex(`${platform.id}\n${resourceLinkId}\n${sub}`);
    const locale = launchLocale(claims);
    const created = await createAssignment(ctx, {
      institutionId: platform.institutionId,
      body: {
        externalUserId: `lti:${platform.id}:${sub}`,
        testId,
        // The platform may withhold the email (a privacy setting); the address then names no one and receives nothing.
        user: { email: email && /^[^\s@]+@[^\s@]+$/.test(email) ? email : `lti-${key.slice(0, 24)}@users.invalid`, ...(name ? { name } : {}) },
        callbackUrl: callbackUrl.toString(),
        metadata: metadataOf(platform.id, resourceLinkId, contextId, contextTitle),
        ...(locale ? { locale } : {}),
      },
      idempotencyKey: `lti-launch-${key}`,
      serialize: (v) => JSON.stringify(v),
      trustedCallbackHosts: [callbackUrl.hostname.toLowerCase()],
    });
    const made = JSON.parse(created.body) as { assignmentId?: string };
    if (!made.assignmentId) throw new Error(`the assignment of an LTI launch was not created (${created.status})`);
    assignmentId = await insertLinkAssignment(ctx.pool, {
      platformId: platform.id, resourceLinkId, sub, assignmentId: made.assignmentId, institutionId: platform.institutionId, lineitemUrl, now,
    });
  } else if (lineitemUrl) {
    await updateLinkLineItem(ctx.pool, assignmentId, lineitemUrl);
  }

  // A fresh link of the assignment's current version: the learner signs in exactly as a start link signs in.
  const row = await findAssignmentById(ctx.pool, assignmentId);
  if (!row) throw new Error('the assignment of an LTI launch disappeared');
  const { token } = ctx.signer.issueOnce(row.id, row.linkVersion, ctx.signer.expiryFor(now, row.dueAt));
  return { kind: 'learner', assignmentId: row.id, token, testTitle: test.title, candidateLocale: row.candidateLocale, assignmentLocale: row.locale };
}
