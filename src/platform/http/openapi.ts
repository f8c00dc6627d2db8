import type { RouteOptions } from 'fastify';
import { errorResponse, NoBody } from './schemas.js';
import { isOptionalSchema } from './validation.js';

/**
 * The two OpenAPI 3.1 documents (partner, operator), generated from the
 * route schemas by @fastify/swagger and finished here:
 * - every route documents each error status it can return: the ones any
 *   route of its API can (authentication, rate limits, server and database
 *   failures), the ones its request parts can (a path id too long or not
 *   found, a query or body refused, a body too large or of another type),
 *   added when the route is registered, beside the business errors the
 *   route lists itself; and what any request can meet before a route is
 *   chosen (400, 408, 431 from Node's HTTP parser);
 * - a POST, PUT, PATCH or DELETE that takes no body declares an empty one
 *   (none, or `{}`: NoBody), so a body with fields is refused as any unknown
 *   field is, and its 400/413/415 are documented like every other body's
 *   (docs/api-rules.md "What every operation documents");
 * - a query parameter with a default is optional, as it is at run time;
 * - a body declared optional is `requestBody.required: false`;
 * - every schema with a title becomes one component (`#/components/schemas/Score`)
 *   referenced wherever it is used, and only what a document uses is in it;
 * - each document has its own title, description and security scheme.
 */
export type ApiKind = 'partner' | 'admin';

const OPTIONAL_BODY = 'x-assay-optional-body';

/**
 * The error statuses any route of `kind` can return. 400, 408 and 431 come from
 * Node's HTTP parser (client-errors.ts) before any route is chosen: a request
 * it cannot parse, one too slow to arrive, headers over 16 KB.
 */
const ANY_REQUEST = [400, 408, 431];
const BY_API: Record<ApiKind, number[]> = {
  // 403: suspended institution; 429: the key's bucket, or the address's allowance of failed authentications.
  partner: [...ANY_REQUEST, 401, 403, 429, 500, 503],
  admin: [...ANY_REQUEST, 401, 429, 500, 503],
};
/** Methods whose requests Fastify reads a body for. */
const BODY_METHODS = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

export function apiOf(url: string, prefixes: Record<ApiKind, string>): ApiKind | null {
  if (url.startsWith(`${prefixes.partner}/`)) return 'partner';
  if (url.startsWith(`${prefixes.admin}/`)) return 'admin';
  return null;
}

/** onRoute hook: adds the error responses a route's API and request parts make possible. */
export function documentRouteErrors(route: RouteOptions, kind: ApiKind): void {
  const schema = (route.schema ??= {}) as Record<string, unknown> & { response?: Record<string, unknown> };
  if (schema.hide) return;
  const methods = [route.method].flat().map((m) => String(m).toUpperCase());
  // A route that `consumes` other types (an image upload) reads its body itself; the rest take JSON or nothing.
  if (!schema.body && !schema.consumes && methods.some((m) => BODY_METHODS.has(m))) schema.body = NoBody;
  const statuses = new Set(BY_API[kind]);
  // A path id is checked for length (and the router's own limit) before the lookup: 400, then 404.
  if (schema.params) [400, 404].forEach((s) => statuses.add(s));
  if (schema.querystring || schema.headers) statuses.add(400);
  if (schema.body) [400, 413, 415].forEach((s) => statuses.add(s));
  const response = (schema.response ??= {});
  for (const status of statuses) response[status] ??= errorResponse(status);
  if (schema.body && isOptionalSchema(schema.body)) schema[OPTIONAL_BODY] = true;
}

type Json = Record<string, any>;

