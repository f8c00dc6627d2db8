import { Type, type Static, type TSchema } from '@sinclair/typebox';

/** Shared TypeBox pieces: the error envelope and paging, used by every module's route schemas. */
export const ErrorResponse = Type.Object(
  {
    error: Type.Object({
      code: Type.String({ description: 'Machine-readable error code (see the error table).' }),
      message: Type.String(),
      requestId: Type.String(),
      details: Type.Optional(Type.Array(Type.Object({ field: Type.String(), message: Type.String() }))),
    }),
  },
  { $id: 'ErrorResponse', title: 'Error' },
);

/** Services hand over Date objects; the serialiser writes them as ISO 8601 UTC strings. */
export const Timestamp = Type.Unsafe<Date | string>({ type: 'string', format: 'date-time', description: 'ISO 8601, UTC' });
/**
 * A string from a fixed list. `{ type: 'string', enum }` rather than a union of
 * literals: a union is `anyOf`, which the response serialiser resolves with a
 * schema check per field on every response.
 */
export function StringEnum<const T extends readonly string[]>(values: T, options: Record<string, unknown> = {}) {
  return Type.Unsafe<T[number]>({ type: 'string', enum: [...values], ...options });
}

/** `type: [T, 'null']`: nullable without `anyOf`, for the same reason as StringEnum. */
export function Nullable<T extends TSchema>(schema: T, options: Record<string, unknown> = {}) {
  const type = (schema as { type?: unknown }).type;
  if (typeof type !== 'string') throw new Error('Nullable: the schema needs a single `type`');
  return Type.Unsafe<Static<T> | null>({ ...schema, type: [type, 'null'], ...options });
}

export const NullableTimestamp = Nullable(Timestamp);

/** The same schema for a timestamp already written as text (inside a stored JSON object, such as the score). */
export const TimestampText = Type.Unsafe<string>({ ...Timestamp });

export const PagingQuery = Type.Object(
  {
    limit: Type.Integer({ minimum: 1, maximum: 100, default: 20 }),
    offset: Type.Integer({ minimum: 0, maximum: 1_000_000_000, default: 0 }),
  },
  { additionalProperties: false },
);

export function paged<T extends TSchema>(item: T) {
  return Type.Object({
    data: Type.Array(item),
    total: Type.Integer(),
    limit: Type.Integer(),
    offset: Type.Integer(),
  });
}

/** What each error status means, for the OpenAPI response descriptions (codes as in the closed list of errors.ts). */
const ERROR_MEANINGS: Record<number, string> = {
  400: 'invalid_request: malformed JSON, a wrong type, a missing or unknown field, a value out of bounds, a path id longer than any id, or a request that is not valid HTTP',
  401: 'unauthenticated: no credentials, or credentials that are not valid',
  403: 'forbidden: valid credentials, action not allowed (a suspended institution)',
  404: 'not_found: no such object for you (unknown, or another institution\'s)',
  408: 'request_timeout: the request (30 s) or its headers (10 s) took too long to arrive',
  409: 'idempotency_key_reused or invalid_state: refused in the current state',
  413: 'payload_too_large: the body is over the limit',
  415: 'unsupported_media_type: the body is not application/json',
  422: 'refused by a business rule (the code says which)',
  429: 'rate_limited: too many requests; see Retry-After',
  431: 'headers_too_large: the request headers are over 16 KB',
  500: 'internal_error: quote the requestId to support',
  503: 'unavailable: the database cannot be reached; see Retry-After',
};

/** The error envelope as the response schema of one status (no `$id`: a copy may appear under many statuses). */
export function errorResponse(status: number) {
  const { $id: _id, ...envelope } = ErrorResponse;
  return { ...envelope, 'x-response-description': ERROR_MEANINGS[status] ?? 'Error' } as unknown as typeof ErrorResponse;
}

/** Error responses by status, for a route's `response` map: the business errors a route adds to the generic ones (openapi.ts). */
export function errors(...statuses: number[]): Record<number, typeof ErrorResponse> {
  return Object.fromEntries(statuses.map((s) => [s, errorResponse(s)]));
}

export const StrictObject = { additionalProperties: false } as const;

/**
 * The body of an operation that takes none (a POST, PUT, PATCH or DELETE
 * without a body of its own, given this by openapi.ts): send no body, or `{}`.
 * A field is refused as any unknown field is (400), so nothing sent is
 * silently ignored.
 */
export const NoBody = Type.Optional(Type.Object({}, { additionalProperties: false, description: 'This operation takes no body: send none, or `{}`.' }));
