import { Ajv } from 'ajv';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AssignmentView, CreateAssignmentBody, CreatedAssignment } from '../../src/modules/assignments/schemas.js';
import { PartnerTest } from '../../src/modules/catalog/schemas.js';
import { ADMIN_TOKEN, createHarness, type Harness } from '../helpers/harness.js';

/**
 * Both OpenAPI documents: valid OpenAPI 3.1 structure (no full 3.1 validator
 * is installed, so the rules a generated client depends on are checked with
 * ajv below), references that resolve, shared schemas as components, and
 * every status an operation can be made to return, documented.
 */
const P = '/api/partner/v1';
const A = '/api/admin/v1';
type Doc = { openapi: string; info: Record<string, string>; paths: Record<string, Record<string, any>>; components: Record<string, any>; security: unknown };
let h: Harness;
const docs: Record<'partner' | 'admin', Doc> = {} as never;

beforeAll(async () => {
  h = await createHarness();
  for (const [kind, prefix] of [['partner', P], ['admin', A]] as const) {
    const res = await h.app.inject({ method: 'GET', url: `${prefix}/openapi.json` });
    expect(res.statusCode).toBe(200);
    docs[kind] = res.json();
  }
});
afterAll(() => h.close());

const operations = (doc: Doc) => Object.entries(doc.paths).flatMap(([path, ops]) => Object.entries(ops).map(([method, op]) => ({ path, method, op })));

/** Follows `#/components/schemas/…` references (one level at a time, recursively on demand). */
function deref(doc: Doc, schema: any): any {
  if (schema?.$ref) return deref(doc, doc.components.schemas[schema.$ref.replace('#/components/schemas/', '')]);
  return schema;
}

/** The rules of OpenAPI 3.1 that clients and generators rely on, as a JSON Schema. */
const OPENAPI_31 = {
  type: 'object',
  required: ['openapi', 'info', 'paths', 'components', 'security'],
  properties: {
    openapi: { type: 'string', pattern: '^3\\.1\\.\\d+$' },
    info: { type: 'object', required: ['title', 'version', 'description'], properties: { title: { type: 'string', minLength: 1 }, version: { type: 'string' } } },
    servers: { type: 'array', items: { type: 'object', required: ['url'] } },
    security: { type: 'array', minItems: 1 },
    paths: {
      type: 'object',
      propertyNames: { pattern: '^/' },
      additionalProperties: {
        type: 'object',
        propertyNames: { enum: ['get', 'put', 'post', 'delete', 'patch', 'head', 'options'] },
        additionalProperties: { $ref: '#/$defs/operation' },
      },
    },
    components: {
      type: 'object',
      required: ['schemas', 'securitySchemes'],
      properties: {
        schemas: { type: 'object', propertyNames: { pattern: '^[A-Za-z0-9._-]+$' }, additionalProperties: { type: 'object' } },
        securitySchemes: {
          type: 'object',
          minProperties: 1,
          additionalProperties: { type: 'object', required: ['type', 'scheme', 'description'], properties: { type: { const: 'http' }, scheme: { const: 'bearer' } } },
        },
      },
    },
  },
  $defs: {
    operation: {
      type: 'object',
      required: ['operationId', 'summary', 'responses'],
      properties: {
        operationId: { type: 'string', pattern: '^[a-z]+[A-Z][A-Za-z0-9]*$' },
        summary: { type: 'string', minLength: 1 },
        tags: { type: 'array', items: { type: 'string' } },
        parameters: {
          type: 'array',
          items: {
            type: 'object',
            required: ['name', 'in', 'schema'],
            properties: { in: { enum: ['query', 'header', 'path', 'cookie'] }, required: { type: 'boolean' } },
            if: { properties: { in: { const: 'path' } } },
            then: { required: ['required'], properties: { required: { const: true } } },
          },
        },
        requestBody: {
          type: 'object',
          required: ['content', 'required'],
          // JSON, or a file upload (test import: a QTI package or a CSV; an asset: an image).
          properties: {
            content: {
              type: 'object',
              anyOf: [{ required: ['application/json'] }, { required: ['application/zip', 'text/csv'] }, { required: ['image/png', 'image/jpeg', 'image/svg+xml'] }],
              additionalProperties: { type: 'object', required: ['schema'] },
            },
          },
        },
        responses: {
          type: 'object',
          minProperties: 1,
          propertyNames: { pattern: '^[1-5][0-9]{2}$' },
          additionalProperties: {
            type: 'object',
            required: ['description'],
            properties: { description: { type: 'string', minLength: 1 }, content: { type: 'object', additionalProperties: { type: 'object', required: ['schema'] } } },
          },
        },
      },
    },
  },
};

