import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { assignmentBody, AUTO_TEST, createHarness, manualClock, type Harness } from '../helpers/harness.js';
import { detailFields, expectError } from '../helpers/expect-error.js';
import { metadataOf } from '../helpers/metadata.js';

/** POST /assignments: body framing (size, media type, JSON), the 422 business rules, and users. */
const URL_ = '/api/partner/v1/assignments';
const START = new Date('2031-05-01T10:00:00.000Z');
const clock = manualClock(START);
let h: Harness;

beforeAll(async () => {
  h = await createHarness({ clock });
});
afterAll(() => h.close());

const create = (body: unknown, headers?: Record<string, string>) => h.partner(h.a, 'POST', URL_, body, headers);
const count = async (table: string) => (await h.pool.query<{ n: number }>(`SELECT count(*)::int AS n FROM ${table}`)).rows[0]!.n;

describe('POST /assignments: body framing', () => {
  it('rejects a body over 64 KB with 413 payload_too_large', async () => {
    const big = JSON.stringify(assignmentBody(h.a, { metadata: { pad: 'x'.repeat(64 * 1024) } }));
    expectError(await create(big), 413, 'payload_too_large');
  });

  it('accepts a body of exactly 64 KB', async () => {
    const json = JSON.stringify(assignmentBody(h.a));
    const padded = json + ' '.repeat(64 * 1024 - Buffer.byteLength(json));
    expect(Buffer.byteLength(padded)).toBe(65_536);
    expect((await create(padded)).statusCode).toBe(201);
    expectError(await create(padded + ' '), 413, 'payload_too_large');
  });

  it.each([
    ['text/plain', 'text/plain'],
    ['form-encoded', 'application/x-www-form-urlencoded'],
    ['a JSON-looking vendor type', 'application/jsonx'],
  ])('rejects a POST whose Content-Type is %s with 415 unsupported_media_type', async (_label, type) => {
    const res = await create(JSON.stringify(assignmentBody(h.a)), { 'content-type': type });
    expectError(res, 415, 'unsupported_media_type');
  });

  it('rejects a POST without Content-Type with 415, with or without a body', async () => {
    const withBody = await h.app.inject({
      method: 'POST',
      url: URL_,
      headers: { authorization: `Bearer ${h.a.apiKey}` },
      payload: Buffer.from(JSON.stringify(assignmentBody(h.a))),
    });
    expectError(withBody, 415, 'unsupported_media_type');
    const empty = await h.app.inject({ method: 'POST', url: URL_, headers: { authorization: `Bearer ${h.a.apiKey}` } });
    expectError(empty, 415, 'unsupported_media_type');
  });

  it.each([
    ['truncated JSON', '{"externalUserId": "u1", '],
    ['single quotes', "{'externalUserId': 'u1'}"],
    ['a trailing comma', '{"externalUserId": "u1",}'],
    ['an empty body', ''],
  ])('rejects %s with 400 invalid_request', async (_label, raw) => {
    const res = await create(raw);
    expectError(res, 400, 'invalid_request');
  });

  it.each([
    ['an array', '[]'],
    ['null', 'null'],
    ['a string', '"hello"'],
    ['a number', '12'],
  ])('rejects a JSON body that is %s with 400', async (_label, raw) => {
    expectError(await create(raw), 400, 'invalid_request');
  });

  it('rejects a body with a __proto__ key with 400 rather than polluting anything', async () => {
    const res = await create(`{"__proto__": {"admin": true}, ${JSON.stringify(assignmentBody(h.a)).slice(1)}`);
    expectError(res, 400, 'invalid_request');
  });
});

