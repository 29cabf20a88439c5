/**
 * A map that remembers at least the last `capacity` keys set, and at most twice as many: two
 * generations of plain Maps, the older one dropped whole when the newer one fills.
 *
 * Why not one Map that deletes its oldest key (`m.delete(m.keys().next().value)`): V8 leaves a
 * deleted entry in place until the table is rebuilt, and `keys().next()` walks over every one of
 * them from the front, so each insert into a full FIFO Map pays for every key deleted before it,
 * a cost that grows with the capacity. Dropping a whole generation costs nothing per key.
 */
export class BoundedMap<K, V> {
  private young = new Map<K, V>();
  /** Made at the first rotation: most actors remember one or two dedupe ids and never rotate. */
  private old: Map<K, V> | undefined;

  constructor(readonly capacity: number) {
    if (!(capacity >= 1)) throw new RangeError(`BoundedMap capacity must be at least 1, got ${capacity}`);
  }

  get size(): number {
    return this.young.size + (this.old?.size ?? 0);
  }

  get(key: K): V | undefined {
    const v = this.young.get(key);
    // a miss asks the newer generation again only when there is an older one to fall back to
    if (v !== undefined || this.old === undefined || this.young.has(key)) return v;
    return this.old.get(key);
  }

  has(key: K): boolean {
    return this.young.has(key) || this.old?.has(key) === true;
  }

  /** Sets `key`; a key of the older generation moves to the newer one (it was used again). */
  set(key: K, value: V): this {
    this.old?.delete(key);
    this.young.set(key, value);
    if (this.young.size >= this.capacity) {
      this.old = this.young;
      this.young = new Map();
    }
    return this;
  }

  delete(key: K): boolean {
    const a = this.young.delete(key);
    const b = this.old?.delete(key) === true;
    return a || b;
  }

  clear(): void {
    this.young = new Map();
    this.old = undefined;
  }

  /** Keys from the least to the most recently set. */
  *keys(): IterableIterator<K> {
    if (this.old) yield* this.old.keys();
    yield* this.young.keys();
  }
}
