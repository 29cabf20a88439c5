/**
 * An actor's remembered dedupe ids (DESIGN "The runtime": a command with a dedupe id seen before has no second
 * effect): one id is kept as itself, more in a bounded map that keeps at least the last `capacity`.
 */
import { describe, expect, it } from 'vitest';
import { listed, remember, type Remembered, seen } from '../../runtime/dedupe.ts';

describe('remembered dedupe ids (DESIGN "The runtime", dedupe)', () => {
  it('one id is kept as itself and recognised', () => {
    const r = remember(undefined, ['create-1'], 8);
    expect(r).toBe('create-1');
    expect(seen(r, 'create-1')).toBe(true);
    expect(seen(r, 'create-2')).toBe(false);
    expect(listed(r, 8)).toEqual(['create-1']);
  });

  it('a second id keeps the first, and a snapshot lists at most the last `capacity`, oldest first', () => {
    let r: Remembered = remember(undefined, ['a'], 3);
    r = remember(r, ['b'], 3);
    expect(seen(r, 'a') && seen(r, 'b')).toBe(true);
    for (const id of ['c', 'd', 'e', 'f']) r = remember(r, [id], 3);
    expect(listed(r, 3)).toEqual(['d', 'e', 'f']);
    for (const id of ['d', 'e', 'f']) expect(seen(r, id)).toBe(true);
  });

  it('nothing remembered sees nothing and lists nothing', () => {
    expect(seen(undefined, 'a')).toBe(false);
    expect(listed(undefined, 3)).toEqual([]);
    expect(remember(undefined, [], 3)).toBeUndefined();
  });
});
