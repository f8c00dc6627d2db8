/**
 * The size pass that runs before a body's full validation.
 *
 * Ajv with `allErrors: true` reports one error per failing item: a 1 MB
 * autosave whose answer is `[0,0,…]` (524k numbers) made 524k error objects
 * (400 ms and 130 MB) before a single one was read, even though the array's
 * `maxItems` alone refuses it. So each body schema gets a twin that keeps
 * only what bounds the work: `maxItems` and `maxProperties` (and, for an
 * object that refuses unknown fields, a ceiling on its field count), along
 * with the structure that reaches them. It is compiled with
 * `allErrors: false`, so it stops at the first oversized array or object
 * after looking at each container once; only a body that passes it is
 * walked item by item.
 *
 * The twin accepts more than the schema (it never judges types, formats or
 * lengths of text): whatever it lets through is judged, with every error, by
 * the full pass. Text lengths are left to the full pass because a string
 * costs one error however long it is.
 */

type Json = Record<string, unknown>;

/** Fields an object that refuses unknown fields may carry beyond its known ones before the size pass refuses it. */
export const UNKNOWN_FIELDS_SLACK = 50;

/** Marks a `maxProperties` the size pass added to a closed object (its known fields plus the slack). */
export const CLOSED_OBJECT = 'x-assay-closed-fields';

const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The size-only twin of `schema` (see above). `{}` where nothing needs bounding. */
export function sizeBoundsSchema(schema: unknown): Json {
  return bounds(schema, false);
}

/**
 * `branch`: the schema is one alternative of a union, where its `type` is
 * kept so the twin still tells the alternatives apart (an array is held to
 * the array branch's `maxItems`, not let through by the string branch).
 */
function bounds(schema: unknown, branch: boolean): Json {
  if (!isObject(schema)) return {};
  const out: Json = {};
  if (branch && schema.type !== undefined) out.type = schema.type;
  for (const key of ['maxItems', 'maxProperties'] as const) if (typeof schema[key] === 'number') out[key] = schema[key];

  const properties = isObject(schema.properties) ? schema.properties : undefined;
  if (properties) out.properties = mapValues(properties, (s) => bounds(s, false));
  if (isObject(schema.patternProperties)) out.patternProperties = mapValues(schema.patternProperties, (s) => bounds(s, false));
  if (isObject(schema.additionalProperties)) out.additionalProperties = bounds(schema.additionalProperties, false);
  if (schema.additionalProperties === false && out.maxProperties === undefined && !schema.patternProperties) {
    // Each unknown field is an error of its own: bound how many the full pass may meet.
    out.maxProperties = Object.keys(properties ?? {}).length + UNKNOWN_FIELDS_SLACK;
    out[CLOSED_OBJECT] = Object.keys(properties ?? {}).length;
  }
  if (isObject(schema.items)) out.items = bounds(schema.items, false);
  else if (Array.isArray(schema.items)) out.items = schema.items.map((s) => bounds(s, false));
  if (Array.isArray(schema.prefixItems)) out.prefixItems = schema.prefixItems.map((s) => bounds(s, false));
  if (isObject(schema.additionalItems)) out.additionalItems = bounds(schema.additionalItems, false);
  if (Array.isArray(schema.allOf)) out.allOf = schema.allOf.map((s) => bounds(s, false));

  const discriminator = isObject(schema.discriminator) ? schema.discriminator : undefined;
  if (discriminator && Array.isArray(schema.oneOf)) {
    // A tagged union is judged by the branch its tag names, as the full pass does: keep the tag.
    const tag = String(discriminator.propertyName);
    out.discriminator = discriminator;
    out.type = 'object';
    out.required = [tag];
    out.oneOf = schema.oneOf.map((s) => withTag(bounds(s, false), s, tag));
  } else {
    const alternatives = Array.isArray(schema.anyOf) ? schema.anyOf : Array.isArray(schema.oneOf) ? schema.oneOf : undefined;
    if (alternatives) out.anyOf = union(alternatives);
  }
  return out;
}

/**
 * A union's twin: each alternative bounded, plus one that lets through a
 * value of no alternative's type, so a type mismatch (the full pass's to
 * report) never stops the size pass before an oversized value further on.
 */
function union(alternatives: unknown[]): Json[] {
  const branches = alternatives.map((s) => bounds(s, true));
  const types = branches.flatMap((b) => (typeof b.type === 'string' ? [b.type] : Array.isArray(b.type) ? (b.type as string[]) : []));
  if (branches.some((b) => b.type === undefined)) return [{}]; // an alternative of any type: nothing to bound here
  // JSON Schema's "number" covers integers.
  if (types.includes('number')) types.push('integer');
  return [...branches, { not: { type: [...new Set(types)] } }];
}

function withTag(twin: Json, original: unknown, tag: string): Json {
  const props = isObject(original) && isObject(original.properties) ? original.properties : {};
  return { ...twin, required: [tag], properties: { ...(twin.properties as Json | undefined), [tag]: props[tag] ?? {} } };
}

function mapValues(o: Json, f: (v: unknown) => Json): Json {
  return Object.fromEntries(Object.entries(o).map(([k, v]) => [k, f(v)]));
}
