import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { assignmentBody, AUTO_TEST, createHarness, manualClock, type Harness } from './helpers/harness.js';
import { detailFields, expectError } from './helpers/expect-error.js';

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

/** A metadata object whose compact JSON is exactly `bytes` long, built from `char` (1 or 2 UTF-8 bytes). */
function metadataOf(bytes: number, char = 'x'): Record<string, string> {
  const overhead = Buffer.byteLength(JSON.stringify({ k: '' }));
  const per = Buffer.byteLength(char);
  const room = bytes - overhead;
  const value = char.repeat(Math.floor(room / per)) + 'x'.repeat(room % per);
  const m = { k: value };
  expect(Buffer.byteLength(JSON.stringify(m))).toBe(bytes);
  return m;
}

describe('POST /assignments: success', () => {
  it('creates an assignment and returns exactly the creation fields of spec 2.3 with 201', async () => {
    const res = await create(assignmentBody(h.a, { externalUserId: 'create-ok' }));
    expect(res.statusCode).toBe(201);
    const body = res.json();
    expect(Object.keys(body).sort()).toEqual(
      ['assignmentId', 'createdAt', 'externalUserId', 'startUrl', 'startUrlExpiresAt', 'status', 'testId'].sort(),
    );
    expect(body.assignmentId).toMatch(/^asg_[0-9A-Za-z]{22}$/);
    expect(body.status).toBe('assigned');
    expect(body.externalUserId).toBe('create-ok');
    expect(body.testId).toBe(h.a.testId);
    expect(body.startUrl).toMatch(/^http:\/\/assay\.test\/s\/[A-Za-z0-9_.-]+$/);
    expect(body.createdAt).toBe(START.toISOString());
    expect(body.startUrlExpiresAt).toBe(new Date(START.getTime() + 7 * 86_400_000).toISOString());
    expect(res.headers['idempotent-replayed']).toBeUndefined();
  });

  it('accepts Content-Type application/json with a charset parameter', async () => {
    const res = await create(JSON.stringify(assignmentBody(h.a)), { 'content-type': 'application/json; charset=utf-8' });
    expect(res.statusCode).toBe(201);
  });

  it('stores the assignment with the callbackUrl, dueAt and metadata of the request', async () => {
    const dueAt = new Date(START.getTime() + 3_600_000).toISOString();
    const res = await create(assignmentBody(h.a, { externalUserId: 'stored', dueAt, metadata: { course: 'c-1', n: 2 } }));
    expect(res.statusCode).toBe(201);
    const { rows } = await h.pool.query('SELECT callback_url, due_at, metadata, status, institution_id FROM assignments WHERE id = $1', [
      res.json().assignmentId,
    ]);
    expect(rows[0]).toEqual({
      callback_url: h.a.callbackUrl,
      due_at: new Date(dueAt),
      metadata: { course: 'c-1', n: 2 },
      status: 'assigned',
      institution_id: h.a.institutionId,
    });
  });
});

describe('POST /assignments: externalUserId bounds', () => {
  it('accepts an externalUserId of exactly 128 characters', async () => {
    const res = await create(assignmentBody(h.a, { externalUserId: 'u'.repeat(128) }));
    expect(res.statusCode).toBe(201);
    expect(res.json().externalUserId).toBe('u'.repeat(128));
  });

  it('accepts 128 characters that take several bytes each (the limit counts characters)', async () => {
    const res = await create(assignmentBody(h.a, { externalUserId: '€'.repeat(128) }));
    expect(res.statusCode).toBe(201);
  });

  it('rejects an externalUserId of 129 characters with 400 naming externalUserId', async () => {
    const res = await create(assignmentBody(h.a, { externalUserId: 'u'.repeat(129) }));
    expectError(res, 400, 'invalid_request');
    expect(detailFields(res)).toEqual(['externalUserId']);
  });

  it('rejects an empty externalUserId with 400', async () => {
    const res = await create(assignmentBody(h.a, { externalUserId: '' }));
    expectError(res, 400, 'invalid_request');
    expect(detailFields(res)).toEqual(['externalUserId']);
  });
});

describe('POST /assignments: required fields, types and unknown fields', () => {
  for (const field of ['externalUserId', 'testId', 'user', 'callbackUrl']) {
    it(`rejects a body without ${field} with 400 naming it`, async () => {
      const body: Record<string, unknown> = assignmentBody(h.a);
      delete body[field];
      const res = await create(body);
      expectError(res, 400, 'invalid_request');
      expect(detailFields(res)).toContain(field);
    });
  }

  it('rejects a user without email with 400 naming user.email', async () => {
    const res = await create(assignmentBody(h.a, { user: { name: 'No Mail' } }));
    expectError(res, 400, 'invalid_request');
    expect(detailFields(res)).toEqual(['user.email']);
  });

  it('rejects a user.email that is not an e-mail address with 400 naming user.email', async () => {
    const res = await create(assignmentBody(h.a, { user: { email: 'not-an-address' } }));
    expectError(res, 400, 'invalid_request');
    expect(detailFields(res)).toEqual(['user.email']);
  });

  it.each([
    ['externalUserId', 42],
    ['testId', ['tst_x']],
    ['user', 'student@example.org'],
    ['callbackUrl', { href: 'https://x' }],
    ['dueAt', 1_900_000_000],
  ])('rejects %s of the wrong JSON type with 400 naming it', async (field, value) => {
    const res = await create(assignmentBody(h.a, { [field]: value }));
    expectError(res, 400, 'invalid_request');
    expect(detailFields(res)).toContain(field);
  });

  it('rejects an unknown top-level field with 400 naming the field', async () => {
    const res = await create(assignmentBody(h.a, { courseId: 'c-9' }));
    const err = expectError(res, 400, 'invalid_request');
    expect(detailFields(res)).toEqual(['courseId']);
    expect(err.error.message).toContain('courseId');
  });

  it('rejects an unknown field inside user with 400 naming user.<field>', async () => {
    const res = await create(assignmentBody(h.a, { user: { email: 'a@example.org', phone: '123' } }));
    expectError(res, 400, 'invalid_request');
    expect(detailFields(res)).toEqual(['user.phone']);
  });

  it('reports every problem of a body at once in details', async () => {
    const res = await create({ testId: 5, user: {}, extra: true });
    expectError(res, 400, 'invalid_request');
    expect(detailFields(res)).toEqual(expect.arrayContaining(['externalUserId', 'callbackUrl', 'testId', 'user.email', 'extra']));
  });
});

