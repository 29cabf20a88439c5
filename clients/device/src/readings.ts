/**
 * The readings a device has taken and the platform has not yet receipted, oldest first, bounded:
 * a phone offline for hours keeps the newest `limit` readings and counts what it let go, so
 * memory stays flat and what is sent on reconnect is the recent track (spec 4.7: the platform
 * reconciles late readings by `recorded_at`). A batch taken for sending stays in the buffer until
 * its receipt comes back, so a connection lost mid-batch sends it again.
 */
export interface Reading {
  recorded_at: string;
  position: { latitude: number; longitude: number; accuracy_metres: number };
  availability?: string;
  connectivity?: string;
  battery_percent?: number;
  mock_location_detected?: boolean;
  device_integrity_attested?: boolean;
  [field: string]: unknown;
}

export class ReadingBuffer {
  private readonly items: Reading[] = [];
  /** Readings at the front already sent in the batch awaiting its receipt. */
  private inFlight = 0;
  /** Readings let go because the buffer was full. */
  dropped = 0;

  constructor(private readonly limit: number) {
    if (!Number.isInteger(limit) || limit < 1) throw new RangeError('the reading buffer holds at least one reading');
  }

  get size(): number {
    return this.items.length;
  }

  get sending(): boolean {
    return this.inFlight > 0;
  }

  push(r: Reading): void {
    this.items.push(r);
    while (this.items.length > this.limit) {
      // the oldest unsent reading goes; one already in flight stays until its receipt
      this.items.splice(this.inFlight, 1);
      this.dropped++;
    }
  }

  /** The next batch to send (oldest first), or none while one is awaiting its receipt. */
  take(max: number): Reading[] {
    if (this.inFlight > 0 || this.items.length === 0) return [];
    this.inFlight = Math.min(max, this.items.length);
    return this.items.slice(0, this.inFlight);
  }

  /** The batch in flight was receipted (accepted or refused reading by reading): it leaves. */
  receipted(): void {
    this.items.splice(0, this.inFlight);
    this.inFlight = 0;
  }

  /** The batch in flight got no receipt (a lost connection, a retryable refusal): it is sent again. */
  unsent(): void {
    this.inFlight = 0;
  }
}
