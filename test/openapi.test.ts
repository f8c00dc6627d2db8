import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AssignmentView, CreateAssignmentBody, CreatedAssignment } from '../src/modules/assignments/schemas.js';
import { PartnerTest } from '../src/modules/tests/schemas.js';
import { createHarness, type Harness } from './helpers/harness.js';

const P = '/api/partner/v1';
type Doc = { openapi: string; info: { title: string }; paths: Record<string, Record<string, any>>; components: Record<string, any> };
let h: Harness;
let doc: Doc;

beforeAll(async () => {
  h = await createHarness();
  const res = await h.app.inject({ method: 'GET', url: `${P}/openapi.json` });
  expect(res.statusCode).toBe(200);
  doc = res.json();
});
afterAll(() => h.close());

const op = (path: string, method: string) => doc.paths[`${P}${path}`]![method]!;
const jsonSchema = (o: any, status: string) => o.responses[status].content['application/json'].schema;

describe('OpenAPI document', () => {
  it('is OpenAPI 3.1, served without authentication, titled for partners', () => {
    expect(doc.openapi).toBe('3.1.0');
    expect(doc.info.title).toBe('Assay Partner API');
  });

  it('lists the partner paths only: the core three are there, no operator path, no hidden route', () => {
    const paths = Object.keys(doc.paths);
    for (const p of paths) expect(p.startsWith(`${P}/`)).toBe(true);
    expect(paths).toEqual(expect.arrayContaining([`${P}/tests`, `${P}/assignments`, `${P}/assignments/{assignmentId}`]));
    const text = JSON.stringify(doc);
    expect(text).not.toContain('/api/admin');
    expect(text).not.toMatch(/ASSAY_ADMIN_TOKEN|AdminTest|correctOptionId/);
    expect(paths).not.toContain(`${P}/openapi.json`);
  });

  it('documents bearer authentication for every operation', () => {
    expect(doc.components.securitySchemes).toMatchObject({ apiKey: { type: 'http', scheme: 'bearer' } });
    expect((doc as any).security).toEqual([{ apiKey: [] }]);
  });

  it('every operation has a success response, a 401 and a summary, and declares each path parameter', () => {
    for (const [path, ops] of Object.entries(doc.paths)) {
      for (const [method, o] of Object.entries(ops)) {
        const statuses = Object.keys(o.responses);
        expect(statuses.some((s) => s.startsWith('2')), `${method} ${path}`).toBe(true);
        expect(statuses, `${method} ${path}`).toContain('401');
        expect(o.summary, `${method} ${path}`).toMatch(/\S/);
        for (const [, name] of path.matchAll(/\{(\w+)\}/g)) {
          expect(o.parameters?.some((p: any) => p.in === 'path' && p.name === name && p.required), `${method} ${path} ${name}`).toBe(true);
        }
      }
    }
  });

  it('describes every error response with the error envelope', () => {
    for (const ops of Object.values(doc.paths)) {
      for (const o of Object.values(ops)) {
        for (const [status, r] of Object.entries<any>(o.responses)) {
          if (Number(status) < 400) continue;
          const s = r.content['application/json'].schema;
          expect(s.required).toEqual(['error']);
          expect(s.properties.error.required).toEqual(['code', 'message', 'requestId']);
        }
      }
    }
  });

  it('is generated from the route schemas: request and response fields match the code and the spec', () => {
    const create = op('/assignments', 'post');
    const body = create.requestBody.content['application/json'].schema;
    expect(Object.keys(body.properties).sort()).toEqual(Object.keys(CreateAssignmentBody.properties).sort());
    expect(Object.keys(body.properties).sort()).toEqual(['accommodations', 'callbackUrl', 'dueAt', 'externalUserId', 'metadata', 'testId', 'user']);
    expect(body.required.sort()).toEqual(['callbackUrl', 'externalUserId', 'testId', 'user']);
    expect(body.additionalProperties).toBe(false);
    expect(body.properties.externalUserId.maxLength).toBe(128);
    expect(create.parameters.find((p: any) => p.in === 'header' && p.name === 'idempotency-key')?.schema.maxLength).toBe(255);
    expect(Object.keys(create.responses).sort()).toEqual(['201', '400', '401', '403', '409', '413', '415', '422', '429', '500', '503']);
    expect(Object.keys(jsonSchema(create, '201').properties).sort()).toEqual(Object.keys(CreatedAssignment.properties).sort());

    const read = op('/assignments/{assignmentId}', 'get');
    expect(Object.keys(jsonSchema(read, '200').properties).sort()).toEqual(Object.keys(AssignmentView.properties).sort());
    expect(read.responses['404']).toBeDefined();

    const list = op('/tests', 'get');
    const item = jsonSchema(list, '200').properties.data.items;
    expect(Object.keys(item.properties).sort()).toEqual(Object.keys(PartnerTest.properties).sort());
    const q = Object.fromEntries(list.parameters.filter((p: any) => p.in === 'query').map((p: any) => [p.name, p.schema]));
    expect(q.limit).toMatchObject({ minimum: 1, maximum: 100, default: 20 });
    expect(q.offset).toMatchObject({ minimum: 0, default: 0 });
  });

  it('documents the assignment controls: operationIds, bodies, the Assignment answer, cancelled and the new event types', async () => {
    const update = op('/assignments/{assignmentId}', 'patch');
    expect(update.operationId).toBe('updateAssignment');
    expect(Object.keys(update.requestBody.content['application/json'].schema.properties).sort()).toEqual(['accommodations', 'dueAt']);
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
    expect(read.properties.status.enum).toEqual(['assigned', 'started', 'submitted', 'marking', 'completed', 'expired', 'cancelled']);
    expect(read.properties.accommodations.properties).toHaveProperty('extraTimePercent');
    expect(read.properties).toHaveProperty('cancelledAt');
    const createBody = op('/assignments', 'post').requestBody.content['application/json'].schema;
    expect(createBody.properties.accommodations.properties.extraTimePercent).toMatchObject({ minimum: 0, maximum: 400 });
    expect(createBody.properties.accommodations.properties.extraTimeMinutes).toMatchObject({ minimum: 0, maximum: 1440 });

    const text = JSON.stringify(doc);
    const typeFilter = op('/events', 'get').parameters.find((p: any) => p.name === 'type');
    expect(JSON.stringify(typeFilter)).toContain('assignment.updated');
    expect(JSON.stringify(typeFilter)).toContain('assignment.cancelled');
    const subscribe = JSON.stringify(op('/webhook-endpoints', 'post').requestBody.content['application/json'].schema.properties.eventTypes);
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
    expect(Object.keys(json.json().paths).sort()).toEqual(Object.keys(doc.paths).sort());
  });

  it('the operator API has its own document with only operator paths', async () => {
    const admin = (await h.app.inject({ method: 'GET', url: '/api/admin/v1/openapi.json' })).json() as Doc;
    const paths = Object.keys(admin.paths);
    expect(paths.length).toBeGreaterThan(0);
    for (const p of paths) expect(p.startsWith('/api/admin/v1/')).toBe(true);
    expect(paths).toEqual(expect.arrayContaining(['/api/admin/v1/institutions', '/api/admin/v1/tests']));
  });
});
