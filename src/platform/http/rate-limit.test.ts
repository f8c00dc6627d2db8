import { describe, expect, it } from 'vitest';
import { createRateLimiter } from './rate-limit.js';

// The token bucket on an injected clock. Over HTTP (headers, 429s, per key): test/platform/rate-limit.test.ts.
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
    expect(first.map((r) => r.headers['ratelimit-remaining'])).toEqual(['2', '1', '0']);
    const refused = take('k');
    expect(refused.allowed).toBe(false);
    expect(refused.headers['Retry-After']).toBe('1');
    expect(refused.headers['ratelimit-remaining']).toBe('0');
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
    expect(r.headers['ratelimit-limit']).toBe('5');
    expect(r.headers['ratelimit-remaining']).toBe('3');
    expect(r.headers['ratelimit-reset']).toBe('2');
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
