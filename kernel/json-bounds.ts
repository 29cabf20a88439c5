/**
 * Bounds on a JSON request body, checked on its bytes before JSON.parse (docs/gaps.md#gateway):
 * a value nested thousands deep overflows the recursive schema check (a 500), and parsing one of a
 * whole body's size costs far more than reading it. One pass over the bytes, no allocation.
 *
 * Counted on valid JSON exactly: depth is the most arrays and objects open at once (the body's
 * own outer value is level 1); values are the body itself plus every element and member value
 * (1 + commas + non-empty containers, commas inside strings not counted). Bytes that are not JSON
 * get some count and are then refused by JSON.parse as unreadable.
 */

export const JSON_MAX_DEPTH = 64;
/** 2^18: far above any body a route takes (a payroll import of 5,000 rows holds about 80,000). */
export const JSON_MAX_VALUES = 262_144;

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COMMA = 0x2c;
const OPEN_ARRAY = 0x5b;
const OPEN_OBJECT = 0x7b;
const CLOSE_ARRAY = 0x5d;
const CLOSE_OBJECT = 0x7d;

const isSpace = (c: number) => c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09;

const tooDeep = (max: number) => `The request body nests deeper than ${max} levels of arrays and objects.`;
const tooMany = (max: number) => `The request body holds more than ${max} JSON values.`;

/** Why the body exceeds a bound, in words naming it; undefined when it is within both. */
export function jsonBoundsRefusal(bytes: Uint8Array, maxDepth = JSON_MAX_DEPTH, maxValues = JSON_MAX_VALUES): string | undefined {
  let depth = 0;
  let values = 1;
  let justOpened = false;
  for (let i = 0; i < bytes.length; i++) {
    const c = bytes[i];
    if (isSpace(c)) continue;
    if (justOpened) {
      justOpened = false;
      // the first element of a container that is not empty
      if (c !== CLOSE_ARRAY && c !== CLOSE_OBJECT && ++values > maxValues) return tooMany(maxValues);
    }
    if (c === QUOTE) {
      for (i++; i < bytes.length && bytes[i] !== QUOTE; i++) if (bytes[i] === BACKSLASH) i++;
    } else if (c === OPEN_ARRAY || c === OPEN_OBJECT) {
      if (++depth > maxDepth) return tooDeep(maxDepth);
      justOpened = true;
    } else if (c === CLOSE_ARRAY || c === CLOSE_OBJECT) {
      depth--;
    } else if (c === COMMA && ++values > maxValues) {
      return tooMany(maxValues);
    }
  }
  return undefined;
}
