import { AppError } from '../../platform/errors.js';
import { newId } from '../../platform/ids.js';
import { withTransaction, type Queryable } from '../../platform/db.js';
import { enqueueJob } from '../../platform/jobs.js';
import { expireAssignmentJob, expireJobKey } from './expire-job.js';
import { findPublishedTestAndCallbackDomains } from '../tests/tests-service.js';
import type { AssignmentsContext } from './context.js';
import { checkRelaxationsAllowed, normaliseAccommodations, type Accommodations } from './accommodations.js';
import { checkCallbackUrl } from './callback-url.js';
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
  const dueAt = body.dueAt ? new Date(body.dueAt) : null;
  const accommodations = normaliseAccommodations(body.accommodations);
  const metadataJson = body.metadata === undefined ? '{}' : (input.metadataJson ?? JSON.stringify(metadata));

  // With a key, the claim, the assignment and the stored response commit together.
  if (idempotencyKey) {
    return withTransaction(ctx.pool, async (tx) => {
      const claim = await claimKey(tx, institutionId, idempotencyKey, fingerprint(body), now, CREATE_SCOPE, livemode);
      if (claim.kind === 'replay') return { status: claim.status, body: claim.body, replayed: true };
      const created = await checkAndInsert(ctx, tx, institutionId, livemode, body, metadataJson, dueAt, accommodations, now);
      const serialized = input.serialize(created);
      await storeResponse(tx, institutionId, idempotencyKey, { status: 201, body: serialized, assignmentId: created.assignmentId }, CREATE_SCOPE, livemode);
      return { status: 201, body: serialized, replayed: false };
    });
  }
  // A dueAt adds the expiry job, which must commit with the assignment. Without one, the only
  // write is a single statement (user upsert + insert), atomic on its own: no BEGIN/COMMIT round trips.
  const created = dueAt
    ? await withTransaction(ctx.pool, (tx) => checkAndInsert(ctx, tx, institutionId, livemode, body, metadataJson, dueAt, accommodations, now))
    : await checkAndInsert(ctx, ctx.pool, institutionId, livemode, body, metadataJson, null, accommodations, now);
  return { status: 201, body: input.serialize(created), replayed: false };
}

/** The business rules (422s), then the user upsert and the assignment insert, and the expiry job when there is a dueAt. */
async function checkAndInsert(
  ctx: AssignmentsContext,
  db: Queryable,
  institutionId: string,
  livemode: boolean,
  body: CreateAssignmentBody,
  metadataJson: string,
  dueAt: Date | null,
  accommodations: Accommodations | null,
  now: Date,
): Promise<CreatedAssignment> {
  const { test, callbackDomains } = await findPublishedTestAndCallbackDomains(db, institutionId, body.testId);
  if (!test) throw new AppError('test_not_available', 'testId: no test with this id is published to your institution.', [{ field: 'testId', message: 'is not published to your institution' }]);
  const callbackUrl = checkCallbackUrl(body.callbackUrl, callbackDomains, ctx.config.allowInsecureUrls);
  if (dueAt && dueAt.getTime() <= now.getTime()) {
    throw new AppError('due_at_in_past', 'dueAt: must be in the future.', [{ field: 'dueAt', message: 'must be in the future' }]);
  }
  await checkRelaxationsAllowed(db, institutionId, accommodations);

  const assignmentId = newId('asg');
  await insertAssignmentForUser(db, {
    id: assignmentId,
    institutionId,
    user: { id: newId('usr'), externalUserId: body.externalUserId, email: body.user.email, name: body.user.name ?? null },
    testId: test.testId,
    testVersionId: test.testVersionId,
    callbackUrl,
    dueAt,
    metadataJson,
    accommodations,
    livemode,
    now,
  });
  if (dueAt) await enqueueJob(db, expireAssignmentJob, { assignmentId }, { runAt: dueAt, uniqueKey: expireJobKey(assignmentId) });

  const expiresAt = ctx.signer.expiryFor(now, dueAt);
  return {
    assignmentId,
    status: 'assigned',
    externalUserId: body.externalUserId,
    testId: test.testId,
    startUrl: ctx.signer.issue(assignmentId, 1, expiresAt).url,
    startUrlExpiresAt: expiresAt,
    createdAt: now,
  };
}
