import type { Tx } from '../../platform/db.js';
import { lockAssignment } from '../lifecycle/apply-transition.js';
import { appendEvent, type StoredEvent } from './append-event.js';

/**
 * `violation.detected`: a critical proctoring violation. Its producer is the
 * proctoring service, which calls `recordViolation` inside its own
 * transaction (the one that stores the violation), so the event exists
 * exactly when the violation does, and is delivered like every other event.
 * It does not change the assignment's status, so it does not go through the
 * state machine; it is accepted while an attempt exists (started and later,
 * since recorded sessions may be analysed after submission).
 */
export interface Violation {
  /** What was detected, e.g. `multiple_faces`, `face_not_visible`, `tab_switch`, `identity_mismatch`. */
  kind: string;
  /** Only critical violations are sent to partners (spec section 6). */
  severity: 'critical';
  occurredAt: Date;
  /** A short human-readable description for the partner's staff. */
  description?: string;
}

export type RecordViolationOutcome =
  | { ok: true; event: StoredEvent }
  | { ok: false; reason: 'not_found' | 'no_attempt' };

const ATTEMPT_STATUSES = new Set(['started', 'submitted', 'marking', 'completed']);

export async function recordViolation(tx: Tx, assignmentId: string, violation: Violation, now: Date): Promise<RecordViolationOutcome> {
  const a = await lockAssignment(tx, assignmentId);
  if (!a) return { ok: false, reason: 'not_found' };
  if (!ATTEMPT_STATUSES.has(a.status)) return { ok: false, reason: 'no_attempt' };
  const event = await appendEvent(tx, {
    institutionId: a.institutionId,
    assignmentId: a.id,
    type: 'violation.detected',
    createdAt: now,
    data: {
      partnerAssignmentId: a.id,
      externalUserId: a.externalUserId,
      testId: a.testId,
      status: a.status,
      metadata: a.metadata ?? {},
      violation: {
        kind: violation.kind,
        severity: violation.severity,
        occurredAt: violation.occurredAt.toISOString(),
        ...(violation.description !== undefined ? { description: violation.description } : {}),
      },
    },
    rawMembers: { metadata: a.metadataJson },
  });
  return { ok: true, event };
}
