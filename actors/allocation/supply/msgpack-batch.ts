/**
 * One-pass decoding of a msgpack heartbeat batch straight into a HeartbeatBatch, for the socket's
 * hot path. It accepts only the common, fully valid shape (known keys, in-range values, recorded_at
 * as YYYY-MM-DDTHH:MM:SS[.sss]Z) and returns undefined for anything else, so the caller falls back
 * to msgpackr + parseBatch: every refusal and every unusual form is still judged by parseBatch,
 * and what this returns is exactly what parseBatch would have built (a test holds it to that).
 */
import { WORKER_ID, type AvailabilityState, type Connectivity, type HeartbeatBatch, type Position, type Reading } from './heartbeat.ts';

const enc = (s: string) => Uint8Array.from(Buffer.from(s, 'latin1'));
const K = {
  worker_id: enc('worker_id'),
  readings: enc('readings'),
  recorded_at: enc('recorded_at'),
  position: enc('position'),
  connectivity: enc('connectivity'),
  availability: enc('availability'),
  battery_percent: enc('battery_percent'),
  mock_location_detected: enc('mock_location_detected'),
  device_integrity_attested: enc('device_integrity_attested'),
  latitude: enc('latitude'),
  longitude: enc('longitude'),
  accuracy_metres: enc('accuracy_metres'),
};
const CONN: [Uint8Array, Connectivity][] = (['good', 'fair', 'poor', 'offline'] as const).map((c) => [enc(c), c]);
const AVAIL: [Uint8Array, AvailabilityState][] = (['available', 'unavailable'] as const).map((c) => [enc(c), c]);
const DAYS = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

class Miss extends Error {}
const MISS = new Miss();

class Reader {
  pos = 0;
  private readonly view: DataView;
  constructor(readonly b: Uint8Array) {
    this.view = new DataView(b.buffer, b.byteOffset, b.byteLength);
  }
  byte(): number {
    if (this.pos >= this.b.length) throw MISS;
    return this.b[this.pos++];
  }
  mapLen(): number {
    const t = this.byte();
    if (t >= 0x80 && t <= 0x8f) return t & 0x0f;
    if (t === 0xde) return this.u16();
    throw MISS;
  }
  arrayLen(): number {
    const t = this.byte();
    if (t >= 0x90 && t <= 0x9f) return t & 0x0f;
    if (t === 0xdc) return this.u16();
    if (t === 0xdd) return this.u32();
    throw MISS;
  }
  /** Start and length of a string; the bytes stay in the buffer. */
  str(): number {
    const t = this.byte();
    let len: number;
    if (t >= 0xa0 && t <= 0xbf) len = t & 0x1f;
    else if (t === 0xd9) len = this.byte();
    else if (t === 0xda) len = this.u16();
    else throw MISS;
    if (this.pos + len > this.b.length) throw MISS;
    this.strAt = this.pos;
    this.pos += len;
    return len;
  }
  strAt = 0;
  is(len: number, key: Uint8Array): boolean {
    if (len !== key.length) return false;
    const b = this.b;
    const at = this.strAt;
    for (let i = 0; i < len; i++) if (b[at + i] !== key[i]) return false;
    return true;
  }
  isNil(): boolean {
    if (this.b[this.pos] === 0xc0) {
      this.pos++;
      return true;
    }
    return false;
  }
  bool(): boolean {
    const t = this.byte();
    if (t === 0xc3) return true;
    if (t === 0xc2) return false;
    throw MISS;
  }
  /** A value needs n more bytes: a frame cut short misses (DataView would throw a RangeError). */
  private need(n: number): void {
    if (this.pos + n > this.b.length) throw MISS;
  }
  num(): number {
    const t = this.byte();
    if (t <= 0x7f) return t;
    if (t >= 0xe0) return t - 256;
    let v: number;
    switch (t) {
      case 0xcb:
        this.need(8);
        v = this.view.getFloat64(this.pos);
        this.pos += 8;
        return v;
      case 0xca:
        this.need(4);
        v = this.view.getFloat32(this.pos);
        this.pos += 4;
        return v;
      case 0xcc:
        return this.byte();
      case 0xcd:
        return this.u16();
      case 0xce:
        return this.u32();
      case 0xd0:
        this.need(1);
        v = this.view.getInt8(this.pos);
        this.pos += 1;
        return v;
      case 0xd1:
        this.need(2);
        v = this.view.getInt16(this.pos);
        this.pos += 2;
        return v;
      case 0xd2:
        this.need(4);
        v = this.view.getInt32(this.pos);
        this.pos += 4;
        return v;
      default:
        throw MISS;
    }
  }
  private u16(): number {
    this.need(2);
    const v = this.view.getUint16(this.pos);
    this.pos += 2;
    return v;
  }
  private u32(): number {
    this.need(4);
    const v = this.view.getUint32(this.pos);
    this.pos += 4;
    return v;
  }
  private digit(i: number): number {
    const c = this.b[i] - 0x30;
    if (c < 0 || c > 9) throw MISS;
    return c;
  }
  /** Which of the keys the current string is (-1 for none); a loop, no closures on the hot path. */
  which<T>(len: number, table: [Uint8Array, T][]): T | undefined {
    for (let i = 0; i < table.length; i++) if (this.is(len, table[i][0])) return table[i][1];
    return undefined;
  }
  /** recorded_at of the two common forms, validated field by field; anything else misses. */
  instant(len: number): number {
    const b = this.b;
    const at = this.strAt;
    if ((len !== 20 && len !== 24) || b[at + len - 1] !== 0x5a /* Z */) throw MISS;
    if (b[at + 4] !== 0x2d || b[at + 7] !== 0x2d || b[at + 10] !== 0x54 || b[at + 13] !== 0x3a || b[at + 16] !== 0x3a) throw MISS;
    const y = this.digit(at) * 1000 + this.digit(at + 1) * 100 + this.digit(at + 2) * 10 + this.digit(at + 3);
    const mo = this.digit(at + 5) * 10 + this.digit(at + 6);
    const day = this.digit(at + 8) * 10 + this.digit(at + 9);
    const h = this.digit(at + 11) * 10 + this.digit(at + 12);
    const mi = this.digit(at + 14) * 10 + this.digit(at + 15);
    const s = this.digit(at + 17) * 10 + this.digit(at + 18);
    let ms = 0;
    if (len === 24) {
      if (b[at + 19] !== 0x2e) throw MISS;
      ms = this.digit(at + 20) * 100 + this.digit(at + 21) * 10 + this.digit(at + 22);
    }
    if (y < 1000 || mo < 1 || mo > 12 || day < 1 || h > 23 || mi > 59 || s > 59) throw MISS;
    const leap = mo === 2 && y % 4 === 0 && (y % 100 !== 0 || y % 400 === 0);
    if (day > DAYS[mo - 1] + (leap ? 1 : 0)) throw MISS;
    return Date.UTC(y, mo - 1, day, h, mi, s, ms);
  }
}

