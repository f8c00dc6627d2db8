import { Ajv, type ErrorObject } from 'ajv';
import addFormatsImport from 'ajv-formats';
import { OptionalKind } from '@sinclair/typebox';
import type { FastifySchemaCompiler } from 'fastify';
import type { ErrorDetail } from '../errors.js';

// ajv-formats ships CommonJS with a default export.
const addFormats = addFormatsImport as unknown as (ajv: Ajv) => Ajv;

function makeAjv(coerce: boolean): Ajv {
  const ajv = new Ajv({
    allErrors: true,
    // Unknown fields are rejected (additionalProperties: false), never silently dropped.
    removeAdditional: false,
    useDefaults: true,
    // Query strings and path parameters arrive as text; JSON bodies must carry the right types.
    coerceTypes: coerce ? 'array' : false,
    strict: false,
    discriminator: true,
    // Errors carry their schema, so a refusal can list the allowed values and suggest a known field name.
    verbose: true,
  });
  addFormats(ajv);
  // RFC 3339 admits a leap second (23:59:60) that a JavaScript Date cannot hold: such a value would
  // pass the format and then fail deep in the service. A timestamp we accept must be one we can store.
  const dateTime = ajv.formats['date-time'] as { validate: (s: string) => boolean };
  ajv.addFormat('date-time', { ...dateTime, validate: (s: string) => dateTime.validate(s) && Number.isFinite(Date.parse(s)) });
  return ajv;
}

const bodyAjv = makeAjv(false);
const textAjv = makeAjv(true);

type Validate = ((data: unknown) => boolean) & { errors?: ErrorObject[] | null };

export const validatorCompiler: FastifySchemaCompiler<unknown> = ({ schema, httpPart }) => {
  const ajv = httpPart === 'body' ? bodyAjv : textAjv;
  const validate = ajv.compile(schema as object) as Validate;
  if (httpPart !== 'body' || !isOptionalSchema(schema)) return validate as ReturnType<FastifySchemaCompiler<unknown>>;
  // A body declared `Type.Optional(...)` may be left out entirely (a POST with no body); ajv alone
  // would refuse it as "must be object". Fastify hands an absent body to the validator as null; a
  // literal JSON `null` body never gets this far (json-body.ts refuses it), so null here means absent.
  const optional: Validate = (data) => {
    if (data === undefined || data === null) {
      optional.errors = null;
      return true;
    }
    const ok = validate(data);
    optional.errors = validate.errors ?? null;
    return ok;
  };
  return optional as ReturnType<FastifySchemaCompiler<unknown>>;
};

/** TypeBox marks `Type.Optional(...)` schemas with this symbol. */
export function isOptionalSchema(schema: unknown): boolean {
  return typeof schema === 'object' && schema !== null && (schema as Record<symbol, unknown>)[OptionalKind] === 'Optional';
}

type AjvError = ErrorObject & { schema?: unknown; parentSchema?: Record<string, unknown> };

const KNOWN_FIELD = 'is not a known field';

/**
 * Turns ajv errors into `details` entries with dotted field paths
 * (`user.email`), in words a client can act on:
 * - a union (`anyOf`) is reported once: "must be one of: a, b, c" for a list
 *   of constants, "must be string or null" for a type mismatch, or the
 *   errors of the branch the value did match in type (`eventTypes.0` inside
 *   an array-or-null), instead of one line per branch;
 * - an unknown field close to a known one says "did you mean …?", and the
 *   "is required" of the field it stands for is left out, since the
 *   misspelling is the cause;
 * - `minProperties: 1` says which fields the object may contain, and
 *   `not: { required: [a, b] }` (fields that exclude each other) names each.
 */
