import type { Queryable } from '../../platform/db.js';

/**
 * The push side of an attempt's status (what `GET /a/{id}/status` returns:
 * the assignment's status and the running attempt's deadline). Every writer
 * of either calls `notifyStatusChange` in its own transaction: the
 * transition writer (apply-transition.ts: begin, submit, auto-submit,
 * expiry, cancel, PATCH) and the deadline writer (attempts-repo.ts: extra
 * time). PostgreSQL delivers a NOTIFY only when the transaction commits,
 * and folds repeats of the same payload in one transaction into one, so a
 * listener never hears of a change that was rolled back and hears of each
 * committed one at least once.
 *
 * The payload is the assignment id alone: a listener re-reads the status
 * (one indexed read per notified assignment that has an open page in its
 * process), so the notification carries nothing a tenant could be given
 * by mistake. One LISTEN connection per API process feeds
 * `dispatchStatusChange`; the subscribers (the student page's event streams,
 * the heartbeat coalescer's cache of open attempts) sit in higher modules.
 *
 * The price: PostgreSQL commits notifying transactions one at a time (a
 * database-wide lock held through the commit's WAL flush). Measured on the
 * 2-CPU development machine, 10 concurrent one-row transactions went from
 * 0.4–0.8 to 1.2–2.5 ms each with a NOTIFY (about 650 notifying commits a
 * second). The status writers are a few transactions per candidate per exam,
 * most of which already NOTIFY the job queue (Begin schedules the deadline
 * job, a submission its marking jobs), so they pay for the lock already; a
 * batch of transitions in one transaction commits its notifications together.
 */
export const STATUS_CHANNEL = 'assay_attempt_status';

export async function notifyStatusChange(db: Queryable, assignmentId: string): Promise<void> {
  await db.query({ name: 'lifecycle-notify-status', text: 'SELECT pg_notify($1, $2)', values: [STATUS_CHANNEL, assignmentId] });
}

/** Called with an assignment id, or with null after the listener (re)connected: anything may have changed meanwhile. */
export type StatusChangeSubscriber = (assignmentId: string | null) => void;

const subscribers = new Set<StatusChangeSubscriber>();

/** Subscribes to this process's status notifications; returns the unsubscribe. */
export function onStatusChange(fn: StatusChangeSubscriber): () => void {
  subscribers.add(fn);
  return () => void subscribers.delete(fn);
}

/** What the process's LISTEN connection calls for each notification (and with null on each (re)connect). */
export function dispatchStatusChange(assignmentId: string | null): void {
  for (const fn of subscribers) fn(assignmentId);
}
