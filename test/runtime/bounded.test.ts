/**
 * The bounded map behind the runtime's and the areas' recent-memory caches (dedupe ids per actor,
 * delivery's folded views, parsed endpoint URLs): it keeps at least the last `capacity` keys set and
 * never more than twice as many.
 */
import { describe, expect, it } from 'vitest';
import { BoundedMap } from '../../runtime/index.ts';

describe('BoundedMap (recent memory, at least capacity keys, at most twice)', () => {
  it('remembers at least the last `capacity` keys set, whatever came before', () => {
    const m = new BoundedMap<string, number>(100);
    for (let i = 0; i < 10_000; i++) {
      m.set(`k${i}`, i);
      expect(m.size).toBeLessThanOrEqual(200);
    }
    for (let i = 10_000 - 100; i < 10_000; i++) expect(m.get(`k${i}`)).toBe(i);
    expect(m.has('k0')).toBe(false);
  });

  it('a key set again counts as recent, and keeps its newest value', () => {
    const m = new BoundedMap<string, number>(3);
    m.set('a', 1).set('b', 2).set('c', 3); // a, b, c now the older generation
    m.set('a', 10); // used again: moves to the newer one
    m.set('d', 4).set('e', 5); // the newer generation fills and the older (b, c) is dropped
    expect([...m.keys()]).toEqual(['a', 'd', 'e']);
    expect(m.get('a')).toBe(10);
    expect(m.has('b')).toBe(false);
  });

  it('keys() runs from the least to the most recently set; delete and clear forget', () => {
    const m = new BoundedMap<string, true>(2);
    for (const k of ['a', 'b', 'c']) m.set(k, true);
    expect([...m.keys()]).toEqual(['a', 'b', 'c']);
    expect(m.delete('b')).toBe(true);
    expect(m.delete('b')).toBe(false);
    expect([...m.keys()]).toEqual(['a', 'c']);
    m.clear();
    expect(m.size).toBe(0);
    expect(m.get('a')).toBeUndefined();
  });

  it('a stored undefined is told apart from a missing key', () => {
    const m = new BoundedMap<string, undefined | number>(2);
    m.set('a', 1).set('b', 2).set('x', undefined); // a, b in the older generation; x in the newer
    expect(m.has('x')).toBe(true);
    expect(m.get('a')).toBe(1);
  });

  it('refuses a capacity below one', () => {
    expect(() => new BoundedMap(0)).toThrow(RangeError);
  });
});