function position(r: Reader): Position | undefined {
  if (r.isNil()) return undefined;
  const n = r.mapLen();
  if (n !== 3) throw MISS;
  let lat = NaN;
  let lng = NaN;
  let acc = NaN;
  for (let i = 0; i < 3; i++) {
    const len = r.str();
    if (r.is(len, K.latitude)) lat = r.num();
    else if (r.is(len, K.longitude)) lng = r.num();
    else if (r.is(len, K.accuracy_metres)) acc = r.num();
    else throw MISS;
  }
  if (!(lat >= -90 && lat <= 90) || !(lng >= -180 && lng <= 180) || !(acc >= 0) || !Number.isFinite(acc)) throw MISS;
  return { latitude: lat, longitude: lng, accuracy_metres: acc };
}

function reading(r: Reader, index: number): Reading {
  const n = r.mapLen();
  let recordedAt = NaN;
  let pos: Position | undefined;
  let connectivity: Connectivity | undefined;
  let availability: AvailabilityState | undefined;
  let battery: number | null = null;
  let mock: boolean | null = null;
  let attested: boolean | null = null;
  let seen = 0;
  for (let i = 0; i < n; i++) {
    const len = r.str();
    if (r.is(len, K.recorded_at)) {
      recordedAt = r.instant(r.str());
      seen |= 1;
    } else if (r.is(len, K.position)) {
      pos = position(r);
      seen |= 2;
    } else if (r.is(len, K.connectivity)) {
      const l = r.str();
      connectivity = r.which(l, CONN);
      if (!connectivity) throw MISS;
      seen |= 4;
    } else if (r.is(len, K.availability)) {
      const l = r.str();
      availability = r.which(l, AVAIL);
      if (!availability) throw MISS;
      seen |= 8;
    } else if (r.is(len, K.battery_percent)) {
      if (!r.isNil()) {
        battery = r.num();
        if (!Number.isInteger(battery) || battery < 0 || battery > 100) throw MISS;
      }
      seen |= 16;
    } else if (r.is(len, K.mock_location_detected)) {
      mock = r.isNil() ? null : r.bool();
      seen |= 32;
    } else if (r.is(len, K.device_integrity_attested)) {
      attested = r.isNil() ? null : r.bool();
      seen |= 64;
    } else throw MISS;
  }
  // required fields present, no key twice (a repeated key would make the generic decoder keep the last)
  if ((seen & 5) !== 5 || popcount(seen) !== n) throw MISS;
  return { index, recordedAt, position: pos, connectivity: connectivity!, availability, battery, mock, attested };
}

function popcount(x: number): number {
  let c = 0;
  for (; x; x &= x - 1) c++;
  return c;
}

/** The batch, or undefined when it is not of the common valid shape (then use the generic path). */
export function decodeMsgpackBatch(bytes: Uint8Array, maxReadings: number): HeartbeatBatch | undefined {
  try {
    const r = new Reader(bytes);
    const n = r.mapLen();
    if (n !== 2) return undefined;
    let workerId: string | undefined;
    let readings: Reading[] | undefined;
    for (let i = 0; i < 2; i++) {
      const len = r.str();
      if (r.is(len, K.worker_id)) {
        const l = r.str();
        workerId = Buffer.from(bytes.buffer, bytes.byteOffset + r.strAt, l).toString('utf8');
      } else if (r.is(len, K.readings)) {
        const count = r.arrayLen();
        if (count < 1 || count > maxReadings) return undefined;
        readings = new Array(count);
        for (let k = 0; k < count; k++) readings[k] = reading(r, k + 1);
      } else return undefined;
    }
    if (r.pos !== bytes.length || workerId === undefined || readings === undefined || !WORKER_ID.test(workerId)) return undefined;
    return { workerId, readings };
  } catch (e) {
    if (e === MISS) return undefined;
    throw e;
  }
}
