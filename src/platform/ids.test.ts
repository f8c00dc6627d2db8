import { describe, expect, it } from 'vitest';
import { newId, randomBase62 } from './ids.js';

describe('ids', () => {
  it('are the prefix and 22 base62 characters, each id its own', () => {
    const ids = Array.from({ length: 2000 }, () => newId('req'));
    for (const id of ids) expect(id).toMatch(/^req_[0-9A-Za-z]{22}$/);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('use the whole alphabet about evenly (no character favoured by the byte-to-character mapping)', () => {
    const counts = new Map<string, number>();
    for (const c of Array.from({ length: 3100 }, () => randomBase62(40)).join('')) counts.set(c, (counts.get(c) ?? 0) + 1);
    expect(counts.size).toBe(62);
    // 124,000 characters: 2,000 each expected; a binomial's standard deviation is about 44.
    for (const n of counts.values()) expect(Math.abs(n - 2000)).toBeLessThan(250);
  });

  it('returns a string of its own, not a view of a buffer that the next id overwrites', () => {
    const a = randomBase62(32);
    const copy = `${a}`;
    randomBase62(32);
    expect(a).toBe(copy);
  });
});
