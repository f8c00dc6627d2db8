/**
 * The closed list of error codes and their HTTP statuses (docs/api-rules.md "Errors").
 * Every error body is `{ error: { code, message, requestId, details? } }`.
 */
export const ERROR_STATUS = {
  invalid_request: 400,
  unauthenticated: 401,
  forbidden: 403,
  not_found: 404,
  method_not_allowed: 405,
  idempotency_key_reused: 409,
  invalid_state: 409,
  request_timeout: 408,
  /** A signed file URL past its expiry: ask the API for a fresh one. */
  link_expired: 410,
  payload_too_large: 413,
  unsupported_media_type: 415,
  test_not_available: 422,
  callback_url_not_allowed: 422,
  due_at_in_past: 422,
  webhook_url_not_allowed: 422,
  proctoring_relaxation_not_allowed: 422,
  /** An import in which no item could be imported: the report is in `details`. */
  import_failed: 422,
  rate_limited: 429,
  headers_too_large: 431,
  internal_error: 500,
  unavailable: 503,
} as const;

export type ErrorCode = keyof typeof ERROR_STATUS;

export interface ErrorDetail {
  field: string;
  message: string;
}

/** An expected, client-facing failure. Anything else thrown becomes a 500 with no detail. */
export class AppError extends Error {
  readonly status: number;
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly details?: ErrorDetail[],
    readonly headers?: Record<string, string>,
  ) {
    super(message);
    this.status = ERROR_STATUS[code];
  }
}

export const notFound = (what = 'resource') => new AppError('not_found', `No such ${what}.`);
export const invalid = (field: string, message: string) =>
  new AppError('invalid_request', `${field}: ${message}`, [{ field, message }]);

export interface ErrorBody {
  error: { code: ErrorCode; message: string; requestId: string; details?: ErrorDetail[] };
}

export function errorBody(err: AppError, requestId: string): ErrorBody {
  return {
    error: {
      code: err.code,
      message: err.message,
      requestId,
      ...(err.details && err.details.length > 0 ? { details: err.details } : {}),
    },
  };
}
