import { randomBytes } from 'node:crypto';

/**
 * Opaque, prefixed, URL-safe identifiers (decisions.md "Identifiers").
 * 22 base62 characters carry ~131 bits of randomness: unguessable, so an id
 * alone never grants access, and never a database serial.
 */
export type IdPrefix = 'tst' | 'tv' | 'asg' | 'evt' | 'whep' | 'key' | 'ins' | 'usr' | 'q' | 'att' | 'del' | 'job' | 'req';

const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

export function randomBase62(length: number): string {
  let out = '';
  // Rejection sampling keeps the distribution uniform: 62 * 4 = 248 < 256.
  while (out.length < length) {
    for (const byte of randomBytes(length * 2)) {
      if (byte < 248) out += ALPHABET[byte % 62];
      if (out.length === length) break;
    }
  }
  return out;
}

export function newId(prefix: IdPrefix): string {
  return `${prefix}_${randomBase62(22)}`;
}
