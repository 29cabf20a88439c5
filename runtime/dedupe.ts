/**
 * The dedupe ids an actor remembers (at least the last `capacity`): a command carrying one of them
 * has no second effect. Most actors only ever see one, the id of the command that created them, so
 * a single id is kept as itself; a map is made at the second.
 */
import { BoundedMap } from './bounded.ts';

export type Remembered = string | BoundedMap<string, true> | undefined;

export function seen(r: Remembered, id: string): boolean {
  return typeof r === 'string' ? r === id : r !== undefined && r.has(id);
}

/** `r` with `ids` added (the same map when there already is one). */
export function remember(r: Remembered, ids: readonly string[], capacity: number): Remembered {
  if (ids.length === 0) return r;
  if (r === undefined && ids.length === 1) return ids[0];
  let m: BoundedMap<string, true>;
  if (typeof r === 'object') m = r;
  else {
    m = new BoundedMap<string, true>(capacity);
    if (r !== undefined) m.set(r, true);
  }
  for (const id of ids) m.set(id, true);
  return m;
}

/** The last `capacity` ids, oldest first (what a snapshot keeps). */
export function listed(r: Remembered, capacity: number): string[] {
  if (r === undefined) return [];
  if (typeof r === 'string') return [r];
  return [...r.keys()].slice(-capacity);
}
