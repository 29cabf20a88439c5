/**
 * The last accepted readings of one worker, ordered by recorded_at, capped at the policy's
 * `recent_readings_kept`. Duplicate and movement checks (spec 2.8) consult it; anything older is
 * looked up in the ReadingStore by the caller.
 */
export class RecentReadings {
  readonly at: number[] = [];
  /** NaN where the reading had no position. */
  readonly lat: number[] = [];
  readonly lng: number[] = [];
  readonly acc: number[] = [];

  constructor(private readonly cap: number) {}

  get size(): number {
    return this.at.length;
  }
  get oldest(): number {
    return this.at.length ? this.at[0] : Infinity;
  }
  get latest(): number {
    return this.at.length ? this.at[this.at.length - 1] : -Infinity;
  }

  /** Position of the first entry with at >= t. */
  lowerBound(t: number): number {
    let lo = 0;
    let hi = this.at.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.at[mid] < t) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  has(t: number): boolean {
    const i = this.lowerBound(t);
    return i < this.at.length && this.at[i] === t;
  }

  insert(t: number, lat: number, lng: number, acc: number): void {
    const i = this.lowerBound(t);
    if (i === this.at.length) {
      this.at.push(t), this.lat.push(lat), this.lng.push(lng), this.acc.push(acc);
    } else {
      this.at.splice(i, 0, t), this.lat.splice(i, 0, lat), this.lng.splice(i, 0, lng), this.acc.splice(i, 0, acc);
    }
    if (this.at.length > this.cap) {
      this.at.shift(), this.lat.shift(), this.lng.shift(), this.acc.shift();
    }
  }

  /** Nearest positioned entry strictly before t (-1 when none). */
  positionedBefore(t: number): number {
    for (let i = this.lowerBound(t) - 1; i >= 0; i--) if (this.lat[i] === this.lat[i]) return i;
    return -1;
  }

  /** Nearest positioned entry strictly after t (-1 when none). */
  positionedAfter(t: number): number {
    let i = this.lowerBound(t);
    if (i < this.at.length && this.at[i] === t) i++;
    for (; i < this.at.length; i++) if (this.lat[i] === this.lat[i]) return i;
    return -1;
  }
}
