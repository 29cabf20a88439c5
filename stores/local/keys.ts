import { createHash } from 'node:crypto';

/**
 * Key shapes of the local family. Keys are strings in LMDB's ordered-binary encoding, which
 * orders them by their UTF-8 bytes; a part that ranges (a time) is written as fixed-width digits,
 * and parts are joined by the unit separator \u001f, which no name, id or sort key contains, so
 * a prefix and the separator bound exactly the keys under it (the prefix and the next character,
 * a space, is past the last of them). Not a lower control character: ordered-binary gives a key
 * with one of those back as an array of parts.
 */
export const SEP = '\u001f';
export const PAST = ' ';

/**
 * A non-negative integer (ms since epoch, a version) as 16 digits: byte order is numeric order.
 * Open bounds (±Infinity, as a range's ends) clamp to the first and last such key.
 */
export const fixed = (n: number): string => {
  const s = String(Math.min(Number.MAX_SAFE_INTEGER, Math.max(0, Math.floor(n))));
  return s.length >= 16 ? s : '0'.repeat(16 - s.length) + s;
};

/** Longest part written as it is, in UTF-8 bytes: three such parts and a time stay under LMDB's key limit. */
const LONGEST_PART = 512;
/** Starts a part that stands for a longer one; no name or id starts with it. */
const DIGESTED = '\u001e';

/**
 * A part of a key as written: itself, or, past LONGEST_PART bytes, a digest of it. Such a part
 * only comes from hostile input (a path id of thousands of characters) and only needs to find
 * what was written under the same part; it keeps no order.
 */
export const part = (s: string): string => (s.length * 3 <= LONGEST_PART || Buffer.byteLength(s) <= LONGEST_PART ? s : DIGESTED + createHash('sha256').update(s).digest('base64url'));

export const join = (...parts: string[]): string => {
  let out = part(parts[0]);
  for (let i = 1; i < parts.length; i++) out += SEP + part(parts[i]);
  return out;
};

/** The parts of a key written with join, or undefined when one was written as its digest (its name is not kept). */
export const keyParts = (key: string): string[] | undefined => {
  const parts = key.split(SEP);
  return parts.some((p) => p.startsWith(DIGESTED)) ? undefined : parts;
};
