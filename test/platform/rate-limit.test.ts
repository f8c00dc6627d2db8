import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRateLimiter } from '../../src/platform/http/rate-limit.js';
import { assignmentBody, createHarness, type Harness } from '../helpers/harness.js';
import { expectError } from '../helpers/expect-error.js';

describe('rate limiter (pure token bucket)', () => {
  function limiter(perSecond: number, burst: number) {
    let t = 0;
    const take = createRateLimiter({ perSecond, burst, now: () => t });
    return { take, advance: (ms: number) => (t += ms) };
  }

  it('allows a burst, then refuses with Retry-After, and refills at perSecond', () => {
    const { take, advance } = limiter(2, 3);
    const first = [take('k'), take('k'), take('k')];
    expect(first.map((r) => r.allowed)).toEqual([true, true, true]);
    expect(first.map((r) => r.headers['RateLimit-Remaining'])).toEqual(['2', '1', '0']);
    const refused = take('k');
    expect(refused.allowed).toBe(false);
    expect(refused.headers['Retry-After']).toBe('1');
    expect(refused.headers['RateLimit-Remaining']).toBe('0');
    advance(499);
    expect(take('k').allowed).toBe(false);
    advance(1);
    expect(take('k').allowed).toBe(true);
    expect(take('k').allowed).toBe(false);
  });

  it('reports the limit, and a reset that counts the seconds until the bucket is full', () => {
    const { take } = limiter(1, 5);
    take('k');
    const r = take('k');
    expect(r.headers['RateLimit-Limit']).toBe('5');
    expect(r.headers['RateLimit-Remaining']).toBe('3');
    expect(r.headers['RateLimit-Reset']).toBe('2');
    expect(r.headers['Retry-After']).toBeUndefined();
  });

  it('never refills past the burst', () => {
    const { take, advance } = limiter(10, 2);
    advance(60_000);
    expect([take('k'), take('k'), take('k')].map((r) => r.allowed)).toEqual([true, true, false]);
  });

  it('keeps one bucket per key', () => {
    const { take } = limiter(1, 1);
    expect(take('a').allowed).toBe(true);
    expect(take('a').allowed).toBe(false);
    expect(take('b').allowed).toBe(true);
  });

  it('when full, forgets the least recently used key instead of resetting every bucket', () => {
    let t = 0;
    const take = createRateLimiter({ perSecond: 1, burst: 1, now: () => t, maxKeys: 2 });
    expect(take('a').allowed).toBe(true);
    expect(take('b').allowed).toBe(true);
    expect(take('a').allowed).toBe(false); // a is now the most recently used
    expect(take('c').allowed).toBe(true); // full: b, the least recently used, goes
    expect(take('a').allowed).toBe(false); // a kept its empty bucket
    expect(take('b').allowed).toBe(true); // b starts over
  });

  it('Retry-After is the wait until one token is back, at least one second', () => {
    const { take } = limiter(0.25 as number, 1);
    take('k');
    expect(take('k').headers['Retry-After']).toBe('4');
  });
});

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
