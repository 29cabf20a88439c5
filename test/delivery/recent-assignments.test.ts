/**
 * The sequencers' memory of recent assignments (spec 6 `sequence`: no gaps, and an event offered
 * again keeps its number; actors/delivery/recent-assignments.ts).
 */
import { describe, expect, it } from 'vitest';
import { emptyRecent, recall, remember, type Recent } from '../../actors/delivery/recent-assignments.ts';

const KEEP = 4;
const fill = (from: number, to: number, r: Recent<string> = emptyRecent()) => {
  for (let p = from; p <= to; p++) r = remember(r, `e${p}`, p, KEEP);
  return r;
};
const has = (r: Recent<string>, id: string, position?: number) => recall(r, position, (x) => x === id) !== undefined;

describe('recent assignments (spec 6 sequence: a repeat keeps its number)', () => {
  it('remembers the last KEEP assignments and forgets older ones', () => {
    const r = fill(1, 10);
    expect(['e7', 'e8', 'e9', 'e10'].every((id) => has(r, id))).toBe(true);
    expect(has(r, 'e6')).toBe(false);
    expect(r.position).toBe(10);
  });

  it('an earlier state is unchanged by what later states remember, also when two branch from it', () => {
    const base = fill(1, 3);
    const a = remember(base, 'a4', 4, KEEP);
    const b = remember(base, 'b4', 4, KEEP); // appends to the same array would be visible to `a`
    expect(has(base, 'a4')).toBe(false);
    expect(has(base, 'b4')).toBe(false);
    expect(has(a, 'a4') && !has(a, 'b4')).toBe(true);
    expect(has(b, 'b4') && !has(b, 'a4')).toBe(true);
  });

  it('keeps its array bounded however many it remembers', () => {
    const r = fill(1, 10_000);
    expect(r.items.length).toBeLessThanOrEqual(2 * KEEP);
    expect(r.end - r.start).toBe(KEEP);
  });

  it('an event past the last position remembered is new and is not looked for', () => {
    const r = fill(1, 5);
    let looked = 0;
    expect(recall(r, 6, () => (looked++, true))).toBeUndefined();
    expect(looked).toBe(0);
    expect(recall(r, 5, (x) => x === 'e5')).toBe('e5');
  });

  it('assignments recorded without a position are still found when offered again with one', () => {
    let r = emptyRecent<string>();
    for (let p = 1; p <= 3; p++) r = remember(r, `old${p}`, undefined, KEEP); // journal events from before positions
    expect(recall(r, 42, (x) => x === 'old2')).toBe('old2');
    r = remember(r, 'e43', 43, KEEP);
    expect(recall(r, 44, () => true)).toBeUndefined();
  });

  it('survives a snapshot round trip as plain data', () => {
    const r = JSON.parse(JSON.stringify(fill(1, 6))) as Recent<string>;
    const next = remember(r, 'e7', 7, KEEP);
    expect(has(next, 'e7') && has(next, 'e4') && !has(next, 'e3')).toBe(true);
  });
});
