import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { assignmentBody, createHarness, type Harness } from '../helpers/harness.js';
import { expectError } from '../helpers/expect-error.js';

// The token bucket itself is checked on an injected clock in src/platform/http/rate-limit.test.ts.
describe('rate limiting over HTTP', () => {
  let h: Harness;
  beforeAll(async () => {
    // One token per 20 s: slow enough that no refill lands inside a test, however loaded the machine.
    h = await createHarness({ config: { rateLimit: { perSecond: 0.05, burst: 3 } } });
  });
  afterAll(() => h.close());

  it('sends RateLimit-* headers on every authenticated response, success or error, and 429 rate_limited once exceeded', async () => {
    const t = await h.createTenant('Limited One');
    const responses = [
      await h.partner(t, 'GET', '/api/partner/v1/tests'),
      await h.partner(t, 'POST', '/api/partner/v1/assignments', { bad: true }),
      await h.partner(t, 'GET', '/api/partner/v1/assignments/asg_unknown'),
    ];
    expect(responses.map((r) => r.statusCode)).toEqual([200, 400, 404]);
    for (const r of responses) {
      expect(r.headers['ratelimit-limit']).toBe('3');
      expect(r.headers['ratelimit-reset']).toMatch(/^\d+$/);
    }
    expect(responses.map((r) => r.headers['ratelimit-remaining'])).toEqual(['2', '1', '0']);

    const limited = await h.partner(t, 'POST', '/api/partner/v1/assignments', assignmentBody(t));
    expectError(limited, 429, 'rate_limited');
    expect(Number(limited.headers['retry-after'])).toBeGreaterThan(1);
    expect(Number(limited.headers['retry-after'])).toBeLessThanOrEqual(20);
    expect(limited.headers['ratelimit-remaining']).toBe('0');
    expect(limited.headers['ratelimit-limit']).toBe('3');
    // The refused create changed nothing.
    expect((await h.pool.query('SELECT count(*)::int AS n FROM assignments WHERE institution_id = $1', [t.institutionId])).rows[0].n).toBe(0);
  });

  it('limits per key: another key, of the same or another institution, has its own bucket', async () => {
    const t = await h.createTenant('Limited Two');
    for (let i = 0; i < 3; i++) expect((await h.partner(t, 'GET', '/api/partner/v1/tests')).statusCode).toBe(200);
    expectError(await h.partner(t, 'GET', '/api/partner/v1/tests'), 429, 'rate_limited');
    const second = (await h.admin('POST', `/api/admin/v1/institutions/${t.institutionId}/api-keys`, {})).json();
    expect((await h.partner(second.apiKey, 'GET', '/api/partner/v1/tests')).statusCode).toBe(200);
    expect((await h.partner(h.b, 'GET', '/api/partner/v1/tests')).statusCode).toBe(200);
  });

  it('unauthenticated requests neither consume a key’s tokens nor get RateLimit headers', async () => {
    const t = await h.createTenant('Limited Three');
    const anon = await h.partner(null, 'GET', '/api/partner/v1/tests');
    expect(anon.statusCode).toBe(401);
    expect(anon.headers['ratelimit-limit']).toBeUndefined();
    const res = await h.partner(t, 'GET', '/api/partner/v1/tests');
    expect(res.headers['ratelimit-remaining']).toBe('2');
  });

  it('the operator API is not limited by partner buckets', async () => {
    for (let i = 0; i < 5; i++) expect((await h.admin('GET', '/api/admin/v1/institutions')).statusCode).toBe(200);
  });
});
