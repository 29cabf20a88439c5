/**
 * Bounding a Map that forgets its oldest keys first. V8 leaves a deleted entry in place until the
 * table is rebuilt, and a walk from the front (`keys().next()`) passes every one of them, so a full
 * Map that lets one key go per insert makes each insert pay for every key let go before it: several
 * microseconds per insert at sixteen thousand keys. Letting go of a slice of the oldest in one walk
 * makes that cost a step or two per insert.
 */

/** After `map` grew past `limit` by an eighth of it, deletes its oldest keys down to `limit`. */
export function forgetOldest<K, V>(map: Map<K, V>, limit: number): void {
  if (map.size <= limit + Math.max(1, limit >> 3)) return;
  let over = map.size - limit;
  for (const k of map.keys()) {
    map.delete(k);
    if (--over === 0) return;
  }
}
