import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectError } from '../helpers/expect-error.js';
import { AUTO_TEST, assignmentBody, createHarness, type Harness } from '../helpers/harness.js';
import { proctoredTest } from '../helpers/proctoring.js';

/**
 * Issue 20, item 4: rules once stated only in prose are in the schemas (so in
 * the OpenAPI documents), with the same errors for clients as before; and an
 * operator's test read can be written back unchanged.
 */
const P = '/api/partner/v1';
const A = '/api/admin/v1';
let h: Harness;
const docs: Record<string, any> = {};

beforeAll(async () => {
  h = await createHarness();
  for (const [kind, prefix] of [['partner', P], ['admin', A]] as const) docs[kind] = (await h.app.inject({ method: 'GET', url: `${prefix}/openapi.json` })).json();
});
afterAll(() => h.close());

const component = (kind: string, name: string) => docs[kind].components.schemas[name];
const bodyOf = (kind: string, path: string, method: string) => {
  const schema = docs[kind].paths[path][method].requestBody?.content['application/json'].schema;
  return schema?.$ref ? component(kind, schema.$ref.split('/').pop()) : schema;
};
const detailFields = (res: { json(): any }) => (res.json().error.details as Array<{ field: string }>).map((d) => d.field).sort();

describe('PATCH /assignments/{id}', () => {
  it('the schema says a change needs at least one field; {} is refused with the same details as before', async () => {
    for (const kind of ['partner', 'admin']) expect(bodyOf(kind, `${kind === 'partner' ? P : A}/assignments/{assignmentId}`, 'patch').minProperties).toBe(1);
    const a = (await h.partner(h.a, 'POST', `${P}/assignments`, assignmentBody(h.a, { externalUserId: 'patch-empty' }))).json();
    const res = await h.partner(h.a, 'PATCH', `${P}/assignments/${a.assignmentId}`, {});
    const body = expectError(res, 400, 'invalid_request');
    expect(body.error.details).toEqual([{ field: 'body', message: 'must contain dueAt or accommodations' }]);
  });
});

describe('the two kinds of extra time', () => {
  it('the Accommodations schema refuses both together (not: required both)', () => {
    for (const kind of ['partner', 'admin']) {
      expect(component(kind, 'Accommodations').not).toEqual({ required: ['extraTimePercent', 'extraTimeMinutes'] });
    }
  });

  it('on create and on PATCH: 400 naming both fields, nothing created or changed', async () => {
    const before = (await h.pool.query('SELECT count(*)::int AS n FROM assignments')).rows[0].n;
    const both = { extraTimePercent: 10, extraTimeMinutes: 5 };
    const created = await h.partner(h.a, 'POST', `${P}/assignments`, assignmentBody(h.a, { externalUserId: 'both-1', accommodations: both }));
    const e = expectError(created, 400, 'invalid_request');
    expect(detailFields(created)).toEqual(['accommodations.extraTimeMinutes', 'accommodations.extraTimePercent']);
    expect(e.error.details!.every((d) => d.message === 'give extraTimePercent or extraTimeMinutes, not both')).toBe(true);
    expect((await h.pool.query('SELECT count(*)::int AS n FROM assignments')).rows[0].n).toBe(before);
    const a = (await h.partner(h.a, 'POST', `${P}/assignments`, assignmentBody(h.a, { externalUserId: 'both-2', accommodations: { extraTimeMinutes: 5 } }))).json();
    const patched = await h.partner(h.a, 'PATCH', `${P}/assignments/${a.assignmentId}`, { accommodations: both });
    expectError(patched, 400, 'invalid_request');
    expect(detailFields(patched)).toEqual(['accommodations.extraTimeMinutes', 'accommodations.extraTimePercent']);
    expect((await h.partner(h.a, 'GET', `${P}/assignments/${a.assignmentId}`)).json().accommodations).toEqual({ extraTimeMinutes: 5 });
  });
});

describe('cancel and start-link', () => {
  it('declare an empty body in both documents', () => {
    for (const [kind, prefix] of [['partner', P], ['admin', A]]) {
      for (const action of ['cancel', 'start-link']) {
        const body = bodyOf(kind!, `${prefix}/assignments/{assignmentId}/${action}`, 'post');
        expect(body).toMatchObject({ type: 'object', additionalProperties: false });
        expect(Object.keys(body.properties ?? {})).toEqual([]);
        expect(docs[kind!].paths[`${prefix}/assignments/{assignmentId}/${action}`].post.requestBody.required).toBe(false);
      }
    }
  });
});

describe("the operator's test read, written back", () => {
  const READ_ONLY = ['testId', 'version', 'publishedTo', 'createdAt', 'updatedAt'];
  const writable = (read: Record<string, unknown>) => Object.fromEntries(Object.entries(read).filter(([k]) => !READ_ONLY.includes(k)));

  it.each([
    ['not proctored', AUTO_TEST],
    ['proctored', proctoredTest('record', { noFaceSeconds: 20 })],
  ])('a %s test: GET then PUT of what it read (minus the read-only fields) is accepted and changes nothing else', async (_what, input) => {
    const created = await h.admin('POST', `${A}/tests`, input);
    expect(created.statusCode, created.body).toBe(201);
    const read = (await h.admin('GET', `${A}/tests/${created.json().testId}`)).json();
    const put = await h.admin('PUT', `${A}/tests/${read.testId}`, writable(read));
    expect(put.statusCode, put.body).toBe(200);
    expect(writable(put.json())).toEqual(writable(read));
    expect(put.json().version).toBe(read.version + 1);
  });

  it('proctoringRules: null on write means the defaults (a proctored test) or none (a test without proctoring)', async () => {
    const proctored = await h.admin('POST', `${A}/tests`, { ...proctoredTest('record'), proctoringRules: null });
    expect(proctored.statusCode, proctored.body).toBe(201);
    const defaults = (await h.admin('POST', `${A}/tests`, proctoredTest('record'))).json().proctoringRules;
    expect(proctored.json().proctoringRules).toEqual(defaults);
    const plain = await h.admin('POST', `${A}/tests`, { ...AUTO_TEST, proctoringRules: null });
    expect(plain.statusCode, plain.body).toBe(201);
    expect(plain.json().proctoringRules).toBeNull();
    // An object of rules on a test without proctoring is still refused.
    expectError(await h.admin('POST', `${A}/tests`, { ...AUTO_TEST, proctoringRules: { noFaceSeconds: 20 } }), 400, 'invalid_request');
  });
});
