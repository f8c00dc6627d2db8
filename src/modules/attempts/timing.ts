/**
 * Attempt timing. The deadline is `startedAt + durationMinutes` plus the
 * assignment's extra time, set when the student begins; only the
 * institution moves it afterwards (extra time granted mid-attempt). Saves are accepted until the deadline plus a short
 * grace, which covers a save that left the browser just before time ran out
 * (debounce, slow network); the server's auto-submit runs at that moment too.
 * The grace is a transport allowance, not extra time: the page stops
 * accepting edits at the deadline and submits by itself.
 */
export const SUBMIT_GRACE_MS = 30_000;

/** Extra time of an assignment's accommodations: a percentage of the duration, or minutes. */
export interface ExtraTime {
  extraTimePercent?: number;
  extraTimeMinutes?: number;
}

/** The time allowed, extra time included; a percentage is rounded to whole seconds. */
export function timeAllowedMs(durationMinutes: number, extra?: ExtraTime | null): number {
  const base = durationMinutes * 60_000;
  if (extra?.extraTimeMinutes) return base + extra.extraTimeMinutes * 60_000;
  if (extra?.extraTimePercent) return base + Math.round((base * extra.extraTimePercent) / 100 / 1000) * 1000;
  return base;
}

export function deadlineFor(startedAt: Date, durationMinutes: number, extra?: ExtraTime | null): Date {
  return new Date(startedAt.getTime() + timeAllowedMs(durationMinutes, extra));
}

/** The unique key of an attempt's pending `attempt.auto_submit` job (see auto-submit-job.ts). */
export const autoSubmitKey = (assignmentId: string) => `auto-submit:${assignmentId}`;

export function autoSubmitAt(deadline: Date): Date {
  return new Date(deadline.getTime() + SUBMIT_GRACE_MS);
}

/** True while a save may still change an answer. */
export function acceptsSaves(deadline: Date, now: Date): boolean {
  return now.getTime() <= deadline.getTime() + SUBMIT_GRACE_MS;
}
