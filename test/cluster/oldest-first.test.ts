/**
 * A Map bounded oldest-first (stores/cluster/oldest-first.ts; the journal's shared feed messages and
 * the credential read cache): it keeps at least the newest `limit` keys and never more than an
 * eighth over, and what it lets go is always the oldest.
 */
import { expect, it } from 'vitest';
import { forgetOldest } from '../../stores/cluster/oldest-first.ts';

it.each([1, 8, 1000])('a map bounded at %i keeps the newest keys, at most an eighth over, and lets the oldest go first', (limit) => {
  const m = new Map<number, number>();
  let largest = 0;
  for (let k = 0; k < 20 * limit + 7; k++) {
    m.set(k, k);
    forgetOldest(m, limit);
    largest = Math.max(largest, m.size);
    expect(m.has(k)).toBe(true);
    expect(m.size).toBeGreaterThanOrEqual(Math.min(k + 1, limit));
  }
  expect(largest).toBeLessThanOrEqual(limit + Math.max(1, limit >> 3));
  const kept = [...m.keys()];
  // the newest, in order, with nothing older left behind a newer one
  expect(kept).toEqual(Array.from({ length: kept.length }, (_, i) => 20 * limit + 7 - kept.length + i));
});
