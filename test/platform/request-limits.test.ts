import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKeyCache } from '../../src/modules/institutions/key-cache.js';
import { expectError } from '../helpers/expect-error.js';
import { ADMIN_TOKEN, assignmentBody, createHarness, type Harness } from '../helpers/harness.js';
import { Student, assign } from '../helpers/student.js';

/**
 * Traffic no API key pays for: per-address limits on requests that do not
 * authenticate and on start links, a per-session limit on the student POSTs,
 * and a negative cache so a repeated unknown key costs no database lookup.
 */
const P = '/api/partner/v1';
const LIMIT = 4;
let h: Harness;

beforeAll(async () => {
  h = await createHarness({ config: { requestLimits: { unauthenticatedPerMinute: LIMIT, startLinksPerMinute: LIMIT * 3, startLinkOpensPerMinute: LIMIT, studentPostsPerMinute: LIMIT } } });
});
afterAll(() => h.close());

const from = (ip: string, url: string, key?: string, method = 'GET') =>
  h.app.inject({ method: method as 'GET', url, remoteAddress: ip, headers: key ? { authorization: `Bearer ${key}` } : {} });
const unknownKey = (n: number) => `ak_live_${String(n).padStart(40, 'x')}`;

describe('unauthenticated partner and operator requests, per client address', () => {
  it('after the limit, requests that do not authenticate get 429 with Retry-After; known valid keys from the same address go on', async () => {
    const ip = '203.0.113.10';
    expect((await from('203.0.113.99', `${P}/tests`, h.a.apiKey)).statusCode).toBe(200); // the key is known to this process
    for (let i = 0; i < LIMIT; i++) {
      expectError(await from(ip, `${P}/tests`, i % 2 === 0 ? unknownKey(i) : undefined), 401, 'unauthenticated');
    }
    const refused = await from(ip, `${P}/tests`, unknownKey(99));
    expectError(refused, 429, 'rate_limited');
    expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
    expectError(await from(ip, `${P}/tests`), 429, 'rate_limited');
    expect((await from(ip, `${P}/tests`, h.a.apiKey)).statusCode).toBe(200);
    // A valid key this process has not seen yet is looked up and accepted too (issue 20: only failures count).
    expect((await from(ip, `${P}/tests`, h.b.apiKey)).statusCode).toBe(200);
    // Another address has its own allowance.
    expectError(await from('203.0.113.11', `${P}/tests`, unknownKey(1)), 401, 'unauthenticated');
  });

  it('applies to wrong operator tokens too, and never to the right one', async () => {
    const ip = '203.0.113.20';
    for (let i = 0; i < LIMIT; i++) expectError(await from(ip, '/api/admin/v1/institutions', 'wrong-token-0123456789abcdef'), 401, 'unauthenticated');
    expectError(await from(ip, '/api/admin/v1/institutions', 'wrong-token-0123456789abcdef'), 429, 'rate_limited');
    expect((await from(ip, '/api/admin/v1/institutions', ADMIN_TOKEN)).statusCode).toBe(200);
  });
});

describe('negative key cache', () => {
  it('an unknown well-formed key is looked up once, then refused from memory', async () => {
    const cache = createKeyCache({ pool: h.pool });
    await cache.start();
    try {
      let loads = 0;
      const load = async () => {
        loads++;
        return null;
      };
      expect(await cache.lookup(unknownKey(7), load)).toBeNull();
      expect(await cache.lookup(unknownKey(7), load)).toBeNull();
      expect(loads).toBe(1);
      expect(await cache.lookup(unknownKey(8), load)).toBeNull();
      expect(loads).toBe(2);
    } finally {
      await cache.stop();
    }
  });
});

describe('student traffic', () => {
  it('start links: per link, then a 429 page with Retry-After; other links from the same address go on', async () => {
    const ip = '198.51.100.6';
    for (let i = 0; i < LIMIT; i++) expect((await from(ip, '/s/one-link')).statusCode).toBe(404);
    const refused = await from(ip, '/s/one-link');
    expect(refused.statusCode).toBe(429);
    expect(refused.body).toContain('<h1>Too many attempts</h1>');
    expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
    expect((await from(ip, '/s/another-link')).statusCode).toBe(404);
    // The same link from another address shares the link's allowance.
    expect((await from('198.51.100.9', '/s/one-link')).statusCode).toBe(429);
  });

  it('start links: a per-address ceiling above the per-link one, then a 429 page with Retry-After', async () => {
    const ip = '198.51.100.7';
    for (let i = 0; i < LIMIT * 3; i++) expect((await from(ip, `/s/not-a-token-${i}`)).statusCode).toBe(404);
    const refused = await from(ip, '/s/not-a-token');
    expect(refused.statusCode).toBe(429);
    expect(refused.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(refused.body).toContain('<h1>Too many attempts</h1>');
    expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
    expect((await from('198.51.100.8', '/s/not-a-token')).statusCode).toBe(404);
  });

  it('autosave and the forms: per session, so a classroom behind one address is not one bucket', async () => {
    const a = await assign(h, h.a, { externalUserId: 'limited-1' });
    const b = await assign(h, h.a, { externalUserId: 'limited-2' });
    const s = new Student(h);
    const assignmentId = await s.start(a.startUrl); // the begin POST is the first of the session's allowance
    const other = new Student(h);
    await other.start(b.startUrl);
    const questionId = (await h.admin('GET', `/api/admin/v1/assignments/${assignmentId}`)).json().items[0].questionId;
    for (let i = 1; i < LIMIT; i++) expect((await s.save(assignmentId, [{ questionId, value: 'b', version: i }])).statusCode).toBe(200);
    const refused = await s.save(assignmentId, [{ questionId, value: 'a', version: 99 }]);
    expectError(refused, 429, 'rate_limited');
    expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
    const otherQuestion = (await h.admin('GET', `/api/admin/v1/assignments/${b.assignmentId}`)).json().items[0].questionId;
    expect((await other.save(b.assignmentId, [{ questionId: otherQuestion, value: 'b', version: 1 }])).statusCode).toBe(200);
  });
});

describe('the per-key limit is untouched', () => {
  it('authenticated partner requests are never counted against the address', async () => {
    for (let i = 0; i < LIMIT * 3; i++) expect((await from('203.0.113.30', `${P}/tests`, h.b.apiKey)).statusCode).toBe(200);
    expect((await h.partner(h.b, 'POST', `${P}/assignments`, assignmentBody(h.b))).statusCode).toBe(201);
  });
});
