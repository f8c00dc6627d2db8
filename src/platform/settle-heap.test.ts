import { describe, expect, it } from 'vitest';
import { settleHeap, settleHeapOnceReady } from './settle-heap.js';

describe('settleHeap', () => {
  it('runs the exposed collector once', () => {
    let calls = 0;
    expect(settleHeap(() => calls++)).toBe(true);
    expect(calls).toBe(1);
  });

  it('does nothing where node runs without --expose-gc', () => {
    expect(settleHeap(undefined)).toBe(false);
  });

  it('collects once the app is ready, so the schemas compiled at ready are behind it', async () => {
    const order: string[] = [];
    const app = { ready: async () => void order.push('ready') };
    expect(await settleHeapOnceReady(app, () => order.push('gc'))).toBe(true);
    expect(order).toEqual(['ready', 'gc']);
  });
});
