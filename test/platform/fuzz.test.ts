import fc from 'fast-check';
import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { assignmentBody, createHarness, type Harness } from '../helpers/harness.js';

/**
 * Property tests: generated malformed bodies, query strings, path ids and
 * headers sent to every partner route of the OpenAPI document. Whatever
 * arrives, the answer is never a 5xx, and every refusal is the error
 * envelope with the request id of the X-Request-Id header.
 */
const P = '/api/partner/v1';
let h: Harness;
let routes: Array<{ method: string; path: string }>;
let realIds: Record<string, string>;

beforeAll(async () => {
  h = await createHarness();
  const doc = (await h.app.inject({ method: 'GET', url: `${P}/openapi.json` })).json() as { paths: Record<string, Record<string, unknown>> };
  routes = Object.entries(doc.paths).flatMap(([path, ops]) => Object.keys(ops).map((m) => ({ method: m.toUpperCase(), path })));
  const created = await h.partner(h.a, 'POST', `${P}/assignments`, assignmentBody(h.a));
  realIds = { assignmentId: created.json().assignmentId };
}, 60_000);
afterAll(() => h.close());

const failures: string[] = [];

function check(res: LightMyRequestResponse, what: string): void {
  const problem = (() => {
    if (res.statusCode >= 500) return `status ${res.statusCode}: ${res.body.slice(0, 300)}`;
    const id = res.headers['x-request-id'];
    if (typeof id !== 'string' || !id.startsWith('req_')) return 'no X-Request-Id';
    if (res.statusCode < 400) return null;
    let body: { error?: { code?: unknown; message?: unknown; requestId?: unknown } };
    try {
      body = res.json();
    } catch {
      return `status ${res.statusCode} with a non-JSON body: ${res.body.slice(0, 200)}`;
    }
    const e = body.error;
    if (!e || typeof e.code !== 'string' || typeof e.message !== 'string') return `no envelope: ${res.body.slice(0, 200)}`;
    if (e.requestId !== id) return 'error.requestId differs from X-Request-Id';
    return null;
  })();
  if (problem) failures.push(`${what} → ${problem}`);
  expect(problem, what).toBeNull();
}

/** Strings that include NUL, lone surrogates, astral characters and control characters. */
const nastyString = fc.oneof(
  fc.string({ unit: 'binary', maxLength: 40 }),
  fc.string({ unit: fc.integer({ min: 0, max: 0xffff }).map((c) => String.fromCharCode(c)), maxLength: 20 }),
  fc.constantFrom('\u0000', '\ud800', 'a\udc00b', '%', '%zz', '../..', '<script>', "' OR 1=1 --", '𝒜🎓', '\u202e', ' ', '__proto__', 'constructor'),
);

const hugeString = fc.integer({ min: 1_000, max: 80_000 }).map((n) => 'x'.repeat(n));

/** Nested arrays/objects up to a depth far past any sane document (and past JSON.stringify's stack). */
const deepJson = fc.tuple(fc.integer({ min: 50, max: 32_000 }), fc.boolean()).map(([depth, arrays]) =>
  arrays ? `${'['.repeat(depth)}${']'.repeat(depth)}` : `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`,
);

const jsonish = fc.oneof(
  { weight: 3, arbitrary: fc.jsonValue({ maxDepth: 4 }) },
  { weight: 1, arbitrary: nastyString },
  { weight: 1, arbitrary: fc.constantFrom(null, true, 0, -1, 1e308, [], {}) },
);

/** A valid creation body with one field replaced, dropped, or an unknown one added. */
const mutatedAssignment = fc
  .tuple(
    fc.constantFrom('externalUserId', 'testId', 'user', 'callbackUrl', 'dueAt', 'metadata', 'unknownField', 'user.email', 'user.name'),
    fc.oneof(jsonish, hugeString, fc.constant(undefined)),
  )
  .map(([field, value]) => {
    const body: Record<string, any> = assignmentBody(h.a);
    if (field.startsWith('user.')) body.user = { ...body.user, [field.slice(5)]: value };
    else body[field] = value;
    return JSON.stringify(body);
  });

