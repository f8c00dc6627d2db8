import { AppError } from '../../platform/errors.js';
import { newId } from '../../platform/ids.js';
import { withTransaction } from '../../platform/db.js';
import { enqueueJob } from '../../platform/jobs.js';
import { getCallbackDomains } from '../institutions/institutions.js';
import { findPublishedTest } from '../tests/tests-service.js';
import type { AssignmentsContext } from './context.js';
import { checkCallbackUrl } from './callback-url.js';
import { claimKey, fingerprint, storeResponse } from './idempotency.js';
import { insertAssignment, upsertUser } from './assignments-repo.js';
import type { CreateAssignmentBody } from './schemas.js';

export const METADATA_MAX_BYTES = 1024;
export const EXPIRE_JOB = 'assignment.expire';

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
 * insert the assignment, schedule its expiry, sign its start link; all in
 * one transaction, so a failure leaves nothing behind.
 */
export async function createAssignment(
  ctx: AssignmentsContext,
  input: { institutionId: string; body: CreateAssignmentBody; idempotencyKey: string | undefined; serialize: (v: CreatedAssignment) => string },
): Promise<CreateResult> {
  const { institutionId, body, idempotencyKey } = input;
  const now = ctx.clock.now();

  const metadata = body.metadata ?? {};
  const metadataBytes = Buffer.byteLength(JSON.stringify(metadata));
  if (metadataBytes > METADATA_MAX_BYTES) {
    throw new AppError('invalid_request', `metadata: is ${metadataBytes} bytes; at most ${METADATA_MAX_BYTES} are allowed`, [
      { field: 'metadata', message: `must be at most ${METADATA_MAX_BYTES} bytes of compact JSON (got ${metadataBytes})` },
    ]);
  }
  const dueAt = body.dueAt ? new Date(body.dueAt) : null;

  return withTransaction(ctx.pool, async (tx) => {
    if (idempotencyKey) {
      const claim = await claimKey(tx, institutionId, idempotencyKey, fingerprint(body), now);
      if (claim.kind === 'replay') return { status: claim.status, body: claim.body, replayed: true };
    }

    const test = await findPublishedTest(tx, institutionId, body.testId);
    if (!test) throw new AppError('test_not_available', 'testId: no test with this id is published to your institution.', [{ field: 'testId', message: 'is not published to your institution' }]);
    const callbackUrl = checkCallbackUrl(body.callbackUrl, await getCallbackDomains(tx, institutionId), ctx.config.allowInsecureUrls);
    if (dueAt && dueAt.getTime() <= now.getTime()) {
      throw new AppError('due_at_in_past', 'dueAt: must be in the future.', [{ field: 'dueAt', message: 'must be in the future' }]);
    }

    const userId = await upsertUser(tx, {
      id: newId('usr'),
      institutionId,
      externalUserId: body.externalUserId,
      email: body.user.email,
      name: body.user.name ?? null,
      now,
    });
    const assignmentId = newId('asg');
    await insertAssignment(tx, { id: assignmentId, institutionId, userId, testId: test.testId, testVersionId: test.testVersionId, callbackUrl, dueAt, metadata, now });
    if (dueAt) await enqueueJob(tx, EXPIRE_JOB, { assignmentId }, { runAt: dueAt, uniqueKey: `expire:${assignmentId}` });

    const expiresAt = ctx.signer.expiryFor(now, dueAt);
    const created: CreatedAssignment = {
      assignmentId,
      status: 'assigned',
      externalUserId: body.externalUserId,
      testId: test.testId,
      startUrl: ctx.signer.issue(assignmentId, 1, expiresAt).url,
      startUrlExpiresAt: expiresAt,
      createdAt: now,
    };
    const serialized = input.serialize(created);
    if (idempotencyKey) await storeResponse(tx, institutionId, idempotencyKey, { status: 201, body: serialized, assignmentId });
    return { status: 201, body: serialized, replayed: false };
  });
}