describe.each(['partner', 'admin'] as const)('the %s OpenAPI document', (kind) => {
  const doc = () => docs[kind];

  it('is valid OpenAPI 3.1 in every rule a generated client relies on', () => {
    const validate = new Ajv({ allErrors: true, strict: false }).compile(OPENAPI_31);
    const ok = validate(doc());
    expect(validate.errors ?? [], JSON.stringify(validate.errors?.slice(0, 5))).toEqual([]);
    expect(ok).toBe(true);
  });

  it('gives every operation a unique camelCase verbNoun operationId and declares each path parameter', () => {
    const ids = operations(doc()).map(({ op }) => op.operationId);
    expect(new Set(ids).size).toBe(ids.length);
    for (const { path, method, op } of operations(doc())) {
      for (const [, name] of path.matchAll(/\{(\w+)\}/g)) {
        expect(op.parameters?.some((p: any) => p.in === 'path' && p.name === name && p.required), `${method} ${path} ${name}`).toBe(true);
      }
    }
  });

  it('resolves every reference, and every component is used', () => {
    const text = JSON.stringify(doc());
    const refs = [...text.matchAll(/"\$ref":"([^"]+)"/g)].map((m) => m[1]!);
    expect(refs.length).toBeGreaterThan(0);
    for (const ref of refs) {
      expect(ref, ref).toMatch(/^#\/components\/schemas\//);
      expect(doc().components.schemas[ref.replace('#/components/schemas/', '')], ref).toBeDefined();
    }
    for (const name of Object.keys(doc().components.schemas)) expect(refs, name).toContain(`#/components/schemas/${name}`);
    expect(text).not.toMatch(/def-\d|x-assay-|x-response-description/);
  });

  it('describes every error response with the shared Error component: the envelope', () => {
    const error = doc().components.schemas.Error;
    expect(error.required).toEqual(['error']);
    expect(error.properties.error.required).toEqual(['code', 'message', 'requestId']);
    for (const { path, method, op } of operations(doc())) {
      for (const [status, r] of Object.entries<any>(op.responses)) {
        if (Number(status) < 400) continue;
        expect(r.content['application/json'].schema, `${method} ${path} ${status}`).toEqual({ $ref: '#/components/schemas/Error' });
        expect(r.description).not.toBe('Default Response');
      }
    }
  });

  it('leaves query parameters that have a default optional', () => {
    let seen = 0;
    for (const { op } of operations(doc())) {
      for (const p of op.parameters ?? []) {
        if (p.in === 'query' && p.schema.default !== undefined) {
          seen++;
          expect(p.required, p.name).not.toBe(true);
        }
      }
    }
    expect(seen).toBeGreaterThan(0);
  });

  it('documents every status an operation can be made to return', async () => {
    const token = kind === 'partner' ? h.a.apiKey : ADMIN_TOKEN;
    const send = (method: string, url: string, headers: Record<string, string> = {}, payload?: string | Buffer) =>
      h.app.inject({ method: method.toUpperCase() as 'GET', url, headers, ...(payload !== undefined ? { payload } : {}) });
    const missing: string[] = [];
    for (const { path, method, op } of operations(doc())) {
      const documented = Object.keys(op.responses);
      const auth = { authorization: `Bearer ${token}` };
      const url = (id: string) => path.replace(/\{\w+\}/g, id);
      const probes: Array<[string, Promise<{ statusCode: number }>]> = [
        ['no credentials', send(method, url('x_unknown'))],
        ['an unknown id', send(method, url('x_unknown'), auth)],
      ];
      if (/\{\w+\}/.test(path)) probes.push(['a path id longer than any id', send(method, url('a'.repeat(65)), auth)]);
      if (op.parameters?.some((p: any) => p.in === 'query')) probes.push(['an unknown query parameter', send(method, `${url('x_unknown')}?zzUnknown=1`, auth)]);
      if (op.requestBody) {
        const json = { ...auth, 'content-type': 'application/json' };
        probes.push(['an unknown body field', send(method, url('x_unknown'), json, '{"zzUnknown": 1}')]);
        probes.push(['a body of another type', send(method, url('x_unknown'), { ...auth, 'content-type': 'text/plain' }, 'hello')]);
        probes.push(['a body over the limit', send(method, url('x_unknown'), json, JSON.stringify({ x: 'y'.repeat(70_000) }))]);
      }
      for (const [what, res] of probes) {
        const status = String((await res).statusCode);
        if (!documented.includes(status)) missing.push(`${method.toUpperCase()} ${path}: ${what} gave ${status}`);
      }
      // What no single request provokes on demand, but any can meet: a rate limit, a failure, the database away.
      for (const status of ['429', '500', '503']) if (!documented.includes(status)) missing.push(`${method.toUpperCase()} ${path}: ${status}`);
    }
    expect(missing).toEqual([]);
  });
});

describe('the partner document', () => {
  const doc = () => docs.partner;
  const op = (path: string, method: string) => doc().paths[`${P}${path}`]![method]!;
  const jsonSchema = (o: any, status: string) => deref(doc(), o.responses[status].content['application/json'].schema);

  it('is OpenAPI 3.1, titled and described for partners, with the API key scheme', () => {
    expect(doc().openapi).toBe('3.1.0');
    expect(doc().info.title).toBe('Assay Partner API');
    expect(doc().info.description).toContain('Authorization: Bearer ak_live_');
    expect(doc().components.securitySchemes).toEqual({ apiKey: { type: 'http', scheme: 'bearer', description: expect.stringContaining('ak_live_') } });
    expect(doc().security).toEqual([{ apiKey: [] }]);
  });

  it('lists the partner paths only: the core three are there, no operator path, no hidden route', () => {
    const paths = Object.keys(doc().paths);
    for (const p of paths) expect(p.startsWith(`${P}/`)).toBe(true);
    expect(paths).toEqual(expect.arrayContaining([`${P}/tests`, `${P}/assignments`, `${P}/assignments/{assignmentId}`]));
    const text = JSON.stringify(doc());
    expect(text).not.toContain('/api/admin');
    expect(text).not.toMatch(/ASSAY_ADMIN_TOKEN|AdminTest|correctOptionId|operatorToken/);
    expect(paths).not.toContain(`${P}/openapi.json`);
  });

  it('names the operations as a generated SDK would call them', () => {
    const ids = Object.fromEntries(operations(doc()).map(({ path, method, op }) => [`${method} ${path.replace(P, '')}`, op.operationId]));
    expect(ids).toMatchObject({
      'get /tests': 'listTests',
      'post /assignments': 'createAssignment',
      'get /assignments/{assignmentId}': 'getAssignment',
      'get /events': 'listEvents',
      'get /events/{eventId}': 'getEvent',
      'post /events/{eventId}/redeliver': 'redeliverEvent',
      'post /webhook-endpoints': 'createWebhookEndpoint',
      'get /webhook-endpoints': 'listWebhookEndpoints',
    });
  });

  it('registers the shared schemas as components and refers to them', () => {
    expect(Object.keys(doc().components.schemas)).toEqual(expect.arrayContaining(['Error', 'Score', 'Test', 'Assignment', 'Event', 'WebhookEndpoint']));
    expect(jsonSchema(op('/assignments/{assignmentId}', 'get'), '200').properties.result.properties.score).toEqual({
      anyOf: [{ $ref: '#/components/schemas/Score' }, { type: 'null' }],
    });
    expect(op('/assignments/{assignmentId}', 'get').responses['200'].content['application/json'].schema).toEqual({ $ref: '#/components/schemas/Assignment' });
    expect(deref(doc(), op('/events', 'get').responses['200'].content['application/json'].schema).properties.data.items).toEqual({ $ref: '#/components/schemas/Event' });
  });

  it('webhook endpoint URLs are documented as URIs', () => {
    expect(doc().components.schemas.CreateWebhookEndpoint.properties.url.format).toBe('uri');
    expect(doc().components.schemas.WebhookEndpoint.properties.url.format).toBe('uri');
  });

  it('documents the redeliver body as optional, and the creation bodies as required', () => {
    expect(op('/events/{eventId}/redeliver', 'post').requestBody.required).toBe(false);
    expect(op('/assignments', 'post').requestBody.required).toBe(true);
  });

  it('is generated from the route schemas: request and response fields match the code and the spec', () => {
    const create = op('/assignments', 'post');
    const body = deref(doc(), create.requestBody.content['application/json'].schema);
    expect(Object.keys(body.properties).sort()).toEqual(Object.keys(CreateAssignmentBody.properties).sort());
    expect(Object.keys(body.properties).sort()).toEqual(['accommodations', 'callbackUrl', 'dueAt', 'externalUserId', 'locale', 'metadata', 'testId', 'user']);
    expect([...body.required].sort()).toEqual(['callbackUrl', 'externalUserId', 'testId', 'user']);
    expect(body.additionalProperties).toBe(false);
    expect(body.properties.externalUserId.maxLength).toBe(128);
    expect(create.parameters.find((p: any) => p.in === 'header' && p.name === 'idempotency-key')?.schema.maxLength).toBe(255);
    expect(Object.keys(create.responses).sort()).toEqual(['201', '400', '401', '403', '408', '409', '413', '415', '422', '429', '431', '500', '503']);
    expect(Object.keys(jsonSchema(create, '201').properties).sort()).toEqual(Object.keys(CreatedAssignment.properties).sort());

    const read = op('/assignments/{assignmentId}', 'get');
    expect(Object.keys(jsonSchema(read, '200').properties).sort()).toEqual(Object.keys(AssignmentView.properties).sort());
    expect(Object.keys(read.responses).sort()).toEqual(['200', '400', '401', '403', '404', '408', '429', '431', '500', '503']);

    const list = op('/tests', 'get');
    const item = deref(doc(), jsonSchema(list, '200').properties.data.items);
    expect(Object.keys(item.properties).sort()).toEqual(Object.keys(PartnerTest.properties).sort());
    const q = Object.fromEntries(list.parameters.filter((p: any) => p.in === 'query').map((p: any) => [p.name, p]));
    expect(q.limit).toMatchObject({ required: false, schema: { minimum: 1, maximum: 100, default: 20 } });
    expect(q.offset).toMatchObject({ required: false, schema: { minimum: 0, default: 0 } });
  });

  it('documents the assignment controls: operationIds, bodies, the Assignment answer, cancelled and the new event types', async () => {
    const update = op('/assignments/{assignmentId}', 'patch');
    expect(update.operationId).toBe('updateAssignment');
    expect(Object.keys(deref(doc(), update.requestBody.content['application/json'].schema).properties).sort()).toEqual(['accommodations', 'dueAt']);
    expect(update.parameters.some((p: any) => p.in === 'header' && p.name === 'idempotency-key')).toBe(true);
    expect(Object.keys(update.responses)).toEqual(expect.arrayContaining(['200', '400', '404', '409', '422']));
    expect(op('/assignments/{assignmentId}/cancel', 'post').operationId).toBe('cancelAssignment');
    expect(op('/assignments/{assignmentId}/start-link', 'post').operationId).toBe('reissueStartLink');
    for (const [path, method] of [['/assignments/{assignmentId}', 'patch'], ['/assignments/{assignmentId}/cancel', 'post'], ['/assignments/{assignmentId}/start-link', 'post']] as const) {
      const answer = jsonSchema(op(path, method), '200');
      expect(Object.keys(answer.properties).sort()).toEqual(Object.keys(AssignmentView.properties).sort());
      expect(op(path, method).responses['409']).toBeDefined();
    }

    const read = jsonSchema(op('/assignments/{assignmentId}', 'get'), '200');
    expect(deref(doc(), read.properties.status).enum).toEqual(['assigned', 'started', 'submitted', 'marking', 'completed', 'expired', 'cancelled']);
    expect(doc().components.schemas.Accommodations.properties).toHaveProperty('extraTimePercent');
    expect(read.properties).toHaveProperty('cancelledAt');
    const createBody = deref(doc(), op('/assignments', 'post').requestBody.content['application/json'].schema);
    expect(deref(doc(), createBody.properties.accommodations).properties.extraTimePercent).toMatchObject({ minimum: 0, maximum: 400 });
    expect(deref(doc(), createBody.properties.accommodations).properties.extraTimeMinutes).toMatchObject({ minimum: 0, maximum: 1440 });

    const text = JSON.stringify(doc());
    const typeFilter = op('/events', 'get').parameters.find((p: any) => p.name === 'type');
    expect(JSON.stringify(typeFilter)).toContain('assignment.updated');
    expect(JSON.stringify(typeFilter)).toContain('assignment.cancelled');
    const subscribe = JSON.stringify(deref(doc(), op('/webhook-endpoints', 'post').requestBody.content['application/json'].schema).properties.eventTypes);
    expect(subscribe).toContain('assignment.updated');
    expect(subscribe).toContain('assignment.cancelled');
    expect(text).toContain('AssignmentChanges');

    const admin = (await h.app.inject({ method: 'GET', url: '/api/admin/v1/openapi.json' })).json() as Doc;
    expect(admin.paths['/api/admin/v1/assignments/{assignmentId}']!.patch.operationId).toBe('operatorUpdateAssignment');
    expect(admin.paths['/api/admin/v1/assignments/{assignmentId}/cancel']!.post.operationId).toBe('operatorCancelAssignment');
    expect(admin.paths['/api/admin/v1/assignments/{assignmentId}/start-link']!.post.operationId).toBe('operatorReissueStartLink');
    expect(admin.paths['/api/admin/v1/institutions/{institutionId}/settings']!.patch.operationId).toBe('updateInstitutionSettings');
  });

  it('the human docs page at /docs serves HTML built on the same partner-only document', async () => {
    const page = await h.app.inject({ method: 'GET', url: '/docs' });
    expect(page.statusCode).toBe(200);
    expect(page.headers['content-type']).toMatch(/^text\/html/);
    const json = await h.app.inject({ method: 'GET', url: '/docs/json' });
    expect(json.statusCode).toBe(200);
    expect(json.json()).toEqual(doc());
  });
});

describe('the operator document', () => {
  const doc = () => docs.admin;

  it('has only operator paths, its own title, description and security text', () => {
    const paths = Object.keys(doc().paths);
    for (const p of paths) expect(p.startsWith(`${A}/`)).toBe(true);
    expect(paths).toEqual(expect.arrayContaining([`${A}/institutions`, `${A}/tests`]));
    expect(doc().info.title).toBe('Assay Operator API');
    expect(doc().info.description).toContain('Authorization: Bearer $ASSAY_ADMIN_TOKEN');
    expect(doc().components.securitySchemes).toEqual({ operatorToken: { type: 'http', scheme: 'bearer', description: expect.stringContaining('$ASSAY_ADMIN_TOKEN') } });
    expect(doc().security).toEqual([{ operatorToken: [] }]);
    expect(JSON.stringify(doc())).not.toMatch(/ak_live_|\/api\/partner/);
  });

  it('documents the create-key body as optional', () => {
    expect(doc().paths[`${A}/institutions/{institutionId}/api-keys`]!.post.requestBody.required).toBe(false);
  });
});
