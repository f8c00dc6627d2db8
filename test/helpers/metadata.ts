import { expect } from 'vitest';

/** A metadata object whose compact JSON is exactly `bytes` long, built from `char` (1 or 2 UTF-8 bytes). */
export function metadataOf(bytes: number, char = 'x'): Record<string, string> {
  const overhead = Buffer.byteLength(JSON.stringify({ k: '' }));
  const per = Buffer.byteLength(char);
  const room = bytes - overhead;
  const value = char.repeat(Math.floor(room / per)) + 'x'.repeat(room % per);
  const m = { k: value };
  expect(Buffer.byteLength(JSON.stringify(m))).toBe(bytes);
  return m;
}
