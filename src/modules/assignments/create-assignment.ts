import { AppError } from '../../platform/errors.js';
import { newId } from '../../platform/ids.js';
import { withTransaction, type Queryable } from '../../platform/db.js';
import { enqueueJob } from '../../platform/jobs.js';
import { expireAssignmentJob, expireJobKey } from './expire-job.js';
import { findPublishedTestAndCallbackDomains } from '../catalog/tests-service.js';
import type { AssignmentsContext } from './context.js';
import { checkRelaxationsAllowed, normaliseAccommodations, type Accommodations } from './accommodations.js';
import { checkCallbackUrl } from './callback-url.js';
import { checkLocale } from './partner-locale.js';
import { CREATE_SCOPE, claimKey, fingerprint, storeResponse } from './idempotency.js';
import { insertAssignmentForUser } from './assignments-repo.js';
import type { CreateAssignmentBody } from './schemas.js';

export const METADATA_MAX_BYTES = 1024;

export interface CreatedAssignment {
  assignmentId: string;
  status: 'assigned';
  externalUserId: string;
  testId: string;
  startUrl: string;
  startUrlExpiresAt: Date;
  createdAt: Date;
}

export interface CreateResult {
  status: number;
  /** The exact bytes of the response: stored for replay, sent as they are. */
  body: string;
  replayed: boolean;
}

/**
 * POST /assignments: idempotency, business rules, find-or-create the user,
 * insert the assignment, schedule its expiry, sign its start link. Whatever
 * is written commits together or not at all, so a failure leaves nothing behind.
 */
export async function createAssignment(
  ctx: AssignmentsContext,
  input: {
    institutionId: string;
    /** The key's mode: a test-mode key creates a test-mode assignment. Default live. */
    livemode?: boolean;
    body: CreateAssignmentBody;
    /** `metadata` exactly as sent (compact JSON text), when the route has it; else it is serialised from the body. */
    metadataJson?: string;
    idempotencyKey: string | undefined;
    serialize: (v: CreatedAssignment) => string;
    /**
     * Hosts allowed for `callbackUrl` besides the institution's callback domains: an LTI launch's
     * return URL, which came signed by a platform the institution registered.
     */
    trustedCallbackHosts?: readonly string[];
  },
): Promise<CreateResult> {
  const { institutionId, body, idempotencyKey } = input;
  const livemode = input.livemode ?? true;
  const now = ctx.clock.now();

  const metadata = body.metadata ?? {};
  const metadataBytes = Buffer.byteLength(JSON.stringify(metadata));
  if (metadataBytes > METADATA_MAX_BYTES) {
    throw new AppError('invalid_request', `metadata: is ${metadataBytes} bytes; at most ${METADATA_MAX_BYTES} are allowed`, [
      { field: 'metadata', message: `must be at most ${METADATA_MAX_BYTES} bytes of compact JSON (got ${metadataBytes})` },
    ]);
  }
  const locale = checkLocale(body.locale);
  const dueAt = body.dueAt ? new Date(body.dueAt) : null;
  const accommodations = normaliseAccommodations(body.accommodations);
  const metadataJson = body.metadata === undefined ? '{}' : (input.metadataJson ?? JSON.stringify(metadata));

  const request: CreateRequest = { institutionId, livemode, body, metadataJson, dueAt, accommodations, locale, now, trustedCallbackHosts: input.trustedCallbackHosts ?? [] };
  if (idempotencyKey) {
    const key = { key: idempotencyKey, fingerprint: fingerprint(body), serialize: input.serialize };
    const fresh = await createIfKeyFree(ctx, request, key);
    if (fresh) return fresh;
    // The key is taken (a retry to replay, a different body's 409, a request in flight, a key past its
    // window), or a business rule refused the request: claim the key first, then decide. So a retry of
    // a create that succeeded replays its 201 even if the rules would refuse the request today, and a
    // refused request stores nothing.
    return withTransaction(ctx.pool, async (tx) => {
      const claim = await claimKey(tx, institutionId, idempotencyKey, key.fingerprint, now, CREATE_SCOPE, livemode);
      if (claim.kind === 'replay') return { status: claim.status, body: claim.body, replayed: true };
      const { created } = await checkAndInsert(ctx, tx, request);
      const serialized = input.serialize(created);
      await storeResponse(tx, institutionId, idempotencyKey, { status: 201, body: serialized, assignmentId: created.assignmentId }, CREATE_SCOPE, livemode);
      return { status: 201, body: serialized, replayed: false };
    });
  }
  // A dueAt adds the expiry job, which must commit with the assignment. Without one, the only
  // write is a single statement (user upsert + insert), atomic on its own: no BEGIN/COMMIT round trips.
  const { created } = dueAt
    ? await withTransaction(ctx.pool, (tx) => checkAndInsert(ctx, tx, request))
    : await checkAndInsert(ctx, ctx.pool, request);
  return { status: 201, body: input.serialize(created), replayed: false };
}

