/**
 * Identifiers: the spec's prefix plus 22 base62 characters (131 random bits, URL-safe).
 * Randomness is drawn from a pooled crypto buffer so ids stay cheap on hot paths.
 */
import { hash, randomFillSync } from 'node:crypto';

const ALPHABET = Buffer.from('0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz', 'latin1');
const SUFFIX_LENGTH = 22;
const pool = Buffer.alloc(8192);
let cursor = pool.length;
const out = Buffer.alloc(64);
/** Character codes of the suffix being drawn, reused: one string is made per id. */
const codes: number[] = new Array(SUFFIX_LENGTH).fill(0);

export function randomSuffix(length = SUFFIX_LENGTH): string {
  codes.length = length;
  let n = 0;
  while (n < length) {
    if (cursor === pool.length) {
      randomFillSync(pool);
      cursor = 0;
    }
    const b = pool[cursor++] & 63; // 6 bits; 62 and 63 are rejected so every symbol is equally likely
    if (b < 62) codes[n++] = ALPHABET[b];
  }
  return String.fromCharCode.apply(null, codes);
}

export const newId = (prefix: string): string => prefix + randomSuffix();

export const hasPrefix = (id: unknown, prefix: string): id is string =>
  typeof id === 'string' && id.startsWith(prefix) && id.length > prefix.length;

/**
 * An id derived from `parts`: the same parts always give the same id (22 base62 symbols from
 * SHA-256, like a random id in form). For a create retried with the same Idempotency-Key.
 */
export function derivedId(prefix: string, ...parts: string[]): string {
  let n = 0;
  let round = 0;
  while (n < SUFFIX_LENGTH) {
    const h = hash('sha256', `${round++}\u0000${parts.join('\u0000')}`, 'buffer');
    for (let i = 0; i < h.length && n < SUFFIX_LENGTH; i++) {
      const b = h[i] & 63;
      if (b < 62) out[n++] = ALPHABET[b];
    }
  }
  return prefix + out.toString('latin1', 0, SUFFIX_LENGTH);
}
