/**
 * The structure check of a msgpack frame before the generic decoder reads it (the socket's slow
 * path; msgpack-batch.ts is the fast one). msgpackr decodes by recursion and trusts declared
 * lengths, so a frame nested thousands deep overflows the stack, and its extension types build
 * objects a batch never holds (sets, typed arrays, errors, records). One iterative pass checks
 * that the frame is exactly one complete value, nested at most MSGPACK_MAX_DEPTH deep, of at most
 * MSGPACK_MAX_VALUES values, using no extension but the timestamp; anything else is refused with
 * 400 invalid_request naming what and where (docs/gaps.md#allocation).
 */
import { ApiError } from '../../../kernel/index.ts';

/** Containers nested in a batch: the batch, readings, a reading, its position; the rest is room for unknown fields. */
export const MSGPACK_MAX_DEPTH = 8;
/** Values in one frame; a batch of 500 full readings holds about 11,000. */
export const MSGPACK_MAX_VALUES = 65_536;
/** The timestamp extension (msgpack spec, type -1): a date the batch check then refuses by field. */
const TIMESTAMP = 0xff;

const refuse = (message: string) => new ApiError('invalid_request', message);

/** Throws ApiError invalid_request unless `b` is one complete msgpack value within the bounds. */
export function checkMsgpackFrame(b: Uint8Array): void {
  const len = b.length;
  let pos = 0;
  let values = 0;
  /** Values still to read in each open container, outermost first; the root is one value. */
  const open: number[] = [1];
  const need = (n: number, at: number) => {
    if (pos + n > len) throw refuse(`The msgpack frame ends early: the value at byte ${at} needs ${pos + n - len} more bytes.`);
  };
  const uint = (n: 1 | 2 | 4, at: number): number => {
    need(n, at);
    let v = 0;
    for (let i = 0; i < n; i++) v = v * 256 + b[pos++];
    return v;
  };
  const container = (count: number, at: number) => {
    if (count === 0) return;
    if (open.length > MSGPACK_MAX_DEPTH) throw refuse(`The msgpack frame nests deeper than ${MSGPACK_MAX_DEPTH} levels (at byte ${at}).`);
    if (count > len - pos) throw refuse(`The msgpack frame ends early: the container at byte ${at} declares ${count} values.`);
    open.push(count);
  };
  const ext = (size: number, at: number) => {
    need(1 + size, at);
    const type = b[pos];
    if (type !== TIMESTAMP || (size !== 4 && size !== 8 && size !== 12))
      throw refuse(`The msgpack frame uses extension type ${type > 127 ? type - 256 : type} at byte ${at}; a batch holds maps, arrays, strings, numbers, booleans, nil and timestamps only.`);
    pos += 1 + size;
  };

  while (open.length) {
    if (open[open.length - 1] === 0) {
      open.pop();
      continue;
    }
    open[open.length - 1]--;
    if (pos >= len) throw refuse(`The msgpack frame ends early at byte ${pos}.`);
    if (++values > MSGPACK_MAX_VALUES) throw refuse(`The msgpack frame holds more than ${MSGPACK_MAX_VALUES} values.`);
    const at = pos;
    const t = b[pos++];
    if (t <= 0x7f || t >= 0xe0 || t === 0xc0 || t === 0xc2 || t === 0xc3) continue;
    if (t <= 0x8f) container(2 * (t & 0x0f), at);
    else if (t <= 0x9f) container(t & 0x0f, at);
    else if (t <= 0xbf) need(t & 0x1f, at), (pos += t & 0x1f);
    else
      switch (t) {
        case 0xc4: case 0xd9: { const n = uint(1, at); need(n, at); pos += n; break; }
        case 0xc5: case 0xda: { const n = uint(2, at); need(n, at); pos += n; break; }
        case 0xc6: case 0xdb: { const n = uint(4, at); need(n, at); pos += n; break; }
        case 0xc7: ext(uint(1, at), at); break;
        case 0xc8: ext(uint(2, at), at); break;
        case 0xc9: ext(uint(4, at), at); break;
        case 0xcc: case 0xd0: need(1, at), (pos += 1); break;
        case 0xcd: case 0xd1: need(2, at), (pos += 2); break;
        case 0xca: case 0xce: case 0xd2: need(4, at), (pos += 4); break;
        case 0xcb: case 0xcf: case 0xd3: need(8, at), (pos += 8); break;
        case 0xd4: ext(1, at); break;
        case 0xd5: ext(2, at); break;
        case 0xd6: ext(4, at); break;
        case 0xd7: ext(8, at); break;
        case 0xd8: ext(16, at); break;
        case 0xdc: container(uint(2, at), at); break;
        case 0xdd: container(uint(4, at), at); break;
        case 0xde: container(2 * uint(2, at), at); break;
        case 0xdf: container(2 * uint(4, at), at); break;
        default: throw refuse(`The msgpack frame holds no valid value at byte ${at} (0x${t.toString(16)}).`);
      }
  }
  if (pos !== len) throw refuse(`The msgpack frame goes on after the batch ends (byte ${pos} of ${len}).`);
}
