/**
 * Columns by subject number (subject-numbers.ts): one value per subject in a typed array that grows
 * as numbers are given, 0 where nothing was set. A module keeps a gate's answer in one (a byte for
 * "live", a count, a time) beside the maps it keeps for everything else; reading a column is one
 * array read, and reads of several columns do not wait on one another as a chain of maps does.
 */
type Values = Uint8Array | Int32Array | Float64Array;

class Column<T extends Values> {
  private values: T;

  constructor(private readonly make: (length: number) => T) {
    this.values = make(1024);
  }

  get(n: number): number {
    return n >= 0 && n < this.values.length ? this.values[n] : 0;
  }

  set(n: number, v: number): void {
    if (n < 0) throw new RangeError(`subject number ${n}`);
    if (n >= this.values.length) {
      let length = this.values.length * 2;
      while (length <= n) length *= 2;
      const grown = this.make(length);
      grown.set(this.values);
      this.values = grown;
    }
    this.values[n] = v;
  }
}

/** 0..255 per subject (flags). */
export class ByteColumn extends Column<Uint8Array> {
  constructor() {
    super((n) => new Uint8Array(n));
  }
}

/** A 32-bit integer per subject (counts). */
export class CountColumn extends Column<Int32Array> {
  constructor() {
    super((n) => new Int32Array(n));
  }
}

/** A double per subject (times in ms since the epoch, scores). */
export class NumberColumn extends Column<Float64Array> {
  constructor() {
    super((n) => new Float64Array(n));
  }
}
