/**
 * Identifiers: the spec's prefix plus 22 base62 characters (131 random bits, URL-safe).
 * Randomness is drawn from a pooled crypto buffer so ids stay cheap on hot paths.
 */
import { randomFillSync } from 'node:crypto';

const ALPHABET = Buffer.from('0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz', 'latin1');
const SUFFIX_LENGTH = 22;
const pool = Buffer.alloc(8192);
let cursor = pool.length;
const out = Buffer.alloc(64);

export function randomSuffix(length = SUFFIX_LENGTH): string {
  let n = 0;
  while (n < length) {
    if (cursor === pool.length) {
      randomFillSync(pool);
      cursor = 0;
    }
    const b = pool[cursor++] & 63; // 6 bits; 62 and 63 are rejected so every symbol is equally likely
    if (b < 62) out[n++] = ALPHABET[b];
  }
  return out.toString('latin1', 0, length);
}

export const newId = (prefix: string): string => prefix + randomSuffix();

export const hasPrefix = (id: unknown, prefix: string): id is string =>
  typeof id === 'string' && id.startsWith(prefix) && id.length > prefix.length;
