import { Ajv, type ErrorObject } from 'ajv';
import addFormatsImport from 'ajv-formats';
import { OptionalKind } from '@sinclair/typebox';
import type { FastifySchemaCompiler } from 'fastify';
import type { ErrorDetail } from '../errors.js';
import { CLOSED_OBJECT, sizeBoundsSchema } from './size-bounds.js';

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
// The size pass (size-bounds.ts): stops at the first oversized array or object. Verbose, to tell a closed object's ceiling.
const sizeAjv = new Ajv({ allErrors: false, strict: false, discriminator: true, verbose: true });

type Validate = ((data: unknown) => boolean) & { errors?: ErrorObject[] | null };

const SIZE_KEYWORDS = new Set(['maxItems', 'maxProperties']);

/**
 * A body is first held to its size bounds, so an oversized array or object
 * is refused with one error in the time it takes to look at each container
 * once, before ajv reports every one of its items; only a body within its
 * bounds is validated with all its errors. (Query strings, path parameters
 * and headers are small by their own limits and validated at once.)
 */
function sizeFirst(schema: object, validate: Validate): Validate {
  const sizes = sizeAjv.compile(sizeBoundsSchema(schema)) as Validate;
  const checked: Validate = (data) => {
    if (!sizes(data)) {
      const oversized = (sizes.errors ?? []).find((e) => SIZE_KEYWORDS.has(e.keyword));
      if (oversized) {
        checked.errors = [oversized];
        return false;
      }
    }
    const ok = validate(data);
    checked.errors = validate.errors ?? null;
    return ok;
  };
  return checked;
}

