/**
 * The last assignments a sequencer gave (event stream, webhook endpoint), kept so that an event
 * the feed reader offers again is answered with the number it already got.
 *
 * Persistent and append-only: a state owns `items[start, end)`. Remembering one more appends in
 * place when no later state has appended to the same array (its length is still `end`), else it
 * copies; older states never see a change, so evolve stays pure. The array is compacted to the
 * last `keep` entries when it reaches twice that, so an append costs O(1) amortised instead of a
 * copy of the whole window.
 *
 * Repeats can only be events at or before the last feed position assigned, so the common case
 * (a new event) never searches.
 */

export interface Recent<T> {
  items: T[];
  start: number;
  end: number;
  /** Highest feed position remembered; 0 before any. */
  position: number;
}

export const emptyRecent = <T>(): Recent<T> => ({ items: [], start: 0, end: 0, position: 0 });

export function remember<T>(r: Recent<T>, item: T, position: number | undefined, keep: number): Recent<T> {
  let { items, start, end } = r;
  if (items.length !== end || end >= 2 * keep) {
    items = items.slice(Math.max(start, end - keep + 1), end);
    start = 0;
    end = items.length;
  }
  items.push(item);
  end++;
  if (end - start > keep) start = end - keep;
  return { items, start, end, position: position !== undefined && position > r.position ? position : r.position };
}

/**
 * The remembered item matching, newest first; only looked for when `position` may be a repeat.
 * A window whose items carry no position (recorded before positions were kept) is always searched.
 */
export function recall<T>(r: Recent<T>, position: number | undefined, match: (item: T) => boolean): T | undefined {
  if (position !== undefined && r.position > 0 && position > r.position) return undefined;
  for (let i = r.end - 1; i >= r.start; i--) if (match(r.items[i])) return r.items[i];
  return undefined;
}