describe('POST /assignments: business rules (422)', () => {
  it('rejects an unknown testId with 422 test_not_available', async () => {
    const res = await create(assignmentBody(h.a, { testId: 'tst_doesnotexist0000000000' }));
    expectError(res, 422, 'test_not_available');
    expect(detailFields(res)).toEqual(['testId']);
  });

  it('unpublishing a test refuses new assignments with 422 while existing ones stay readable', async () => {
    const test = (await h.admin('POST', '/api/admin/v1/tests', AUTO_TEST)).json();
    expect((await h.admin('PUT', `/api/admin/v1/tests/${test.testId}/publications/${h.a.institutionId}`)).statusCode).toBe(204);
    const before = await create(assignmentBody(h.a, { testId: test.testId }));
    expect(before.statusCode).toBe(201);
    expect((await h.admin('DELETE', `/api/admin/v1/tests/${test.testId}/publications/${h.a.institutionId}`)).statusCode).toBe(204);
    expectError(await create(assignmentBody(h.a, { testId: test.testId })), 422, 'test_not_available');
    const read = await h.partner(h.a, 'GET', `${URL_}/${before.json().assignmentId}`);
    expect(read.statusCode).toBe(200);
    expect(read.json()).toMatchObject({ status: 'assigned', testId: test.testId });
    expect(typeof read.json().startUrl).toBe('string');
  });

  it('a new test version does not change the version existing assignments pinned; new ones pin the new version', async () => {
    const test = (await h.admin('POST', '/api/admin/v1/tests', AUTO_TEST)).json();
    await h.admin('PUT', `/api/admin/v1/tests/${test.testId}/publications/${h.a.institutionId}`);
    const first = (await create(assignmentBody(h.a, { testId: test.testId }))).json();
    const v2 = await h.admin('PUT', `/api/admin/v1/tests/${test.testId}`, { ...AUTO_TEST, title: 'Arithmetic v2', durationMinutes: 30 });
    expect(v2.json().version).toBe(2);
    const second = (await create(assignmentBody(h.a, { testId: test.testId }))).json();
    const pinned = await h.pool.query<{ id: string; version: number; title: string }>(
      `SELECT a.id, tv.version, tv.title FROM assignments a JOIN test_versions tv ON tv.id = a.test_version_id WHERE a.id = ANY($1)`,
      [[first.assignmentId, second.assignmentId]],
    );
    const byId = Object.fromEntries(pinned.rows.map((r) => [r.id, r]));
    expect(byId[first.assignmentId]).toMatchObject({ version: 1, title: 'Arithmetic' });
    expect(byId[second.assignmentId]).toMatchObject({ version: 2, title: 'Arithmetic v2' });
    const list = (await h.partner(h.a, 'GET', '/api/partner/v1/tests?limit=100')).json();
    expect(list.data.find((t: { testId: string }) => t.testId === test.testId)).toMatchObject({ title: 'Arithmetic v2', durationMinutes: 30 });
  });

  it('a refused or invalid request changes nothing: no assignment, user, job or idempotency row', async () => {
    const tables = ['assignments', 'users', 'jobs', 'idempotency_keys', 'events'];
    const before = await Promise.all(tables.map(count));
    const attempts = [
      assignmentBody(h.a, { externalUserId: 'ghost-1', testId: h.b.testId, dueAt: new Date(START.getTime() + 3_600_000).toISOString() }),
      assignmentBody(h.a, { externalUserId: 'ghost-2', callbackUrl: 'https://evil.example/' }),
      assignmentBody(h.a, { externalUserId: 'ghost-3', dueAt: '2001-01-01T00:00:00Z' }),
      assignmentBody(h.a, { externalUserId: 'ghost-4', metadata: metadataOf(1025) }),
      assignmentBody(h.a, { externalUserId: 'ghost-5', unknown: 1 }),
    ];
    for (const [i, body] of attempts.entries()) {
      const res = await create(body, { 'idempotency-key': `refused-${i}` });
      expect(res.statusCode).toBeGreaterThanOrEqual(400);
    }
    expect(await Promise.all(tables.map(count))).toEqual(before);
  });
});

describe('POST /assignments: users are found or created by (institution, externalUserId)', () => {
  it('the same externalUserId twice gives one user row whose email and name follow the latest request', async () => {
    const first = await create(assignmentBody(h.a, { externalUserId: 'same-user', user: { email: 'old@example.org', name: 'Old Name' } }));
    const second = await create(assignmentBody(h.a, { externalUserId: 'same-user', user: { email: 'new@example.org', name: 'New Name' } }));
    expect(first.statusCode).toBe(201);
    expect(second.statusCode).toBe(201);
    expect(first.json().assignmentId).not.toBe(second.json().assignmentId);
    const users = await h.pool.query('SELECT id, email, name FROM users WHERE institution_id = $1 AND external_user_id = $2', [
      h.a.institutionId,
      'same-user',
    ]);
    expect(users.rows).toHaveLength(1);
    expect(users.rows[0]).toMatchObject({ email: 'new@example.org', name: 'New Name' });
    const owners = await h.pool.query('SELECT DISTINCT user_id FROM assignments WHERE id = ANY($1)', [
      [first.json().assignmentId, second.json().assignmentId],
    ]);
    expect(owners.rows).toEqual([{ user_id: users.rows[0].id }]);
  });

  it('a later request without user.name keeps the stored name and still updates the email', async () => {
    await create(assignmentBody(h.a, { externalUserId: 'keeps-name', user: { email: 'a@example.org', name: 'Kept' } }));
    await create(assignmentBody(h.a, { externalUserId: 'keeps-name', user: { email: 'b@example.org' } }));
    const users = await h.pool.query('SELECT email, name FROM users WHERE institution_id = $1 AND external_user_id = $2', [
      h.a.institutionId,
      'keeps-name',
    ]);
    expect(users.rows).toEqual([{ email: 'b@example.org', name: 'Kept' }]);
  });

  it('concurrent first assignments for a new externalUserId make one user and every assignment, without a 5xx', async () => {
    const results = await Promise.all(
      Array.from({ length: 20 }, (_, i) => create(assignmentBody(h.a, { externalUserId: 'brand-new', user: { email: `n${i}@example.org` } }))),
    );
    expect(results.map((r) => r.statusCode)).toEqual(Array(20).fill(201));
    expect(new Set(results.map((r) => r.json().assignmentId)).size).toBe(20);
    const users = await h.pool.query('SELECT id FROM users WHERE institution_id = $1 AND external_user_id = $2', [h.a.institutionId, 'brand-new']);
    expect(users.rows).toHaveLength(1);
  });

  it('the same externalUserId in two institutions gives two users', async () => {
    expect((await h.partner(h.a, 'POST', URL_, assignmentBody(h.a, { externalUserId: 'shared-id' }))).statusCode).toBe(201);
    expect((await h.partner(h.b, 'POST', URL_, assignmentBody(h.b, { externalUserId: 'shared-id' }))).statusCode).toBe(201);
    const users = await h.pool.query('SELECT institution_id FROM users WHERE external_user_id = $1 ORDER BY institution_id', ['shared-id']);
    expect(users.rows.map((r) => r.institution_id).sort()).toEqual([h.a.institutionId, h.b.institutionId].sort());
  });
});
