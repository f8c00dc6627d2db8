import { describe, expect, it, vi } from 'vitest';
import { ByteMeter, ByteRate, Gate } from './byte-rate.js';

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

describe('ByteMeter', () => {
  it('takes from the rate once per step, not per chunk, and says when to wait', async () => {
    const rate = new ByteRate(1_000_000_000);
    const take = vi.spyOn(rate, 'take');
    const meter = new ByteMeter(rate, 256 * 1024);
    let waits = 0;
    // 100 chunks of 46.5 KB: a take every 6 chunks (285,696 bytes, the first count past 256 KiB), 16 in all.
    for (let i = 0; i < 100; i++) {
      const wait = meter.add(47_616);
      if (wait) {
        waits++;
        await wait;
      }
    }
    expect(waits).toBe(16);
    expect(take.mock.calls).toEqual(Array.from({ length: 16 }, () => [6 * 47_616]));
  });

  it('holds a stream to the rate, past the burst', async () => {
    const meter = new ByteMeter(new ByteRate(1_000_000, 100_000), 50_000);
    const t0 = performance.now();
    // 400 kB at 1 MB/s, the first 100 kB as the burst: about 300 ms.
    for (let i = 0; i < 40; i++) await meter.add(10_000);
    expect(performance.now() - t0).toBeGreaterThanOrEqual(290);
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
