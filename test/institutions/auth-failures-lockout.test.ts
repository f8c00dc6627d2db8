import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiKey } from '../../src/modules/institutions/api-keys.js';
import { expectError } from '../helpers/expect-error.js';
import { ADMIN_TOKEN, createHarness, type Harness } from '../helpers/harness.js';

/**
 * Issue 20, item 1: someone else's failed authentications from an address
 * never lock out a valid key from that address. Authentication comes first
 * (cache, negative cache, database); only failures count against the address.
 */
const P = '/api/partner/v1';
const LIMIT = 60;
let h: Harness;

beforeAll(async () => {
  h = await createHarness({ config: { requestLimits: { unauthenticatedPerMinute: LIMIT, startLinksPerMinute: 100_000, startLinkOpensPerMinute: 100_000, studentPostsPerMinute: 100_000 } } });
});
afterAll(() => h.close());

const from = (ip: string, url: string, key?: string) =>
  h.app.inject({ method: 'GET', url, remoteAddress: ip, headers: key ? { authorization: `Bearer ${key}` } : {} });
const unknownKey = (n: number) => `ak_live_${String(n).padStart(40, 'y')}`;

describe('failed authentications from an address', () => {
  it('after 61 failures, a valid partner key this process has never seen still succeeds from that address; a bad key is still refused', async () => {
    const ip = '203.0.113.61';
    for (let i = 0; i <= LIMIT; i++) {
      const res = await from(ip, `${P}/tests`, unknownKey(i));
      expect(res.statusCode).toBe(i < LIMIT ? 401 : 429);
    }
    // Created a moment ago, directly in the database: not in this process's key cache.
    const { apiKey } = await createApiKey(h.pool, h.a.institutionId, 'fresh');
    const ok = await from(ip, `${P}/tests`, apiKey);
    expect(ok.statusCode).toBe(200);
    // Its own per-key limit headers, not the address's.
    expect(ok.headers['ratelimit-limit']).toBeDefined();
    expectError(await from(ip, `${P}/tests`, unknownKey(999)), 429, 'rate_limited');
    expectError(await from(ip, `${P}/tests`), 429, 'rate_limited');
    expectError(await from(ip, `${P}/tests`, 'not-even-a-key'), 429, 'rate_limited');
  });

  it('a valid key is not counted as a failure: failures after it are counted from where they were', async () => {
    const ip = '203.0.113.62';
    for (let i = 0; i < LIMIT - 1; i++) expect((await from(ip, `${P}/tests`, unknownKey(1000 + i))).statusCode).toBe(401);
    for (let i = 0; i < 5; i++) expect((await from(ip, `${P}/tests`, h.b.apiKey)).statusCode).toBe(200);
    expectError(await from(ip, `${P}/tests`, unknownKey(2000)), 401, 'unauthenticated');
    expectError(await from(ip, `${P}/tests`, unknownKey(2001)), 429, 'rate_limited');
  });

  it('the operator API: a valid operator token is never refused by the address limit; a wrong one is', async () => {
    const ip = '203.0.113.63';
    for (let i = 0; i <= LIMIT; i++) {
      const res = await from(ip, '/api/admin/v1/institutions', `wrong-token-${i}-0123456789abcdef`);
      expect(res.statusCode).toBe(i < LIMIT ? 401 : 429);
    }
    expect((await from(ip, '/api/admin/v1/institutions', ADMIN_TOKEN)).statusCode).toBe(200);
    expectError(await from(ip, '/api/admin/v1/institutions', 'wrong-token-again-0123456789abcdef'), 429, 'rate_limited');
    expectError(await from(ip, '/api/admin/v1/institutions'), 429, 'rate_limited');
  });
});