/** A valid creation body whose metadata is a generated object: nasty keys and values, deep nesting. */
const metadataAssignment = fc
  .oneof(
    fc.dictionary(nastyString, jsonish, { maxKeys: 4 }).map((m) => JSON.stringify(m)),
    deepJson.map((d) => `{"deep":${d}}`),
  )
  .map((metadata) => JSON.stringify(assignmentBody(h.a)).replace(/}$/, `,"metadata":${metadata}}`));

/** Plausible timestamps and near-misses for dueAt. */
const dueAtAssignment = fc
  .oneof(
    fc.date({ min: new Date('0001-01-01T00:00:00Z'), max: new Date('9999-12-31T23:59:59Z'), noInvalidDate: true }).map((d) => d.toISOString()),
    fc.constantFrom('2031-06-30T23:59:60Z', '2031-02-29T00:00:00Z', '2032-02-29T00:00:00Z', '+275760-09-13T00:00:00Z', '2031-01-01T00:00:00+24:00', '2031-01-01t00:00:00z'),
    nastyString,
  )
  .map((dueAt) => JSON.stringify(assignmentBody(h.a, { dueAt })));

const rawBody = fc.oneof(
  { weight: 3, arbitrary: jsonish.map((v) => JSON.stringify(v) ?? 'undefined') },
  { weight: 3, arbitrary: mutatedAssignment },
  { weight: 1, arbitrary: deepJson.map((d) => `{"metadata":{"x":${d}},"externalUserId":"u"}`) },
  { weight: 1, arbitrary: deepJson },
  { weight: 1, arbitrary: fc.string({ maxLength: 200 }) },
  { weight: 1, arbitrary: hugeString.map((s) => JSON.stringify({ externalUserId: s })) },
  { weight: 1, arbitrary: fc.jsonValue().map((v) => JSON.stringify(v).slice(0, -1)) },
);

const contentType = fc.constantFrom(
  'application/json',
  'application/json',
  'application/json; charset=utf-8',
  'application/json; charset=latin1',
  'application/json; charset=utf-16',
  'text/plain',
  'application/x-www-form-urlencoded',
  'multipart/form-data; boundary=xyz',
  'application/xml',
  '',
  'application/json, text/plain',
  '*/*',
);

/** Percent-encodes anything; a lone surrogate becomes its (invalid) three UTF-8-style bytes. */
function encodeAny(text: string): string {
  try {
    return encodeURIComponent(text);
  } catch {
    return Array.from(text, (ch) => {
      const c = ch.charCodeAt(0);
      if (ch.length === 1 && c >= 0xd800 && c <= 0xdfff) {
        return [0xe0 | (c >> 12), 0x80 | ((c >> 6) & 0x3f), 0x80 | (c & 0x3f)].map((b) => `%${b.toString(16).toUpperCase()}`).join('');
      }
      return encodeURIComponent(ch);
    }).join('');
  }
}

function fillPath(path: string, id: string): string {
  return path.replace(/\{(\w+)\}/g, (_m, name: string) => (id === 'real' ? (realIds[name] ?? 'x') : id));
}

const encodedId = fc.oneof(
  fc.constant('real'),
  nastyString.map((s) => encodeAny(s) || 'x'),
  fc.constantFrom('%', '%E0%A4%A', '%00', 'a'.repeat(101), 'a'.repeat(5000), '..', '%2e%2e', 'asg_%2F..'),
);

