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

const CODES = Buffer.from(ALPHABET, 'latin1');
/** An id's characters are written here, then read as one string: appending them one by one made a new string per character. */
const scratch = Buffer.alloc(64);

export function randomBase62(length: number): string {
  if (length > scratch.length) throw new RangeError(`an id of at most ${scratch.length} characters`);
  let n = 0;
  // Rejection sampling keeps the distribution uniform: 62 * 4 = 248 < 256.
  while (n < length) {
    const byte = randomByte();
    if (byte < 248) scratch[n++] = CODES[byte % 62]!;
  }
  return scratch.toString('latin1', 0, length);
}

export function newId(prefix: IdPrefix): string {
  return `${prefix}_${randomBase62(22)}`;
}
