/**
 * Identifiers: the spec's prefix plus 22 base62 characters (131 random bits, URL-safe).
 * Randomness is drawn from a pooled crypto buffer so ids stay cheap on hot paths.
 */
import { randomFillSync } from 'node:crypto';

const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const SUFFIX_LENGTH = 22;
const pool = Buffer.alloc(4096);
let cursor = pool.length;

function randomByte(): number {
  if (cursor === pool.length) {
    randomFillSync(pool);
    cursor = 0;
  }
  return pool[cursor++];
}

export function randomSuffix(length = SUFFIX_LENGTH): string {
  let out = '';
  while (out.length < length) {
    const b = randomByte() & 63; // 6 bits; 62 and 63 are rejected so every symbol is equally likely
    if (b < 62) out += ALPHABET[b];
  }
  return out;
}

export const newId = (prefix: string): string => prefix + randomSuffix();

export const hasPrefix = (id: unknown, prefix: string): id is string =>
  typeof id === 'string' && id.startsWith(prefix) && id.length > prefix.length;
