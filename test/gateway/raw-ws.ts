/**
 * A WebSocket client for transport tests that sees what support/ws.ts hides: the server's
 * close frame (its code and reason) or its absence (a bare TCP drop), and that can send frames
 * of any opcode and size, including ones the protocol forbids.
 */
import { randomBytes } from 'node:crypto';
import { connect } from 'node:net';
import { clientFrameHeader, readFrame } from '../../support/ws-frames.ts';

export interface Frame {
  op: number;
  data: Buffer;
  readonly text: string;
}

/** The server's close frame; `undefined` when the connection ended without one (a bare drop). */
export type Closed = { code: number; reason: string } | undefined;

export interface RawSocket {
  send(data: string | Uint8Array): void;
  /** One masked frame with this opcode and payload, written as is. */
  sendFrame(op: number, payload: Uint8Array): void;
  /** The next text or binary frame, or undefined once the connection has ended. */
  next(): Promise<Frame | undefined>;
  /** Resolves when the TCP connection has ended. */
  readonly closed: Promise<Closed>;
  destroy(): void;
}


/** Upgrades a raw connection on `path`; rejects with the status line when the upgrade is refused. */
export function openSocket(port: number, path: string, headers: Record<string, string>): Promise<RawSocket> {
  return new Promise((resolve, reject) => {
    const s = connect(port, '127.0.0.1');
    let buf = Buffer.alloc(0);
    let upgraded = false;
    let closeFrame: Closed;
    const frames: Frame[] = [];
    const waiters: Array<(f: Frame | undefined) => void> = [];
    let ended = false;
    const closed = new Promise<Closed>((r) => s.on('close', () => r(closeFrame)));
    void closed.then(() => {
      ended = true;
      for (const w of waiters.splice(0)) w(undefined);
    });
    s.on('error', () => {}); // a reset ends it like a FIN: `closed` tells which by the close frame
    s.on('connect', () => {
      const extra = Object.entries(headers).map(([k, v]) => `${k}: ${v}\r\n`).join('');
      s.write(`GET ${path} HTTP/1.1\r\nhost: 127.0.0.1\r\nconnection: Upgrade\r\nupgrade: websocket\r\nsec-websocket-version: 13\r\nsec-websocket-key: ${randomBytes(16).toString('base64')}\r\n${extra}\r\n`);
    });
    s.on('data', (d: Buffer) => {
      buf = Buffer.concat([buf, d]);
      if (!upgraded) {
        const end = buf.indexOf('\r\n\r\n');
        if (end < 0) return;
        const status = buf.subarray(0, buf.indexOf('\r\n')).toString();
        if (!status.includes(' 101 ')) {
          s.destroy();
          return reject(new Error(`upgrade refused: ${status}`));
        }
        upgraded = true;
        buf = buf.subarray(end + 4);
        resolve(socket);
      }
      for (let raw = readFrame(buf); raw; raw = readFrame(buf)) {
        const data = Buffer.from(raw.payload);
        buf = buf.subarray(raw.size);
        if (raw.op === 8 && closeFrame === undefined) {
          closeFrame = { code: data.length >= 2 ? data.readUInt16BE(0) : 1005, reason: data.subarray(2).toString('utf8') };
          socket.sendFrame(8, data.subarray(0, 2)); // RFC 6455 5.5.1: answer a close with a close
        }
        if (raw.op !== 1 && raw.op !== 2) continue;
        const f: Frame = { op: raw.op, data, get text() { return data.toString('utf8'); } };
        const w = waiters.shift();
        if (w) w(f);
        else frames.push(f);
      }
    });
    const socket: RawSocket = {
      send(data) {
        socket.sendFrame(typeof data === 'string' ? 1 : 2, Buffer.from(data));
      },
      sendFrame(op, payload) {
        const mask = randomBytes(4);
        const masked = Buffer.alloc(payload.length);
        for (let i = 0; i < payload.length; i++) masked[i] = payload[i] ^ mask[i & 3];
        s.write(Buffer.concat([clientFrameHeader(op, payload.length), mask, masked]));
      },
      next() {
        const f = frames.shift();
        if (f || ended) return Promise.resolve(f);
        return new Promise((r) => waiters.push(r));
      },
      closed,
      destroy() {
        s.destroy();
      },
    };
  });
}
