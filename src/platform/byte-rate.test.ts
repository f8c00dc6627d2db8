import { describe, expect, it } from 'vitest';
import { ByteRate, Gate } from './byte-rate.js';

describe('ByteRate', () => {
  it('lets a burst through at once, then holds takers to the rate, shared between them', async () => {
    const rate = new ByteRate(1_000_000, 100_000);
    const t0 = performance.now();
    await rate.take(100_000);
    expect(performance.now() - t0).toBeLessThan(20);
    // Two takers of 100 kB each at 1 MB/s: together they wait about 200 ms.
    await Promise.all([rate.take(100_000), rate.take(100_000)]);
    expect(performance.now() - t0).toBeGreaterThanOrEqual(190);
  });
});

describe('Gate', () => {
  it('runs at most n at once and the rest in arrival order', async () => {
    const gate = new Gate(2);
    let inside = 0;
    let most = 0;
    const order: number[] = [];
    await Promise.all(
      [1, 2, 3, 4, 5].map((n) =>
        gate.run(async () => {
          inside++;
          most = Math.max(most, inside);
          await new Promise((r) => setTimeout(r, 5));
          order.push(n);
          inside--;
        }),
      ),
    );
    expect(most).toBe(2);
    expect(order.slice(2)).toEqual([3, 4, 5]);
  });
});
