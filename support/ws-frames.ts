/** RFC 6455 frames: reading server frames off a byte stream (unmasked, unfragmented), and the header of a client frame. */

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

/** The header of one final client frame of `len` payload bytes (masked: the 4-byte mask follows it). */
export function clientFrameHeader(op: number, len: number): Buffer {
  if (len < 126) return Buffer.from([0x80 | op, 0x80 | len]);
  if (len < 65536) return Buffer.from([0x80 | op, 0x80 | 126, len >> 8, len & 0xff]);
  const b = Buffer.alloc(10);
  b[0] = 0x80 | op;
  b[1] = 0x80 | 127;
  b.writeBigUInt64BE(BigInt(len), 2);
  return b;
}
