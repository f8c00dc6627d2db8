import { randomFillSync } from 'node:crypto';

/**
 * Opaque, prefixed, URL-safe identifiers (docs/api-rules.md "Identifiers").
 * 22 base62 characters carry ~131 bits of randomness: unguessable, so an id
 * alone never grants access, and never a database serial.
 */
export type IdPrefix = 'tst' | 'tv' | 'asg' | 'evt' | 'whep' | 'key' | 'ins' | 'usr' | 'q' | 'att' | 'del' | 'job' | 'req' | 'flg' | 'snp' | 'stf' | 'sec' | 'fil' | 'ast';

const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

// Bytes from the CSPRNG, fetched 4 KB at a time: one system call serves about a hundred ids
// instead of one per id (every request gets an id). Each byte is used once, then the pool refills.
const pool = Buffer.alloc(4096);
let next = pool.length;

function randomByte(): number {
  if (next === pool.length) {
    randomFillSync(pool);
    next = 0;
  }
  return pool[next++]!;
}

export function randomBase62(length: number): string {
  let out = '';
  // Rejection sampling keeps the distribution uniform: 62 * 4 = 248 < 256.
  while (out.length < length) {
    const byte = randomByte();
    if (byte < 248) out += ALPHABET[byte % 62];
  }
  return out;
}

export function newId(prefix: IdPrefix): string {
  return `${prefix}_${randomBase62(22)}`;
}