const queryString = fc.oneof(
  fc
    .array(fc.tuple(fc.oneof(fc.constantFrom('limit', 'offset', 'type', 'startingAfter', 'assignmentId', '__proto__'), nastyString), fc.oneof(nastyString, fc.integer().map(String))), {
      maxLength: 5,
    })
    .map((pairs) => pairs.map(([k, v]) => `${encodeAny(k)}=${encodeAny(v)}`).join('&')),
  fc.string({ maxLength: 60 }).map((s) => s.replace(/[#\s]/g, '')),
  fc.constantFrom('limit=1e400', 'limit=0x10', 'limit[]=1', 'limit=1&limit=2', 'offset=99999999999999999999', '&&&', '=', 'a=%', '%%%'),
);

const routeArb = () => fc.constantFrom(...routes);

async function send(route: { method: string; path: string }, opts: { id?: string; query?: string; body?: string; type?: string; headers?: Record<string, string> }) {
  const url = `${fillPath(route.path, opts.id ?? 'real')}${opts.query !== undefined ? `?${opts.query}` : ''}`;
  const headers: Record<string, string> = { authorization: `Bearer ${h.a.apiKey}`, ...opts.headers };
  if (opts.type) headers['content-type'] = opts.type;
  const res = await h.app.inject({
    method: route.method as 'GET',
    url,
    headers,
    ...(opts.body !== undefined && !['GET', 'DELETE'].includes(route.method) ? { payload: opts.body } : {}),
  });
  return { res, what: `${route.method} ${url.slice(0, 200)} type=${opts.type ?? '-'} body=${(opts.body ?? '').slice(0, 120)}` };
}

describe('fuzzing every partner route', () => {
  it('routes come from the OpenAPI document', () => {
    expect(routes.length).toBeGreaterThanOrEqual(3);
  });

  it('malformed bodies and content types never give a 5xx, and every refusal is the envelope (300 runs)', async () => {
    await fc.assert(
      fc.asyncProperty(routeArb(), rawBody, contentType, async (route, body, type) => {
        const { res, what } = await send(route, { body, type });
        check(res, what);
      }),
      { numRuns: 300 },
    );
  });

  it('generated creation bodies (fields of any type, nasty text, deep metadata, odd dueAt) never give a 5xx (250 runs)', async () => {
    const route = { method: 'POST', path: `${P}/assignments` };
    const key = fc.option(fc.string({ unit: 'grapheme-ascii', minLength: 1, maxLength: 12 }).map((k) => `fuzz-${k}`), { nil: undefined });
    await fc.assert(
      fc.asyncProperty(fc.oneof(mutatedAssignment, metadataAssignment, dueAtAssignment), key, async (body, idempotencyKey) => {
        const headers: Record<string, string> = idempotencyKey ? { 'idempotency-key': idempotencyKey } : {};
        const { res, what } = await send(route, { body, type: 'application/json', headers });
        check(res, what);
      }),
      { numRuns: 250 },
    );
  });

  it('generated query strings never give a 5xx (250 runs)', async () => {
    await fc.assert(
      fc.asyncProperty(routeArb(), queryString, async (route, query) => {
        const { res, what } = await send(route, { query, ...(route.method === 'GET' ? {} : { body: '{}', type: 'application/json' }) });
        check(res, what);
      }),
      { numRuns: 250 },
    );
  });

  it('generated path ids never give a 5xx, and an id that is not ours is 404 or 400 (150 runs)', async () => {
    const withParams = () => fc.constantFrom(...routes.filter((r) => r.path.includes('{')));
    await fc.assert(
      fc.asyncProperty(withParams(), encodedId, async (route, id) => {
        const { res, what } = await send(route, { id, ...(route.method === 'GET' || route.method === 'DELETE' ? {} : { body: '{}', type: 'application/json' }) });
        check(res, what);
        if (id !== 'real') expect([400, 404], what).toContain(res.statusCode);
      }),
      { numRuns: 150 },
    );
  });

  it('generated Idempotency-Key and Authorization headers never give a 5xx (150 runs)', async () => {
    const headerValue = fc.string({ unit: fc.integer({ min: 0x20, max: 0xff }).map((c) => String.fromCharCode(c)), maxLength: 300 });
    await fc.assert(
      fc.asyncProperty(headerValue, fc.boolean(), async (value, asAuth) => {
        const route = { method: 'POST', path: `${P}/assignments` };
        const headers: Record<string, string> = asAuth ? { authorization: value } : { 'idempotency-key': value };
        const { res, what } = await send(route, { body: JSON.stringify(assignmentBody(h.a)), type: 'application/json', headers });
        check(res, `${what} header=${JSON.stringify(value).slice(0, 80)}`);
      }),
      { numRuns: 150 },
    );
  });

  it('no generated request above failed', () => {
    expect(failures).toEqual([]);
  });
});
