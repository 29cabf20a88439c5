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

export const join = (...parts: string[]): string => parts.join(SEP);
