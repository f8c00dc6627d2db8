import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { enqueueJob } from '../../src/platform/jobs.js';
import { PURGE_KEY, purgeJob } from '../../src/worker.js';
import { publishTest, unpublishTest } from '../../src/modules/catalog/tests-service.js';
import { expireAssignmentJob } from '../../src/modules/assignments/expire-job.js';
import { assignmentBody, createHarness, manualClock, type Harness } from '../helpers/harness.js';
import { detailFields, expectError } from '../helpers/expect-error.js';

const URL_ = '/api/partner/v1/assignments';
const clock = manualClock(new Date('2031-05-01T10:00:00.000Z'));
const HOUR = 3_600_000;
let h: Harness;

beforeAll(async () => {
  h = await createHarness({ clock });
});
afterAll(() => h.close());

const withKey = (key: string, body: unknown, tenant = h.a) => h.partner(tenant, 'POST', URL_, body, { 'idempotency-key': key });
const assignmentCount = async () => (await h.pool.query<{ n: number }>('SELECT count(*)::int AS n FROM assignments')).rows[0]!.n;
const keyRows = async (key: string) =>
  (await h.pool.query('SELECT institution_id, assignment_id, response_status FROM idempotency_keys WHERE key = $1', [key])).rows;

describe('Idempotency-Key on POST /assignments', () => {
  it('replays the stored 201 byte-for-byte with Idempotent-Replayed: true and creates nothing new', async () => {
    const body = assignmentBody(h.a, { externalUserId: 'idem-1', metadata: { a: 1 } });
    const first = await withKey('key-replay', body);
    expect(first.statusCode).toBe(201);
    expect(first.headers['idempotent-replayed']).toBeUndefined();
    const before = await assignmentCount();
    clock.advance(HOUR); // a later replay must not re-sign the link or move createdAt
    const again = await withKey('key-replay', body);
    expect(again.statusCode).toBe(201);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.body).toBe(first.body);
    expect(again.headers['content-type']).toBe(first.headers['content-type']);
    expect(await assignmentCount()).toBe(before);
    expect(await keyRows('key-replay')).toEqual([
      { institution_id: h.a.institutionId, assignment_id: first.json().assignmentId, response_status: 201 },
    ]);
  });

  it('reusing a key with a different body returns the 409 envelope without Retry-After', async () => {
    await withKey('key-conflict', assignmentBody(h.a, { externalUserId: 'idem-2' }));
    const before = await assignmentCount();
    const res = await withKey('key-conflict', assignmentBody(h.a, { externalUserId: 'idem-2-other' }));
    expectError(res, 409, 'idempotency_key_reused');
    expect(res.headers['retry-after']).toBeUndefined();
    expect(res.headers['idempotent-replayed']).toBeUndefined();
    expect(await assignmentCount()).toBe(before);
  });

  it('treats a body with other key order and whitespace as the same body', async () => {
    const body = assignmentBody(h.a, { externalUserId: 'idem-3', metadata: { x: 1, y: { b: 2, a: 1 } } });
    const first = await withKey('key-canonical', JSON.stringify(body));
    const reordered = `{ "metadata" : {"y":{"a":1,"b":2},"x":1},\n  "callbackUrl": ${JSON.stringify(body.callbackUrl)},
      "user": {"name": "Sam Student", "email": "student@example.org"}, "testId": "${body.testId}", "externalUserId": "idem-3" }`;
    const again = await withKey('key-canonical', reordered);
    expect(again.statusCode).toBe(201);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.body).toBe(first.body);
  });

  it('a change inside nested metadata counts as a different body (409)', async () => {
    await withKey('key-nested', assignmentBody(h.a, { metadata: { a: { b: 1 } } }));
    expectError(await withKey('key-nested', assignmentBody(h.a, { metadata: { a: { b: 2 } } })), 409, 'idempotency_key_reused');
  });

  it('50 concurrent creates with one key make exactly one assignment and 50 identical 201 bodies', async () => {
    const body = assignmentBody(h.a, { externalUserId: 'idem-concurrent' });
    const before = await assignmentCount();
    const results = await Promise.all(Array.from({ length: 50 }, () => withKey('key-concurrent', body)));
    expect(results.map((r) => r.statusCode)).toEqual(Array(50).fill(201));
    expect(new Set(results.map((r) => r.body)).size).toBe(1);
    expect(results.filter((r) => r.headers['idempotent-replayed'] !== 'true')).toHaveLength(1);
    expect(await assignmentCount()).toBe(before + 1);
    const { rows } = await h.pool.query('SELECT count(*)::int AS n FROM assignments a JOIN users u ON u.id = a.user_id WHERE u.external_user_id = $1', [
      'idem-concurrent',
    ]);
    expect(rows[0].n).toBe(1);
  });

  it('concurrent same-key requests with different bodies: one 201, the rest 409, never a 5xx', async () => {
    const results = await Promise.all(
      Array.from({ length: 10 }, (_, i) => withKey('key-race-bodies', assignmentBody(h.a, { externalUserId: `race-${i}` }))),
    );
    const statuses = results.map((r) => r.statusCode).sort();
    expect(statuses).toEqual([201, ...Array(9).fill(409)]);
    expect((await keyRows('key-race-bodies')).length).toBe(1);
  });

  it.each([
    ['a validation failure', { unknownField: true }, 400],
    ['an unpublished test', { testId: 'tst_notpublishedanywhere000' }, 422],
    ['a callbackUrl off the allowlist', { callbackUrl: 'https://elsewhere.example/' }, 422],
    ['a dueAt in the past', { dueAt: '2020-01-01T00:00:00Z' }, 422],
    ['metadata over 1 KB', { metadata: { pad: 'x'.repeat(1100) } }, 400],
  ])('a request refused for %s stores nothing, and the same key then succeeds with a fixed body', async (label, override, status) => {
    const key = `key-fix-${label.replace(/\W+/g, '-')}`;
    const res = await withKey(key, assignmentBody(h.a, { externalUserId: 'idem-fix', ...override }));
    expect(res.statusCode).toBe(status);
    expect(await keyRows(key)).toEqual([]);
    const fixed = await withKey(key, assignmentBody(h.a, { externalUserId: 'idem-fix' }));
    expect(fixed.statusCode).toBe(201);
    expect(fixed.headers['idempotent-replayed']).toBeUndefined();
  });

  it('keys are scoped per institution: the same key in two institutions makes two assignments', async () => {
    const a = await withKey('key-shared', assignmentBody(h.a, { externalUserId: 'idem-tenant' }), h.a);
    const b = await withKey('key-shared', assignmentBody(h.b, { externalUserId: 'idem-tenant' }), h.b);
    expect(a.statusCode).toBe(201);
    expect(b.statusCode).toBe(201);
    expect(b.headers['idempotent-replayed']).toBeUndefined();
    expect(a.json().assignmentId).not.toBe(b.json().assignmentId);
    expect((await keyRows('key-shared')).map((r) => r.institution_id).sort()).toEqual([h.a.institutionId, h.b.institutionId].sort());
  });

  it('requests without a key are never deduplicated', async () => {
    const body = assignmentBody(h.a, { externalUserId: 'idem-none' });
    const one = await h.partner(h.a, 'POST', URL_, body);
    const two = await h.partner(h.a, 'POST', URL_, body);
    expect(one.json().assignmentId).not.toBe(two.json().assignmentId);
  });

  it.each([
    ['empty', ''],
    ['256 characters', 'k'.repeat(256)],
    ['a control character', 'abc\u0001def'],
    ['a non-ASCII character', 'clé-1'],
    ['a tab inside', 'a\tb'],
  ])('refuses an Idempotency-Key that is %s with 400 naming the header', async (_label, key) => {
    const res = await withKey(key, assignmentBody(h.a, { externalUserId: 'idem-badkey' }));
    expectError(res, 400, 'invalid_request');
    expect(detailFields(res).join(' ')).toMatch(/idempotency-key/i);
  });

  it('accepts a key of 255 printable characters, including spaces and punctuation inside', async () => {
    const key = `!${'a b~'.repeat(63)}z~`;
    expect(key.length).toBe(255);
    const res = await withKey(key, assignmentBody(h.a, { externalUserId: 'idem-longkey' }));
    expect(res.statusCode).toBe(201);
  });

  it('after 24 hours the key is free again, and the purge job deletes it', async () => {
    const first = await withKey('key-window', assignmentBody(h.a, { externalUserId: 'idem-window' }));
    expect(first.statusCode).toBe(201);

    clock.advance(24 * HOUR - 1000);
    const within = await withKey('key-window', assignmentBody(h.a, { externalUserId: 'idem-window' }));
    expect(within.headers['idempotent-replayed']).toBe('true');
    expectError(await withKey('key-window', assignmentBody(h.a, { externalUserId: 'other' })), 409, 'idempotency_key_reused');

    clock.advance(2000);
    await enqueueJob(h.pool, purgeJob, {}, { runAt: clock.now(), uniqueKey: PURGE_KEY });
    expect(await h.runJobs()).toBeGreaterThanOrEqual(1);
    const left = (await h.pool.query('SELECT key FROM idempotency_keys')).rows.map((r) => r.key);
    expect(left).not.toContain('key-window');
    expect(left).toEqual([]); // every key above is older than 24 h by now
    // The purge reschedules itself an hour later.
    const next = await h.pool.query('SELECT run_at FROM jobs WHERE kind = $1', [purgeJob.kind]);
    expect(next.rows.map((r) => r.run_at.getTime())).toEqual([clock.now().getTime() + HOUR]);

    const fresh = await withKey('key-window', assignmentBody(h.a, { externalUserId: 'idem-window-2' }));
    expect(fresh.statusCode).toBe(201);
    expect(fresh.headers['idempotent-replayed']).toBeUndefined();
    expect(fresh.json().assignmentId).not.toBe(first.json().assignmentId);
  });

  it('a key past its 24 hours is free even before the purge runs', async () => {
    const first = await withKey('key-unpurged', assignmentBody(h.a, { externalUserId: 'idem-unpurged' }));
    clock.advance(24 * HOUR);
    const second = await withKey('key-unpurged', assignmentBody(h.a, { externalUserId: 'idem-unpurged-changed' }));
    expect(second.statusCode).toBe(201);
    expect(second.headers['idempotent-replayed']).toBeUndefined();
    expect(second.json().assignmentId).not.toBe(first.json().assignmentId);
  });
});

