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
  // would refuse it as "must be object". Fastify hands an absent body to the validator as null, so a
  // literal JSON `null` body counts as absent too (handlers read such bodies with `?.`).
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

/** Turns ajv errors into `details` entries with dotted field paths (`user.email`). */
export function validationDetails(errors: ErrorObject[], part: string | undefined): ErrorDetail[] {
  return errors.map((e) => {
    const segments = e.instancePath.split('/').filter(Boolean).map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'));
    let message = e.message ?? 'is not valid';
    if (e.keyword === 'required') {
      segments.push(String((e.params as { missingProperty: string }).missingProperty));
      message = 'is required';
    } else if (e.keyword === 'additionalProperties') {
      segments.push(String((e.params as { additionalProperty: string }).additionalProperty));
      message = 'is not a known field';
    } else if (e.keyword === 'discriminator') {
      // A missing or unknown tag (a question's `type`): name the tag field, not the whole object.
      const { tag, tagValue } = e.params as { tag: string; tagValue: unknown };
      segments.push(tag);
      message =
        tagValue === undefined ? 'is required' : typeof tagValue === 'string' ? `"${tagValue}" is not one of the known types` : 'must be a string';
    }
    let field = segments.join('.');
    if (!field) field = part === 'body' ? 'body' : (part ?? 'request');
    if (part === 'headers') field = `header ${field}`;
    return { field, message };
  });
}
