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

const wait = (ms: number) => new Promise((r) => setTimeout(r, ms));
/** A rate that gives way, reading the loop's busy share the test sets every 5 ms; its floor a tenth of the rate unless given. */
function watched(rate: number, burst: number, floor: number | (() => number) = rate / 10) {
  const loop = { busy: 0.4, readings: 0 };
  const r = new ByteRate(rate, burst, {
    busyAbove: 0.5,
    busyBelow: 0.3,
    floorBytesPerSecond: floor,
    startBytesPerSecond: rate,
    everyMs: 5,
    loopBusy: () => (loop.readings++, loop.busy),
  });
  return { r, loop };
}

describe('ByteRate giving way to a busy event loop', () => {

  it('halves the rate while the loop is busy, down to the floor, and grows it back by a quarter at a time while it is idle, up to the rate it was made with', async () => {
    const { r, loop } = watched(1_000_000, 100_000);
    loop.busy = 0.9;
    await r.take(1);
    await wait(60);
    expect(r.rate).toBe(100_000);
    loop.busy = 0.1;
    const seen = new Set<number>();
    for (let i = 0; i < 40 && r.rate < 1_000_000; i++) {
      seen.add(r.rate);
      await wait(5);
    }
    expect(r.rate).toBe(1_000_000);
    // It grew in steps (a quarter each), not at once.
    expect(seen.size).toBeGreaterThan(3);
  });

  it('between the two thresholds the rate stays; takers wait at the rate of the moment', async () => {
    const { r, loop } = watched(1_000_000, 0);
    loop.busy = 0.9;
    await r.take(1);
    while (r.rate > 250_000) await wait(1);
    loop.busy = 0.4;
    const held = r.rate;
    await wait(30);
    expect(r.rate).toBe(held);
    const t0 = performance.now();
    // 25 kB at 250 kB/s or less: 100 ms or more (at the full rate it would be 25).
    await r.take(25_000);
    expect(performance.now() - t0).toBeGreaterThanOrEqual(90);
  });

  it('stops reading the loop a second after the last taker, back at the full rate; a rate made without giveWay never changes', async () => {
    const { r, loop } = watched(1_000_000, 100_000);
    loop.busy = 0.9;
    await r.take(1);
    await wait(30);
    expect(r.rate).toBeLessThan(1_000_000);
    await wait(1100);
    const readings = loop.readings;
    expect(r.rate).toBe(1_000_000);
    await wait(30);
    expect(loop.readings).toBe(readings);
    const plain = new ByteRate(1_000_000);
    await plain.take(1);
    await wait(30);
    expect(plain.rate).toBe(1_000_000);
  });
});

describe('ByteRate giving way, its floor', () => {
  it('a floor given as a function is read at each tick: the rate never falls below it, and rises to it when it grows', async () => {
    const floor = { at: 100_000 };
    const { r, loop } = watched(1_000_000, 100_000, () => floor.at);
    loop.busy = 0.9;
    await r.take(1);
    await wait(60);
    expect(r.rate).toBe(100_000);
    // More streams (say): the floor rises, and the rate with it, though the loop is as busy.
    floor.at = 400_000;
    await wait(20);
    expect(r.rate).toBe(400_000);
    // Never above the rate it was made with.
    floor.at = 5_000_000;
    await wait(20);
    expect(r.rate).toBe(1_000_000);
  });
});
