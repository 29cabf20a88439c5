/** A minimal WebSocket client for tests (RFC 6455 text/binary frames, unfragmented, masked). */
import { randomBytes } from 'node:crypto';
import { request } from 'node:http';
import type { Socket } from 'node:net';

export interface TestSocket {
  send(data: string | Uint8Array): void;
  next(): Promise<{ text: string; binary: boolean }>;
  close(): void;
}

export type Upgrade = { ok: true; socket: TestSocket } | { ok: false; status: number; body: string; headers: Record<string, string | string[] | undefined> };

export function connect(url: string, headers: Record<string, string> = {}): Promise<Upgrade> {
  return new Promise((resolve, reject) => {
    const req = request(url, {
      headers: { ...headers, connection: 'Upgrade', upgrade: 'websocket', 'sec-websocket-version': '13', 'sec-websocket-key': randomBytes(16).toString('base64') },
    });
    req.on('upgrade', (_res, socket: Socket, head: Buffer) => resolve({ ok: true, socket: wrap(socket, head) }));
    req.on('response', (res) => {
      let body = '';
      res.on('data', (c) => (body += c));
      res.on('end', () => resolve({ ok: false, status: res.statusCode ?? 0, body, headers: res.headers }));
    });
    req.on('error', reject);
    req.end();
  });
}

function wrap(socket: Socket, head: Buffer): TestSocket {
  let buf = head;
  const frames: Array<{ text: string; binary: boolean }> = [];
  const waiters: Array<(f: { text: string; binary: boolean }) => void> = [];
  const pump = () => {
    for (;;) {
      if (buf.length < 2) return;
      const op = buf[0] & 0x0f;
      let len = buf[1] & 0x7f;
      let off = 2;
      if (len === 126) {
        if (buf.length < 4) return;
        len = buf.readUInt16BE(2);
        off = 4;
      } else if (len === 127) {
        if (buf.length < 10) return;
        len = Number(buf.readBigUInt64BE(2));
        off = 10;
      }
      if (buf.length < off + len) return;
      const payload = buf.subarray(off, off + len);
      buf = buf.subarray(off + len);
      if (op === 1 || op === 2) {
        const f = { text: payload.toString('utf8'), binary: op === 2 };
        const w = waiters.shift();
        if (w) w(f);
        else frames.push(f);
      }
    }
  };
  socket.on('data', (d: Buffer) => {
    buf = Buffer.concat([buf, d]);
    pump();
  });
  pump();
  return {
    send(data) {
      const payload = typeof data === 'string' ? Buffer.from(data) : Buffer.from(data);
      const mask = randomBytes(4);
      const len = payload.length;
      const header = len < 126 ? Buffer.from([0x80 | (typeof data === 'string' ? 1 : 2), 0x80 | len]) : Buffer.from([0x80 | (typeof data === 'string' ? 1 : 2), 0x80 | 126, len >> 8, len & 0xff]);
      const masked = Buffer.alloc(len);
      for (let i = 0; i < len; i++) masked[i] = payload[i] ^ mask[i & 3];
      socket.write(Buffer.concat([header, mask, masked]));
    },
    next() {
      const f = frames.shift();
      return f ? Promise.resolve(f) : new Promise((r) => waiters.push(r));
    },
    close() {
      socket.destroy();
    },
  };
}