export const validatorCompiler: FastifySchemaCompiler<unknown> = ({ schema, httpPart }) => {
  const ajv = httpPart === 'body' ? bodyAjv : textAjv;
  let validate = ajv.compile(schema as object) as Validate;
  if (httpPart === 'body') validate = sizeFirst(schema as object, validate);
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

/** The most `details` a validation error lists; past it, the last one says how many more problems there were. */
export const MAX_DETAILS = 20;
/** How many errors (unions collapsed) are turned into details; the rest only counted. */
const FORMAT_LIMIT = 1_000;

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
 *   `not: { required: [a, b] }` (fields that exclude each other) names each;
 * - at most MAX_DETAILS entries, the last saying how many were left out.
 * Linear in the number of errors, and only the first FORMAT_LIMIT are read
 * closely: a body can make tens of thousands.
 */
export function validationDetails(errors: ErrorObject[], part: string | undefined): ErrorDetail[] {
  return validationProblems(errors, part).map(({ field, message }) => ({ field, message }));
}

/**
 * The rule a detail broke, for a client that words it in its own language
 * (the portal's test editor): the ajv keyword and its bound, type, format,
 * pattern or allowed values. The API's envelopes carry the message only.
 */
export interface BrokenRule {
  keyword: string;
  limit?: number;
  type?: string;
  format?: string;
  pattern?: string;
  allowed?: string[];
}
export type ValidationProblem = ErrorDetail & { rule?: BrokenRule };

/** validationDetails, each detail with the rule it broke (none on the "and N more problems" line). */
export function validationProblems(errors: ErrorObject[], part: string | undefined): ValidationProblem[] {
  const collapsed = collapseUnions(errors as AjvError[]);
  const misspelt = new Set<string>(); // fields of the required fields a misspelling stands for
  const seen = new Set<string>(); // field + message: one line per problem
  const details: Array<ValidationProblem & { order: number }> = [];
  let rule: BrokenRule = { keyword: '' };
  const add = (field: string, message: string, order: number) => {
    const key = `${field}\u0000${message}`;
    if (seen.has(key)) return;
    seen.add(key);
    details.push({ field, message, order, rule });
  };
  // Past the first FORMAT_LIMIT errors the rest are counted, not read: they would not be shown anyway.
  const unread = Math.max(0, collapsed.length - FORMAT_LIMIT);
  for (const e of unread > 0 ? collapsed.slice(0, FORMAT_LIMIT) : collapsed) {
    const segments = pathOf(e.instancePath);
    let message = e.message ?? 'is not valid';
    let order = 1;
    rule = brokenRule(e);
    if (e.keyword === 'required') {
      segments.push(String((e.params as { missingProperty: string }).missingProperty));
      message = 'is required';
    } else if (e.keyword === 'additionalProperties') {
      const name = String((e.params as { additionalProperty: string }).additionalProperty);
      const known = Object.keys((e.parentSchema?.properties as Record<string, unknown> | undefined) ?? {});
      const suggestion = closest(name, known);
      message = suggestion ? `${KNOWN_FIELD} (did you mean ${suggestion}?)` : KNOWN_FIELD;
      if (suggestion) misspelt.add(fieldName([...segments, suggestion], part));
      segments.push(name);
      order = 0;
    } else if (e.keyword === 'enum') {
      message = `must be one of: ${((e.params as { allowedValues: unknown[] }).allowedValues ?? []).map(String).join(', ')}`;
    } else if (e.keyword === 'minProperties' && (e.params as { limit: number }).limit === 1) {
      // `minProperties: 1` on an object of optional fields (a PATCH): name what it may contain.
      const known = Object.keys((e.parentSchema?.properties as Record<string, unknown> | undefined) ?? {});
      message = known.length > 0 ? `must contain ${orList(known)}` : 'must not be empty';
    } else if (e.keyword === 'maxProperties' && typeof e.parentSchema?.[CLOSED_OBJECT] === 'number') {
      // The size pass's ceiling on an object that refuses unknown fields (size-bounds.ts).
      const count = typeof e.data === 'object' && e.data !== null ? Object.keys(e.data).length : 0;
      message = `has ${count} fields, but only ${String(e.parentSchema[CLOSED_OBJECT])} are known`;
    } else if (e.keyword === 'not' && Array.isArray((e.schema as { required?: unknown })?.required)) {
      // `not: { required: [a, b] }`: fields that exclude each other. Each one is named, with the same message.
      const fields = (e.schema as { required: string[] }).required;
      message = `give ${orList(fields)}, not both`;
      for (const name of fields) add(fieldName([...segments, name], part), message, order);
      continue;
    } else if (e.keyword === 'discriminator') {
      // A missing or unknown tag (a question's `type`): name the tag field, not the whole object.
      const { tag, tagValue } = e.params as { tag: string; tagValue: unknown };
      segments.push(tag);
      message =
        tagValue === undefined ? 'is required' : typeof tagValue === 'string' ? `"${tagValue}" is not one of the known types` : 'must be a string';
    }
    add(fieldName(segments, part), message, order);
  }
  // Required errors come before the additionalProperties errors of the same object: drop those explained since.
  const all = details
    .filter((d) => !(d.message === 'is required' && misspelt.has(d.field)))
    .sort((a, b) => a.order - b.order)
    .map(({ field, message, rule }) => ({ field, message, rule }));
  return capDetails(all, fieldName([], part), unread);
}

function brokenRule(e: AjvError): BrokenRule {
  const params = (e.params ?? {}) as Record<string, unknown>;
  const rule: BrokenRule = { keyword: e.keyword };
  if (typeof params.limit === 'number') rule.limit = params.limit;
  if (typeof params.type === 'string') rule.type = params.type;
  if (typeof params.format === 'string') rule.format = params.format;
  if (typeof params.pattern === 'string') rule.pattern = params.pattern;
  if (Array.isArray(params.allowedValues)) rule.allowed = params.allowedValues.map(String);
  if (e.keyword === 'const') rule.allowed = [String(params.allowedValue)];
  // A union of types collapsed into one "must be string or null" (collapseUnions): its types are in the message.
  if (e.keyword === 'type' && rule.type === undefined && typeof e.message === 'string' && e.message.startsWith('must be ')) rule.type = e.message.slice(8);
  return rule;
}

/**
 * At most MAX_DETAILS details: past it, the first MAX_DETAILS − 1 and one on
 * `field` (the body, or the request) saying how many more problems there
 * were. A body wrong in thousands of places needs its first few problems, not
 * a megabyte of them. `unread`: problems counted but not turned into details.
 */
export function capDetails<D extends ErrorDetail>(details: D[], field: string, unread = 0): Array<D | ErrorDetail> {
  if (details.length + unread <= MAX_DETAILS) return details;
  const shown = details.slice(0, MAX_DETAILS - 1);
  const more = details.length + unread - shown.length;
  return [...shown, { field, message: `and ${more} more problems (the first ${shown.length} are listed)` }];
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

/**
 * Replaces each `anyOf` failure and its branches' errors by what a client
 * needs to hear (see validationDetails), in one pass. Ajv pushes a union's
 * branch errors just before the union's own error, so they are the tail of
 * what has been kept so far: the errors under the union's schema path and
 * its value's instance path (a nested union's already collapsed).
 */
function collapseUnions(errors: AjvError[]): AjvError[] {
  if (!errors.some((e) => e.keyword === 'anyOf')) return errors;
  const out: AjvError[] = [];
  for (const union of errors) {
    if (union.keyword !== 'anyOf') {
      out.push(union);
      continue;
    }
    let start = out.length;
    while (start > 0 && isInside(out[start - 1]!, union)) start--;
    const inside = out.splice(start);
    // Errors inside the value, or a `not` on the value itself (it matched that branch in type: fields that exclude each other).
    const deeper = inside.filter((e) => e.instancePath.length > union.instancePath.length || e.keyword === 'not');
    const branches = Array.isArray(union.schema) ? (union.schema as Array<Record<string, unknown>>) : [];
    if (deeper.length > 0) {
      out.push(...ofTaggedBranch(deeper, union)); // the value matched a branch in type: its own errors are the ones that matter
    } else if (branches.length > 0 && branches.every((b) => 'const' in b)) {
      out.push({ ...union, keyword: 'enum', params: { allowedValues: branches.map((b) => b.const) } });
    } else {
      const types = branches.map((b) => b.type).filter((t): t is string => typeof t === 'string');
      out.push({ ...union, keyword: 'type', message: types.length === branches.length && types.length > 0 ? `must be ${[...new Set(types)].join(' or ')}` : 'is not valid' });
    }
  }
  return out;
}

/**
 * A union of objects told apart by a literal field (a blank's `kind`: text
 * or choice): the errors of the branches whose literal the value has, not
 * those of the others, which would only say that `kind` must be the other
 * value. When no branch's literal matches, every branch's errors stand.
 */
function ofTaggedBranch(deeper: AjvError[], union: AjvError): AjvError[] {
  const branchOf = (e: AjvError) => e.schemaPath.slice(union.schemaPath.length + 1).split('/')[0]!;
  const tagMissed = new Set(deeper.filter((e) => e.keyword === 'const' && e.instancePath.split('/').length === union.instancePath.split('/').length + 1).map(branchOf));
  const kept = deeper.filter((e) => !tagMissed.has(branchOf(e)));
  return kept.length > 0 ? kept : deeper;
}

/** Whether `e` arose while ajv tried `union`'s branches: under its schema path, at or under its value. */
function isInside(e: AjvError, union: AjvError): boolean {
  const at = union.instancePath;
  return e.schemaPath.startsWith(`${union.schemaPath}/`) && (e.instancePath === at || e.instancePath.startsWith(`${at}/`));
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