const INFO: Record<ApiKind, { title: string; description: string; scheme: string; security: Json }> = {
  partner: {
    title: 'Assay Partner API',
    description:
      'Assign tests to your users, send them in with a signed start link, and read back status and results; ' +
      'receive events as signed webhooks or read them from the events list. ' +
      'Authenticate every request with your API key: `Authorization: Bearer ak_live_…`. ' +
      'A test-mode key (`ak_test_…`) works on a separate sandbox of your institution (assignments, events and webhook endpoints with `livemode: false`) ' +
      'and can simulate the student\'s and the reviewer\'s steps (`simulateAssignment`). ' +
      'Every error has the body `{ "error": { "code", "message", "requestId", "details?" } }`.',
    scheme: 'apiKey',
    security: { type: 'http', scheme: 'bearer', description: 'Your API key: `Authorization: Bearer ak_live_…` (or `ak_test_…` in test mode)' },
  },
  admin: {
    title: 'Assay Operator API',
    description:
      'Operate Assay: institutions, their callback domains and API keys, tests and where they are published, ' +
      'reviewers\' marking, and every institution\'s webhook endpoints. The same actions exist as `assay` CLI commands. ' +
      'Authenticate with the operator token: `Authorization: Bearer $ASSAY_ADMIN_TOKEN`. ' +
      'Every error has the body `{ "error": { "code", "message", "requestId", "details?" } }`. ' +
      'The Partner API reference is at [/docs](/docs).',
    scheme: 'operatorToken',
    security: { type: 'http', scheme: 'bearer', description: 'The operator token: `Authorization: Bearer $ASSAY_ADMIN_TOKEN`' },
  },
};

/** The document of one API, from @fastify/swagger's document of the whole app. */
export function openApiDocument(spec: Json, kind: ApiKind, prefix: string): Json {
  const info = INFO[kind];
  const paths: Json = structuredClone(Object.fromEntries(Object.entries<Json>(spec.paths ?? {}).filter(([p]) => p.startsWith(`${prefix}/`))));
  for (const ops of Object.values<Json>(paths)) {
    for (const op of Object.values<Json>(ops)) finishOperation(op);
  }
  const components: Json = {};
  const hoisted = hoistTitled(paths, components);
  return {
    openapi: spec.openapi,
    info: { ...spec.info, title: info.title, description: info.description },
    servers: spec.servers,
    security: [{ [info.scheme]: [] }],
    paths: hoisted,
    components: { securitySchemes: { [info.scheme]: info.security }, schemas: components },
  };
}

function finishOperation(op: Json): void {
  for (const p of op.parameters ?? []) {
    // A default makes a query parameter optional: the server fills it in (as it does at run time).
    if (p.in === 'query' && p.schema?.default !== undefined) p.required = false;
  }
  if (op[OPTIONAL_BODY]) {
    if (op.requestBody) op.requestBody.required = false;
    delete op[OPTIONAL_BODY];
  }
}

const canonical = (v: unknown): string =>
  JSON.stringify(v, (_k, value) =>
    value && typeof value === 'object' && !Array.isArray(value)
      ? Object.fromEntries(Object.entries(value).filter(([k]) => k !== 'description').sort(([a], [b]) => (a < b ? -1 : 1)))
      : value,
  );

/**
 * Replaces every schema with a `title` by a reference to the component of
 * that name (innermost first, so components reference each other). A
 * nullable use (`type: [T, "null"]`) becomes `anyOf: [ref, null]`. Two
 * different schemas under one title are a mistake in the route schemas.
 */
function hoistTitled(root: Json, components: Json): Json {
  const visit = (node: unknown): unknown => {
    if (Array.isArray(node)) return node.map(visit);
    if (!node || typeof node !== 'object') return node;
    const n = Object.fromEntries(Object.entries(node as Json).map(([k, v]) => [k, visit(v)])) as Json;
    if (typeof n.title !== 'string' || (n.type === undefined && n.oneOf === undefined && n.anyOf === undefined)) return n;
    const nullable = Array.isArray(n.type) && n.type.includes('null') && n.type.length === 2;
    const plain: Json = nullable ? { ...n, type: n.type.find((t: string) => t !== 'null') } : n;
    const name = n.title as string;
    const existing = components[name];
    if (existing === undefined) components[name] = plain;
    else if (canonical(existing) !== canonical(plain)) throw new Error(`OpenAPI: two different schemas are titled "${name}"`);
    const ref: Json = { $ref: `#/components/schemas/${name}` };
    if (plain.description !== undefined && plain.description !== components[name].description) ref.description = plain.description;
    return nullable ? { anyOf: [ref, { type: 'null' }] } : ref;
  };
  return visit(root) as Json;
}
