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

/** Error responses by status, for a route's `response` map (documentation and serialisation). */
export function errors(...statuses: number[]): Record<number, typeof ErrorResponse> {
  return Object.fromEntries(statuses.map((s) => [s, ErrorResponse]));
}

export const StrictObject = { additionalProperties: false } as const;
