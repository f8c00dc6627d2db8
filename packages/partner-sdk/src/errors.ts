/**
 * Every failure the SDK reports is an `AssayError`. An error the service
 * answered carries its HTTP `status`, the envelope's `code`, `message`,
 * `details` (validation errors) and the `requestId` to quote to support;
 * failures before any answer (connection, timeout) have `status: null`.
 * Subclasses name the cases a caller usually branches on; `code` is the
 * service's closed list (`not_found`, `idempotency_key_reused`, …) and is the
 * stable thing to compare.
 */
export interface ErrorDetail {
  field: string;
  message: string;
}

export interface AssayErrorInit {
  status: number | null;
  code: string;
  message: string;
  requestId?: string | null;
  details?: ErrorDetail[];
  /** Milliseconds the service asked to wait before retrying (429, 503). */
  retryAfterMs?: number | null;
  cause?: unknown;
}

export class AssayError extends Error {
  readonly status: number | null;
  readonly code: string;
  readonly requestId: string | null;
  readonly details: ErrorDetail[] | undefined;
  readonly retryAfterMs: number | null;

  constructor(init: AssayErrorInit) {
    super(init.message, init.cause === undefined ? undefined : { cause: init.cause });
    this.name = new.target.name;
    this.status = init.status;
    this.code = init.code;
    this.requestId = init.requestId ?? null;
    this.details = init.details;
    this.retryAfterMs = init.retryAfterMs ?? null;
  }
}

/** 400, 413, 415, 422: the request was refused as sent; retrying it unchanged cannot succeed. */
export class AssayInvalidRequestError extends AssayError {}
/** 401: no key, or a key that is unknown or revoked. */
export class AssayAuthenticationError extends AssayError {}
/** 403: the key is valid but the action is not allowed (institution suspended). */
export class AssayPermissionError extends AssayError {}
/** 404: unknown id, or an id of another institution or mode (the service never says which). */
export class AssayNotFoundError extends AssayError {}
/** 409: `idempotency_key_reused`, or `invalid_state` for the assignment's current status. */
export class AssayConflictError extends AssayError {}
/** 429 after the SDK's own retries ran out. */
export class AssayRateLimitError extends AssayError {}
/** 5xx after the SDK's own retries ran out. */
export class AssayServerError extends AssayError {}
/** No answer: the connection failed or was cut (after the SDK's own retries). */
export class AssayConnectionError extends AssayError {}
/** No answer within `timeoutMs` (after the SDK's own retries). */
export class AssayTimeoutError extends AssayError {}
/** A webhook whose signature, headers or timestamp did not verify: answer it with 400 and do not act on it. */
export class AssayWebhookVerificationError extends AssayError {}

/** The error for an answered request, from its status and error envelope. */
export function errorFromResponse(status: number, body: unknown, headers: Headers): AssayError {
  const envelope = (body as { error?: { code?: unknown; message?: unknown; requestId?: unknown; details?: unknown } } | null)?.error;
  const init: AssayErrorInit = {
    status,
    code: typeof envelope?.code === 'string' ? envelope.code : `http_${status}`,
    message: typeof envelope?.message === 'string' ? envelope.message : `The service answered HTTP ${status}`,
    requestId: typeof envelope?.requestId === 'string' ? envelope.requestId : headers.get('x-request-id'),
    retryAfterMs: parseRetryAfter(headers.get('retry-after')),
    ...(Array.isArray(envelope?.details) ? { details: envelope.details as ErrorDetail[] } : {}),
  };
  if (status === 401) return new AssayAuthenticationError(init);
  if (status === 403) return new AssayPermissionError(init);
  if (status === 404) return new AssayNotFoundError(init);
  if (status === 409) return new AssayConflictError(init);
  if (status === 429) return new AssayRateLimitError(init);
  if (status >= 500) return new AssayServerError(init);
  return new AssayInvalidRequestError(init);
}

/** `Retry-After` as milliseconds: delta-seconds or an HTTP date; null when absent or unreadable. */
export function parseRetryAfter(value: string | null, now = Date.now()): number | null {
  if (value === null || value.trim() === '') return null;
  if (/^\d+(\.\d+)?$/.test(value.trim())) return Math.round(Number(value) * 1000);
  const at = Date.parse(value);
  return Number.isNaN(at) ? null : Math.max(0, at - now);
}