describe('a keyed create with a new key', () => {
  /** The statements a request sends through pool.query, by name (unnamed ones by their first words), and its connection checkouts (pool.query takes one per statement; a transaction one more). */
  async function statementsOf(send: () => Promise<{ statusCode: number }>) {
    const query = vi.spyOn(h.pool, 'query');
    const connect = vi.spyOn(h.pool, 'connect');
    try {
      const res = await send();
      const names = query.mock.calls.map(([q]) => (typeof q === 'string' ? q.trim().split(/\s+/).slice(0, 2).join(' ') : (q as { name?: string }).name));
      return { res, names, checkouts: connect.mock.calls.length };
    } finally {
      query.mockRestore();
      connect.mockRestore();
    }
  }

  it('costs what a create without a key costs: the test lookup and one insert that also stores the key and its response', async () => {
    await withKey('key-warm-up', assignmentBody(h.a, { externalUserId: 'idem-warm' })); // the API key is cached from now on
    const { res, names, checkouts } = await statementsOf(() => withKey('key-one-statement', assignmentBody(h.a, { externalUserId: 'idem-fast' })));
    expect(res.statusCode).toBe(201);
    expect(names).toEqual(['find-published-version-and-domains', 'insert-assignment-for-user-keyed']);
    expect(checkouts).toBe(2); // no transaction: BEGIN and COMMIT would be two more round trips
    expect(await keyRows('key-one-statement')).toEqual([
      { institution_id: h.a.institutionId, assignment_id: (res as unknown as { json(): { assignmentId: string } }).json().assignmentId, response_status: 201 },
    ]);
    const replay = await withKey('key-one-statement', assignmentBody(h.a, { externalUserId: 'idem-fast' }));
    expect(replay.headers['idempotent-replayed']).toBe('true');
    expect(replay.body).toBe((res as unknown as { body: string }).body);
  });

  it('with a dueAt, the key, the assignment and its expiry job commit together, and a replay schedules nothing more', async () => {
    const body = assignmentBody(h.a, { externalUserId: 'idem-due', dueAt: new Date(clock.now().getTime() + 2 * HOUR).toISOString() });
    const first = await withKey('key-due', body);
    expect(first.statusCode).toBe(201);
    const jobs = async () => (await h.pool.query('SELECT count(*)::int AS n FROM jobs WHERE kind = $1 AND payload->>\'assignmentId\' = $2', [expireAssignmentJob.kind, first.json().assignmentId])).rows[0].n;
    expect(await jobs()).toBe(1);
    const again = await withKey('key-due', body);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.body).toBe(first.body);
    expect(await jobs()).toBe(1);
  });

  it('a retry of a create that succeeded is replayed even after the test was unpublished; a new key is refused and stores nothing', async () => {
    const body = assignmentBody(h.a, { externalUserId: 'idem-unpublished' });
    const first = await withKey('key-before-unpublish', body);
    expect(first.statusCode).toBe(201);
    await unpublishTest(h.pool, h.a.testId, h.a.institutionId);
    try {
      const again = await withKey('key-before-unpublish', body);
      expect(again.statusCode).toBe(201);
      expect(again.headers['idempotent-replayed']).toBe('true');
      expect(again.body).toBe(first.body);
      expectError(await withKey('key-after-unpublish', body), 422, 'test_not_available');
      expect(await keyRows('key-after-unpublish')).toEqual([]);
    } finally {
      await publishTest(h.pool, h.a.testId, h.a.institutionId);
    }
  });
});
