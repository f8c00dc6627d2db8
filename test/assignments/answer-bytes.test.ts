import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { LightMyRequestResponse } from 'fastify';
import { assignmentBody, createHarness, manualClock, type Harness } from '../helpers/harness.js';

/**
 * The partner API's hot answers, held byte for byte: `GET /tests`,
 * `POST /assignments` and `GET /assignments/{id}` (status, every header's
 * name and value, the exact body) against committed fixtures in
 * test/fixtures/answer-bytes/. Whatever is changed to make these routes
 * cheaper (serialisation, headers, signing, caching), the bytes a partner
 * receives must not move.
 *
 * Made deterministic rather than normalised: ids come from a per-prefix
 * counter (`newId` is replaced in this file only, so `asg_…`, `tst_…`,
 * `req_…` are the same on every run), the clock is a manual clock, and the
 * harness's secret is fixed, so the start link's signature is fixed too.
 * The only normalised header is `date`, if present (the wall clock).
 *
 * `UPDATE_ANSWER_FIXTURES=1 npx vitest run test/assignments/answer-bytes.test.ts`
 * rewrites the fixtures; a change to them is a change of the partner contract.
 */
vi.mock('../../src/platform/ids.js', async (importOriginal) => {
  const real = await importOriginal<typeof import('../../src/platform/ids.js')>();
  const counters = new Map<string, number>();
  return {
    ...real,
    newId(prefix: string) {
      const n = (counters.get(prefix) ?? 0) + 1;
      counters.set(prefix, n);
      return `${prefix}_fixture${String(n).padStart(15, '0')}`;
    },
  };
});

const FIXTURES = path.resolve(import.meta.dirname, '../fixtures/answer-bytes');
const UPDATE = process.env.UPDATE_ANSWER_FIXTURES === '1';
const START = new Date('2031-05-01T10:00:00.000Z');
const clock = manualClock(START);
let h: Harness;

beforeAll(async () => {
  h = await createHarness({ clock });
});
afterAll(() => h.close());

/** Status line, headers sorted by name (`date` normalised), a blank line, then the body exactly as sent. */
function render(res: LightMyRequestResponse): string {
  const names = Object.keys(res.headers).sort();
  const lines = names.map((name) => `${name}: ${name === 'date' ? '<date>' : String(res.headers[name])}`);
  return `HTTP ${res.statusCode}\n${lines.join('\n')}\n\n${res.body}`;
}

function holds(name: string, res: LightMyRequestResponse): void {
  const file = path.join(FIXTURES, `${name}.http`);
  const actual = render(res);
  if (UPDATE || !fs.existsSync(file)) {
    if (!UPDATE) throw new Error(`no fixture ${file}: run with UPDATE_ANSWER_FIXTURES=1 to write it`);
    fs.writeFileSync(file, actual);
  }
  expect(actual).toBe(fs.readFileSync(file, 'utf8'));
}

describe('answer bytes of the hot partner routes', () => {
  let created: { assignmentId: string };

  it('GET /tests', async () => {
    const res = await h.partner(h.a, 'GET', '/api/partner/v1/tests');
    expect(res.statusCode).toBe(200);
    holds('get-tests', res);
  });

  it('POST /assignments (metadata in the partner key order, non-ASCII and escapes kept)', async () => {
    // The metadata's own text, with key order, spacing removed and escapes, must come back as sent.
    const body = JSON.stringify(assignmentBody(h.a, { externalUserId: 'fixture-1' })).replace(
      /}$/,
      ',"metadata":{"zeta":1,"alpha":{"b":[1,2.5,null],"a":"é \\u00e9 \\"q\\" </script>"},"course":"BIO-101"}}',
    );
    const res = await h.partner(h.a, 'POST', '/api/partner/v1/assignments', body);
    expect(res.statusCode).toBe(201);
    created = res.json();
    holds('post-assignment', res);
  });

  it('GET /assignments/{id}, an hour later (a freshly signed start link)', async () => {
    clock.advance(3_600_000);
    const res = await h.partner(h.a, 'GET', `/api/partner/v1/assignments/${created.assignmentId}`);
    expect(res.statusCode).toBe(200);
    holds('get-assignment', res);
  });

  it('GET /assignments/{id} again in the same second: the same bytes but the request id', async () => {
    const res = await h.partner(h.a, 'GET', `/api/partner/v1/assignments/${created.assignmentId}`);
    expect(res.statusCode).toBe(200);
    holds('get-assignment-again', res);
  });

  it('POST /assignments with a dueAt and an Idempotency-Key, then its replay', async () => {
    const body = assignmentBody(h.a, { externalUserId: 'fixture-2', dueAt: '2031-05-03T12:30:00.000Z' });
    const first = await h.partner(h.a, 'POST', '/api/partner/v1/assignments', body, { 'idempotency-key': 'fixture-key-1' });
    expect(first.statusCode).toBe(201);
    holds('post-assignment-keyed', first);
    const replay = await h.partner(h.a, 'POST', '/api/partner/v1/assignments', body, { 'idempotency-key': 'fixture-key-1' });
    expect(replay.statusCode).toBe(201);
    holds('post-assignment-replayed', replay);
  });
});
