/** Reading RFC 6455 frames off a byte stream (server frames: unmasked, unfragmented). */

export interface RawFrame {
  /** Opcode: 1 text, 2 binary, 8 close, 9 ping, 10 pong. */
  op: number;
  /** A view of the bytes (copy it before the buffer is reused). */
  payload: Buffer;
  /** Bytes the frame takes, header included: the rest of the stream starts there. */
  size: number;
}

/** The first whole frame in `buf`, or undefined until enough bytes have arrived. */
export function readFrame(buf: Buffer): RawFrame | undefined {
  if (buf.length < 2) return undefined;
  const op = buf[0] & 0x0f;
  let len = buf[1] & 0x7f;
  let off = 2;
  if (len === 126) {
    if (buf.length < 4) return undefined;
    len = buf.readUInt16BE(2);
    off = 4;
  } else if (len === 127) {
    if (buf.length < 10) return undefined;
    len = Number(buf.readBigUInt64BE(2));
    off = 10;
  }
  if (buf.length < off + len) return undefined;
  return { op, payload: buf.subarray(off, off + len), size: off + len };
}