export function validationDetails(errors: ErrorObject[], part: string | undefined): ErrorDetail[] {
  const collapsed = collapseUnions(errors as AjvError[]);
  const misspelt = new Map<string, string>(); // path of the required field it stands for → suggestion
  const details: Array<ErrorDetail & { order: number }> = [];
  for (const e of collapsed) {
    const segments = pathOf(e.instancePath);
    let message = e.message ?? 'is not valid';
    let order = 1;
    if (e.keyword === 'required') {
      segments.push(String((e.params as { missingProperty: string }).missingProperty));
      message = 'is required';
    } else if (e.keyword === 'additionalProperties') {
      const name = String((e.params as { additionalProperty: string }).additionalProperty);
      const known = Object.keys((e.parentSchema?.properties as Record<string, unknown> | undefined) ?? {});
      const suggestion = closest(name, known);
      message = suggestion ? `${KNOWN_FIELD} (did you mean ${suggestion}?)` : KNOWN_FIELD;
      if (suggestion) misspelt.set([...segments, suggestion].join('/'), name);
      segments.push(name);
      order = 0;
    } else if (e.keyword === 'enum') {
      message = `must be one of: ${((e.params as { allowedValues: unknown[] }).allowedValues ?? []).map(String).join(', ')}`;
    } else if (e.keyword === 'minProperties' && (e.params as { limit: number }).limit === 1) {
      // `minProperties: 1` on an object of optional fields (a PATCH): name what it may contain.
      const known = Object.keys((e.parentSchema?.properties as Record<string, unknown> | undefined) ?? {});
      message = known.length > 0 ? `must contain ${orList(known)}` : 'must not be empty';
    } else if (e.keyword === 'not' && Array.isArray((e.schema as { required?: unknown })?.required)) {
      // `not: { required: [a, b] }`: fields that exclude each other. Each one is named, with the same message.
      const fields = (e.schema as { required: string[] }).required;
      message = `give ${orList(fields)}, not both`;
      for (const name of fields) {
        const field = fieldName([...segments, name], part);
        if (!details.some((d) => d.field === field && d.message === message)) details.push({ field, message, order });
      }
      continue;
    } else if (e.keyword === 'discriminator') {
      // A missing or unknown tag (a question's `type`): name the tag field, not the whole object.
      const { tag, tagValue } = e.params as { tag: string; tagValue: unknown };
      segments.push(tag);
      message =
        tagValue === undefined ? 'is required' : typeof tagValue === 'string' ? `"${tagValue}" is not one of the known types` : 'must be a string';
    }
    if (e.keyword === 'required' && misspelt.has(segments.join('/'))) continue;
    const field = fieldName(segments, part);
    if (details.some((d) => d.field === field && d.message === message)) continue; // one line per problem
    details.push({ field, message, order });
  }
  // Required errors come before the additionalProperties errors of the same object: drop those explained since.
  return details
    .filter((d) => !(d.message === 'is required' && [...misspelt.keys()].some((k) => fieldName(k.split('/'), part) === d.field)))
    .sort((a, b) => a.order - b.order)
    .map(({ field, message }) => ({ field, message }));
}

/** `a`, `a or b`, `a, b or c`. */
function orList(names: string[]): string {
  return names.length <= 1 ? (names[0] ?? '') : `${names.slice(0, -1).join(', ')} or ${names[names.length - 1]}`;
}

/** The one-line summary of a validation failure: its first detail. */
export function headline(details: ErrorDetail[]): string {
  const first = details[0];
  if (!first) return 'The request is not valid.';
  return first.message.startsWith(KNOWN_FIELD) ? `${first.field} ${first.message}` : `${first.field}: ${first.message}`;
}

function pathOf(instancePath: string): string[] {
  return instancePath.split('/').filter(Boolean).map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'));
}

function fieldName(segments: string[], part: string | undefined): string {
  let field = segments.join('.');
  if (!field) field = part === 'body' ? 'body' : (part ?? 'request');
  if (part === 'headers') field = `header ${field}`;
  return field;
}

/** Replaces each `anyOf` failure and its branches' errors by what a client needs to hear (see validationDetails). */
function collapseUnions(errors: AjvError[]): AjvError[] {
  let out = [...errors];
  const unions = out.filter((e) => e.keyword === 'anyOf').sort((a, b) => b.schemaPath.length - a.schemaPath.length);
  for (const union of unions) {
    const inside = out.filter((e) => e !== union && e.schemaPath.startsWith(`${union.schemaPath}/`));
    // Errors inside the value, or a `not` on the value itself (it matched that branch in type: fields that exclude each other).
    const deeper = inside.filter((e) => e.instancePath.length > union.instancePath.length || e.keyword === 'not');
    const branches = Array.isArray(union.schema) ? (union.schema as Array<Record<string, unknown>>) : [];
    let replacement: AjvError[];
    if (deeper.length > 0) {
      replacement = deeper; // the value matched a branch in type: its own errors are the ones that matter
    } else if (branches.length > 0 && branches.every((b) => 'const' in b)) {
      replacement = [{ ...union, keyword: 'enum', params: { allowedValues: branches.map((b) => b.const) } }];
    } else {
      const types = branches.map((b) => b.type).filter((t): t is string => typeof t === 'string');
      replacement = [{ ...union, keyword: 'type', message: types.length === branches.length && types.length > 0 ? `must be ${[...new Set(types)].join(' or ')}` : 'is not valid' }];
    }
    out = out.flatMap((e) => (e === union ? replacement : inside.includes(e) && !replacement.includes(e) ? [] : [e]));
  }
  return out;
}

/** The known name `name` most likely stands for: the same but for case, or at most two edits away. */
function closest(name: string, known: string[]): string | null {
  const lower = name.toLowerCase();
  const sameCase = known.find((k) => k.toLowerCase() === lower);
  if (sameCase) return sameCase;
  let best: string | null = null;
  let bestDistance = Math.min(2, Math.floor(name.length / 3));
  for (const k of known) {
    const d = editDistance(lower, k.toLowerCase());
    if (d <= bestDistance && (best === null || d < bestDistance)) {
      best = k;
      bestDistance = d;
    }
  }
  return best;
}

function editDistance(a: string, b: string): number {
  if (Math.abs(a.length - b.length) > 2) return 3;
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    for (let j = 1; j <= b.length; j++) row[j] = Math.min(prev[j]! + 1, row[j - 1]! + 1, prev[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    prev = row;
  }
  return prev[b.length]!;
}
