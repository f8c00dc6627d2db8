/**
 * Attempt timing. The deadline is `startedAt + durationMinutes`, fixed when
 * the student begins. Saves are accepted until the deadline plus a short
 * grace, which covers a save that left the browser just before time ran out
 * (debounce, slow network); the server's auto-submit runs at that moment too.
 * The grace is a transport allowance, not extra time: the page stops
 * accepting edits at the deadline and submits by itself.
 */
export const SUBMIT_GRACE_MS = 30_000;

export function deadlineFor(startedAt: Date, durationMinutes: number): Date {
  return new Date(startedAt.getTime() + durationMinutes * 60_000);
}

export function autoSubmitAt(deadline: Date): Date {
  return new Date(deadline.getTime() + SUBMIT_GRACE_MS);
}

/** True while a save may still change an answer. */
export function acceptsSaves(deadline: Date, now: Date): boolean {
  return now.getTime() <= deadline.getTime() + SUBMIT_GRACE_MS;
}
