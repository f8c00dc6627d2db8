import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHarness, type Harness, type Tenant } from '../helpers/harness.js';
import { partnerReadsDuring } from '../helpers/read-during.js';
import { ALL_TYPES_TEST, Student, assign, createPublishedTest } from '../helpers/student.js';
import { testModeTenant } from '../helpers/test-mode.js';

/**
 * Issue 32, H1: a body whose answer is a long array of the wrong items was
 * refused with one validation error per item, built in quadratic time. A
 * student's 1 MB autosave of `[0,0,…]` (524k items) held the event loop for
 * 14 minutes; 20,000 items took seconds and answered 1.2 MB. Now the array's
 * size bound refuses it before its items are read: 400 in milliseconds, one
 * detail, and other tenants' reads are not held up.
 */
let h: Harness;
let sandbox: Tenant;
let testId: string;
const P = '/api/partner/v1';

beforeAll(async () => {
  h = await createHarness();
  sandbox = await testModeTenant(h, h.a);
  testId = await createPublishedTest(h, h.a, ALL_TYPES_TEST);
});
afterAll(() => h?.close());

interface Answered {
  status: number;
  bytes: number;
  body: { error: { code: string; message: string; details: Array<{ field: string; message: string }> } };
}

async function post(url: string, headers: Record<string, string>, body: string): Promise<Answered> {
  const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body });
  const text = await res.text();
  return { status: res.status, bytes: Buffer.byteLength(text), body: JSON.parse(text) };
}

/** `{ answers: [{ questionId, version?, value: [0,0,…] }] }` with `items` zeros, as text. */
function zerosBody(items: number, answer: Record<string, unknown>): string {
  const head = JSON.stringify({ answers: [{ ...answer, value: 'ZEROS' }] });
  return head.replace('"ZEROS"', `[${new Array(items).fill('0').join(',')}]`);
}

function expectSmallRefusal(answered: Answered, field: string): void {
  expect(answered.status).toBe(400);
  expect(answered.body.error.code).toBe('invalid_request');
  expect(answered.bytes).toBeLessThan(4096);
  expect(answered.body.error.details.length).toBeLessThanOrEqual(20);
  expect(answered.body.error.details[0]).toEqual({ field, message: 'must NOT have more than 50 items' });
}

describe('the student autosave with an answer of many wrong items', () => {
  async function student(): Promise<{ s: Student; assignmentId: string }> {
    const a = await assign(h, h.a, { testId, externalUserId: `hostile-${Math.random().toString(36).slice(2, 8)}` });
    const s = new Student(h);
    const assignmentId = await s.start(a.startUrl);
    expect((await s.save(assignmentId, [{ questionId: 'mc', value: ['two'], version: 1 }])).statusCode).toBe(200);
    return { s, assignmentId };
  }

  for (const items of [20_000, 524_000]) {
    it(`${items.toLocaleString('en')} zeros: 400 in milliseconds with one small detail, partner reads answered within 1 s, nothing saved`, async () => {
      const { s, assignmentId } = await student();
      const body = zerosBody(items, { questionId: 'mc', version: 2 });
      expect(body.length).toBeLessThan(1024 * 1024);
      const during = await partnerReadsDuring(h, (baseUrl) => post(`${baseUrl}/a/${assignmentId}/answers`, { cookie: s.cookie!, 'x-csrf-token': s.csrf! }, body));
      expectSmallRefusal(during.result, 'answers.0.value');
      expect(during.maxReadMs).toBeLessThan(1000);
      // Of the 1 MB body's stall, validation is now a millisecond; what is left is parsing it and the walk for
      // unstorable text (storable-input.ts, which costs nothing per number: tens of ms for 524k of them).
      expect(during.maxLoopDelayMs).toBeLessThan(500);
      expect(during.hostileMs).toBeLessThan(500);
      const { rows } = await h.pool.query('SELECT value, version FROM answers WHERE assignment_id = $1', [assignmentId]);
      expect(rows).toEqual([{ value: ['two'], version: 1 }]);
    });
  }
});

describe('simulate submit with an answer of many wrong items (test-mode key)', () => {
  it('20,000 zeros: 400 in milliseconds with one small detail, partner reads answered within 1 s, the assignment still started', async () => {
    const a = await assign(h, sandbox, { testId, externalUserId: 'hostile-simulate' });
    expect((await h.partner(sandbox, 'POST', `${P}/assignments/${a.assignmentId}/simulate`, { action: 'start' })).statusCode).toBe(200);
    const body = zerosBody(20_000, { questionId: 'mc' }).replace('{"answers"', '{"action":"submit","answers"');
    const during = await partnerReadsDuring(h, (baseUrl) =>
      post(`${baseUrl}${P}/assignments/${a.assignmentId}/simulate`, { authorization: `Bearer ${sandbox.apiKey}` }, body),
    );
    expectSmallRefusal(during.result, 'answers.0.value');
    expect(during.maxReadMs).toBeLessThan(1000);
    expect(during.maxLoopDelayMs).toBeLessThan(500);
    expect(during.hostileMs).toBeLessThan(500);
    expect((await h.partner(sandbox, 'GET', `${P}/assignments/${a.assignmentId}`)).json().status).toBe('started');
  });
});

describe('service-level refusals of many answers', () => {
  it('500 answers naming unknown questions: at most 20 details, the last counting the rest, and no long value echoed', async () => {
    const a = await assign(h, h.a, { testId, externalUserId: 'many-unknown' });
    const s = new Student(h);
    const assignmentId = await s.start(a.startUrl);
    const answers = Array.from({ length: 500 }, (_, i) => ({ questionId: `nope-${i}`, value: null, version: 1 }));
    const res = await s.save(assignmentId, answers);
    expect(res.statusCode).toBe(400);
    const details = res.json().error.details;
    expect(details).toHaveLength(20);
    expect(details[19]).toEqual({ field: 'body', message: 'and 481 more problems (the first 19 are listed)' });

    const long = await s.save(assignmentId, [{ questionId: 'sc', value: 'x'.repeat(50_000), version: 1 }]);
    expect(long.statusCode).toBe(400);
    expect(long.json().error.details).toEqual([{ field: 'answers.0.value', message: `"${'x'.repeat(64)}…" is not an option of this question` }]);
    expect(long.body.length).toBeLessThan(1024);
  });
});
