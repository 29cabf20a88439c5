/**
 * kernel flat: a kept string made one flat string (kernel/base/strings.ts). What it does to V8's
 * representation is measured in the allocation bench's notes; here, that it never changes a value.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { flat } from '../../kernel/index.ts';

describe('flat (strings a store keeps)', () => {
  it('answers the same string for any text, built by JSON.stringify or by concatenation', () => {
    fc.assert(fc.property(fc.jsonValue(), (v) => {
      const json = JSON.stringify(v) ?? 'null';
      return flat(json) === json && flat(json + json) === json + json;
    }), { numRuns: 2_000 });
  });

  it('keeps strings that read as numbers, and the empty string, as they are', () => {
    for (const s of ['', '0', '-1', '1e309', '0x10', ' 42 ', 'NaN', 'Infinity', '\u00e9\u{1F600}']) expect(flat(s)).toBe(s);
  });
});