/**
 * The usual keyed create, with a key not seen before, at the cost of a create
 * without one: the key's row, holding the response, is written by the
 * statement that inserts the assignment, and only if the key is free. Null when
 * that did not happen (the key is taken, or a business rule refused the
 * request); nothing was written then, and the caller takes the claim-first path.
 */
async function createIfKeyFree(ctx: AssignmentsContext, request: CreateRequest, key: IdempotencyKeyToStore): Promise<CreateResult | null> {
  const attempt = async (db: Queryable): Promise<CreateResult | null> => {
    const { body } = await checkAndInsert(ctx, db, request, key);
    return body === null ? null : { status: 201, body, replayed: false };
  };
  try {
    return request.dueAt ? await withTransaction(ctx.pool, attempt) : await attempt(ctx.pool);
  } catch (err) {
    if (err instanceof AppError) return null;
    throw err;
  }
}

/** A create request, checked for shape and with its metadata and accommodations normalised. */
interface CreateRequest {
  institutionId: string;
  livemode: boolean;
  body: CreateAssignmentBody;
  metadataJson: string;
  dueAt: Date | null;
  accommodations: Accommodations | null;
  /** The partner's `locale`, well-formed and as sent, or null. */
  locale: string | null;
  now: Date;
  trustedCallbackHosts: readonly string[];
}

interface IdempotencyKeyToStore {
  key: string;
  fingerprint: string;
  serialize: (v: CreatedAssignment) => string;
}

/**
 * The business rules (422s), then the user upsert and the assignment insert, and the expiry job when
 * there is a dueAt. With `key`, the key's row and the serialised response are written by the same
 * statement, only if the key is free; `body` is null when it was not (and nothing was written).
 */
async function checkAndInsert(
  ctx: AssignmentsContext,
  db: Queryable,
  { institutionId, livemode, body, metadataJson, dueAt, accommodations, locale, now, trustedCallbackHosts }: CreateRequest,
  key?: IdempotencyKeyToStore,
): Promise<{ created: CreatedAssignment; body: string | null }> {
  const { test, callbackDomains } = await findPublishedTestAndCallbackDomains(db, institutionId, body.testId);
  if (!test) throw new AppError('test_not_available', 'testId: no test with this id is published to your institution.', [{ field: 'testId', message: 'is not published to your institution' }]);
  const callbackUrl = checkCallbackUrl(body.callbackUrl, [...callbackDomains, ...trustedCallbackHosts], ctx.config.allowInsecureUrls);
  if (dueAt && dueAt.getTime() <= now.getTime()) {
    throw new AppError('due_at_in_past', 'dueAt: must be in the future.', [{ field: 'dueAt', message: 'must be in the future' }]);
  }
  await checkRelaxationsAllowed(db, institutionId, accommodations);

  const assignmentId = newId('asg');
  const expiresAt = ctx.signer.expiryFor(now, dueAt);
  const created: CreatedAssignment = {
    assignmentId,
    status: 'assigned',
    externalUserId: body.externalUserId,
    testId: test.testId,
    startUrl: ctx.signer.issueOnce(assignmentId, 1, expiresAt).url,
    startUrlExpiresAt: expiresAt,
    createdAt: now,
  };
  const serialized = key ? key.serialize(created) : null;
  const inserted = await insertAssignmentForUser(
    db,
    {
      id: assignmentId,
      institutionId,
      user: { id: newId('usr'), externalUserId: body.externalUserId, email: body.user.email, name: body.user.name ?? null },
      testId: test.testId,
      testVersionId: test.testVersionId,
      callbackUrl,
      dueAt,
      metadataJson,
      accommodations,
      locale,
      livemode,
      now,
    },
    key && { key: key.key, scope: CREATE_SCOPE, fingerprint: key.fingerprint, responseStatus: 201, responseBody: serialized! },
  );
  if (!inserted) return { created, body: null };
  if (dueAt) await enqueueJob(db, expireAssignmentJob, { assignmentId }, { runAt: dueAt, uniqueKey: expireJobKey(assignmentId) });
  return { created, body: serialized };
}
