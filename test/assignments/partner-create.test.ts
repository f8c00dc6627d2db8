import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { assignmentBody, createHarness, manualClock, type Harness } from '../helpers/harness.js';
import { detailFields, expectError } from '../helpers/expect-error.js';
import { metadataOf } from '../helpers/metadata.js';

/** POST /assignments: the success shape and every field rule of spec 2.2 (framing and 422 rules: partner-create-rules). */
const URL_ = '/api/partner/v1/assignments';
const START = new Date('2031-05-01T10:00:00.000Z');
const clock = manualClock(START);
let h: Harness;

beforeAll(async () => {
  h = await createHarness({ clock });
});
afterAll(() => h.close());

const create = (body: unknown, headers?: Record<string, string>) => h.partner(h.a, 'POST', URL_, body, headers);

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
