import type { Tx } from '../../platform/db.js';
import { lockAssignment } from '../lifecycle/apply-transition.js';
import { appendEvent, type StoredEvent } from '../lifecycle/append-event.js';
import { assignmentEvent } from '../lifecycle/event-envelope.js';
import { hasAttempt } from '../lifecycle/state-machine.js';

/**
 * Proctoring's two events. Neither changes the assignment's status, so they
 * do not go through the state machine; they are appended in the caller's
 * transaction (the one that stores the flag or the review), so an event
 * exists exactly when its cause does, and is delivered like every other.
 * Both are accepted while an attempt exists (started and later: recordings
 * are reviewed after submission).
 *
 * `violation.detected` (docs/proctoring.md): one per critical flag,
 * `data.violation = { id, kind, severity: "critical", startedAt, durationSeconds, evidence: { snapshot } }`.
 * `integrity.reviewed`: once, when a reviewer has reviewed every critical
 * flag, `data.integrity = { confirmed, dismissed }`.
 */
export interface Violation {
  /** The flag's id (`flg_…`): the partner fetches its evidence with it. */
  id: string;
  kind: string;
  severity: 'critical';
  startedAt: Date;
  durationSeconds: number;
  /** Whether an evidence snapshot was stored when the event was written (it may arrive just after). */
  evidence: { snapshot: boolean };
}

export type RecordEventOutcome = { ok: true; event: StoredEvent } | { ok: false; reason: 'not_found' | 'no_attempt' };

async function appendAttemptEvent(
  tx: Tx,
  assignmentId: string,
  type: 'violation.detected' | 'integrity.reviewed',
  extra: Record<string, unknown>,
  now: Date,
): Promise<RecordEventOutcome> {
  const a = await lockAssignment(tx, assignmentId);
  if (!a) return { ok: false, reason: 'not_found' };
  if (!hasAttempt(a.status)) return { ok: false, reason: 'no_attempt' };
  const event = await appendEvent(tx, assignmentEvent(a, { type, status: a.status, extra, createdAt: now }));
  return { ok: true, event };
}

export function recordViolation(tx: Tx, assignmentId: string, violation: Violation, now: Date): Promise<RecordEventOutcome> {
  return appendAttemptEvent(
    tx,
    assignmentId,
    'violation.detected',
    {
      violation: {
        id: violation.id,
        kind: violation.kind,
        severity: violation.severity,
        startedAt: violation.startedAt.toISOString(),
        durationSeconds: violation.durationSeconds,
        evidence: { snapshot: violation.evidence.snapshot },
      },
    },
    now,
  );
}

export function recordIntegrityReviewed(
  tx: Tx,
  assignmentId: string,
  integrity: { confirmed: number; dismissed: number },
  now: Date,
): Promise<RecordEventOutcome> {
  return appendAttemptEvent(tx, assignmentId, 'integrity.reviewed', { integrity: { confirmed: integrity.confirmed, dismissed: integrity.dismissed } }, now);
}
