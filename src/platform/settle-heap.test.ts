import { describe, expect, it } from 'vitest';
import { settleHeap } from './settle-heap.js';

describe('settleHeap', () => {
  it('runs the exposed collector once', () => {
    let calls = 0;
    expect(settleHeap(() => calls++)).toBe(true);
    expect(calls).toBe(1);
  });

  it('does nothing where node runs without --expose-gc', () => {
    expect(settleHeap(undefined)).toBe(false);
  });
});
