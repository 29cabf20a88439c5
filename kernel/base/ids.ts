/**
 * Identifiers: the spec's prefix plus 22 base62 characters (131 random bits, URL-safe).
 * Randomness is drawn from a pooled crypto buffer so ids stay cheap on hot paths.
 */
import { hash, randomFillSync } from 'node:crypto';

const ALPHABET = Buffer.from('0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz', 'latin1');
const SUFFIX_LENGTH = 22;
const pool = Buffer.alloc(8192);
let cursor = pool.length;
const out = Buffer.alloc(128);
const suffix = new Uint8Array(SUFFIX_LENGTH);
/** Character codes of the string being made, reused: one string is made per id. */
const codes: number[] = [];

/**
 * `prefix` and then `length` random base62 symbols, made as one string. (`prefix + suffix` would
 * keep a rope of two strings for the life of every id the platform stores.)
 */
export function randomString(prefix: string, length: number): string {
  const p = prefix.length;
  codes.length = p + length;
  for (let i = 0; i < p; i++) codes[i] = prefix.charCodeAt(i);
  let n = p;
  const end = p + length;
  while (n < end) {
    if (cursor === pool.length) {
      randomFillSync(pool);
      cursor = 0;
    }
    const b = pool[cursor++] & 63; // 6 bits; 62 and 63 are rejected so every symbol is equally likely
    if (b < 62) codes[n++] = ALPHABET[b];
  }
  return String.fromCharCode.apply(null, codes);
}

export const randomSuffix = (length = SUFFIX_LENGTH): string => randomString('', length);

/** Symbols of a time-ordered id's time: base62 milliseconds, enough past the year 8000. */
const TIME_SYMBOLS = 8;

/**
 * `prefix`, the time `at` (ms since the epoch) as TIME_SYMBOLS base62 symbols, most significant
 * first, then random symbols to the spec's 22 (83 random bits): ids of one prefix sort in the
 * order they were made, to the millisecond. A record keyed by such an id lands beside the last one
 * in an ordered store (a B-tree appends instead of touching a random page: docs/architecture.md
 * "What a write costs"); the ALPHABET is in ASCII order, so string order is time order.
 */
export function timeOrderedId(prefix: string, at: number): string {
  let t = Math.max(0, Math.floor(at));
  let time = '';
  for (let i = 0; i < TIME_SYMBOLS; i++) {
    time = String.fromCharCode(ALPHABET[t % 62]) + time;
    t = Math.floor(t / 62);
  }
  return randomString(prefix + time, SUFFIX_LENGTH - TIME_SYMBOLS);
}

export const newId = (prefix: string): string => randomString(prefix, SUFFIX_LENGTH);

export const hasPrefix = (id: unknown, prefix: string): id is string =>
  typeof id === 'string' && id.startsWith(prefix) && id.length > prefix.length;

/**
 * How a derived id's 22 symbols are read from SHA-256. `sampled` (every id derived since
 * Idempotency-Key creates): hash rounds of `round NUL parts joined by NUL`, each byte's low six bits
 * kept below 62. `modulo`: the digest of the parts joined with nothing, read as one integer, its
 * base62 digits least significant first; ledger posting ids and PAYE authority ids were first
 * stored in this form and must keep coming out the same.
 */
export type DerivedForm = 'sampled' | 'modulo';

/**
 * The one derived-id function: the same prefix, parts and form always give the same id, like a
 * random id in form (prefix + 22 base62 symbols). For a create retried with the same
 * Idempotency-Key, a posting caused by an event, a stable authority reference.
 */
export function derivedId(prefix: string, parts: readonly string[], form: DerivedForm = 'sampled'): string {
  if (form === 'modulo') {
    let n = BigInt('0x' + hash('sha256', parts.join(''), 'hex'));
    for (let i = 0; i < SUFFIX_LENGTH; i++) {
      suffix[i] = ALPHABET[Number(n % 62n)];
      n /= 62n;
    }
  } else {
    const text = parts.join('\u0000');
    let n = 0;
    let round = 0;
    while (n < SUFFIX_LENGTH) {
      const h = hash('sha256', `${round++}\u0000${text}`, 'buffer');
      for (let i = 0; i < h.length && n < SUFFIX_LENGTH; i++) {
        const b = h[i] & 63;
        if (b < 62) suffix[n++] = ALPHABET[b];
      }
    }
  }
  const p = out.write(prefix, 'latin1');
  for (let i = 0; i < SUFFIX_LENGTH; i++) out[p + i] = suffix[i];
  return out.toString('latin1', 0, p + SUFFIX_LENGTH); // one flat string
}

/** An id as a message quotes it: one read from a request may be thousands of characters long. */
export const shownId = (id: string): string => (id.length > 80 ? `${id.slice(0, 80)}...` : id);