describe('POST /assignments: metadata', () => {
  it('accepts metadata whose compact JSON is exactly 1024 bytes', async () => {
    const res = await create(assignmentBody(h.a, { metadata: metadataOf(1024) }));
    expect(res.statusCode).toBe(201);
  });

  it('rejects metadata whose compact JSON is 1025 bytes with 400 naming metadata', async () => {
    const res = await create(assignmentBody(h.a, { metadata: metadataOf(1025) }));
    expectError(res, 400, 'invalid_request');
    expect(detailFields(res)).toEqual(['metadata']);
  });

  it('counts multi-byte characters as bytes: 1024 bytes of "é" pass, 1025 bytes fail', async () => {
    const ok = metadataOf(1024, 'é');
    expect(ok.k!.length).toBeLessThan(1024 - 8);
    expect((await create(assignmentBody(h.a, { metadata: ok }))).statusCode).toBe(201);
    const res = await create(assignmentBody(h.a, { metadata: metadataOf(1025, 'é') }));
    expectError(res, 400, 'invalid_request');
  });

  it('measures the compact serialisation, not the whitespace the client sent', async () => {
    const meta = metadataOf(1024);
    const pretty = JSON.stringify(assignmentBody(h.a, { metadata: meta }), null, 8);
    expect(Buffer.byteLength(JSON.stringify(meta, null, 8))).toBeGreaterThan(1024);
    expect((await create(pretty)).statusCode).toBe(201);
  });

  it.each([
    ['an array', [1, 2]],
    ['null', null],
    ['a string', 'course-1'],
    ['a number', 7],
  ])('rejects metadata that is %s with 400 naming metadata', async (_label, metadata) => {
    const res = await create(assignmentBody(h.a, { metadata }));
    expectError(res, 400, 'invalid_request');
    expect(detailFields(res)).toEqual(['metadata']);
  });

  it('stores nested metadata unchanged and echoes it on read; absent metadata reads as {}', async () => {
    const metadata = { course: { id: 'c-1', tags: ['a', 'b'] }, weight: 0.5, ok: true, none: null, 'ü-key': 'ünï' };
    const withMeta = await create(assignmentBody(h.a, { metadata }));
    const read = await h.partner(h.a, 'GET', `${URL_}/${withMeta.json().assignmentId}`);
    expect(read.json().metadata).toEqual(metadata);
    const without = await create(assignmentBody(h.a));
    expect((await h.partner(h.a, 'GET', `${URL_}/${without.json().assignmentId}`)).json().metadata).toEqual({});
  });
});

describe('POST /assignments: dueAt', () => {
  it.each([
    ['a word', 'tomorrow'],
    ['a date without time', '2031-06-01'],
    ['a time without zone', '2031-06-01T10:00:00'],
    ['an impossible day', '2031-02-30T10:00:00Z'],
    ['an impossible hour', '2031-06-01T25:00:00Z'],
    ['a leap second', '2031-06-30T23:59:60Z'],
    ['an empty string', ''],
  ])('rejects a dueAt that is %s with 400 naming dueAt', async (_label, dueAt) => {
    const res = await create(assignmentBody(h.a, { dueAt }));
    expectError(res, 400, 'invalid_request');
    expect(detailFields(res)).toEqual(['dueAt']);
  });

  it('rejects a dueAt in the past with 422 due_at_in_past', async () => {
    const res = await create(assignmentBody(h.a, { dueAt: new Date(START.getTime() - 1000).toISOString() }));
    expectError(res, 422, 'due_at_in_past');
    expect(detailFields(res)).toEqual(['dueAt']);
  });

  it('rejects a dueAt equal to now with 422 due_at_in_past', async () => {
    const res = await create(assignmentBody(h.a, { dueAt: START.toISOString() }));
    expectError(res, 422, 'due_at_in_past');
  });

  it('accepts a dueAt one second in the future, and a time-zone offset', async () => {
    expect((await create(assignmentBody(h.a, { dueAt: new Date(START.getTime() + 1000).toISOString() }))).statusCode).toBe(201);
    const res = await create(assignmentBody(h.a, { dueAt: '2031-05-01T14:00:00+02:00' }));
    expect(res.statusCode).toBe(201);
    expect(res.json().startUrlExpiresAt).toBe('2031-05-01T12:00:00.000Z');
  });
});

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

  it('the same externalUserId in two institutions gives two users', async () => {
    expect((await h.partner(h.a, 'POST', URL_, assignmentBody(h.a, { externalUserId: 'shared-id' }))).statusCode).toBe(201);
    expect((await h.partner(h.b, 'POST', URL_, assignmentBody(h.b, { externalUserId: 'shared-id' }))).statusCode).toBe(201);
    const users = await h.pool.query('SELECT institution_id FROM users WHERE external_user_id = $1 ORDER BY institution_id', ['shared-id']);
    expect(users.rows.map((r) => r.institution_id).sort()).toEqual([h.a.institutionId, h.b.institutionId].sort());
  });
});
