import { MAX_RETRY_AFTER_MS } from '../../platform/http/retry-after.js';

/**
 * What an attempt's result means for its delivery and its endpoint. Pure.
 *
 * - Any 2xx is success. Redirects are not followed, so a 3xx is a failure.
 * - 410 Gone: the partner removed the endpoint; it is disabled and the
 *   delivery fails (Standard Webhooks).
 * - Anything else is retried on the schedule (docs/api-rules.md "Events and webhooks": immediately, 5 s,
 *   5 min, 30 min, 2 h, 5 h, 10 h, 10 h), each wait stretched or shrunk by up
 *   to 10 % at random so retries of many events do not arrive in lockstep.
 * - `Retry-After` (seconds or an HTTP date, capped at 24 h) is honoured: the
 *   next attempt is never earlier. With 429/502/503/504 or a `Retry-After`,
 *   the whole endpoint is paused until then, so its other deliveries back off
 *   too instead of piling onto an overloaded partner.
 * - After the last attempt of the schedule the delivery fails; the event
 *   stays listable and can be redelivered.
 * - An endpoint whose attempts have all failed for 5 days is disabled.
 */
export const BACKOFF_STATUSES: ReadonlySet<number> = new Set([429, 502, 503, 504]);
export const DISABLE_AFTER_FAILING_MS = 5 * 24 * 60 * 60 * 1000;
const JITTER = 0.1;

export interface AttemptResult {
  statusCode: number | null;
  errorClass: string | null;
  retryAfterMs: number | null;
}

export type Verdict =
  | { kind: 'succeeded' }
  | { kind: 'gone' }
  | { kind: 'retry'; nextAttemptAt: Date; pauseEndpointUntil: Date | null }
  | { kind: 'exhausted'; pauseEndpointUntil: Date | null };

export function isSuccess(statusCode: number | null): boolean {
  return statusCode !== null && statusCode >= 200 && statusCode < 300;
}

/** `attemptsMade` counts this attempt: 1 after the first. */
export function judgeAttempt(
  result: AttemptResult,
  attemptsMade: number,
  scheduleMs: readonly number[],
  now: Date,
  random: () => number = Math.random,
): Verdict {
  if (isSuccess(result.statusCode)) return { kind: 'succeeded' };
  if (result.statusCode === 410) return { kind: 'gone' };

  const retryAfter = result.retryAfterMs === null ? 0 : Math.min(Math.max(result.retryAfterMs, 0), MAX_RETRY_AFTER_MS);
  const backOff = result.retryAfterMs !== null || (result.statusCode !== null && BACKOFF_STATUSES.has(result.statusCode));
  const base = scheduleMs[attemptsMade];
  const wait = base === undefined ? retryAfter : Math.max(Math.round(base * (1 - JITTER + 2 * JITTER * random())), retryAfter);
  const pauseEndpointUntil = backOff ? new Date(now.getTime() + wait) : null;
  if (base === undefined) return { kind: 'exhausted', pauseEndpointUntil: backOff && wait > 0 ? pauseEndpointUntil : null };
  return { kind: 'retry', nextAttemptAt: new Date(now.getTime() + wait), pauseEndpointUntil };
}

export function shouldDisableForFailures(failingSince: Date | null, now: Date): boolean {
  return failingSince !== null && now.getTime() - failingSince.getTime() >= DISABLE_AFTER_FAILING_MS;
}
