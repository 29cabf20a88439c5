/** A minimal WebSocket client for tests: RFC 6455, masked, unfragmented text and binary frames. */
import { randomBytes } from 'node:crypto';
import { request } from 'node:http';
import type { Socket } from 'node:net';
import { clientFrameHeader, readFrame } from './ws-frames.ts';

export interface Frame {
  data: Buffer;
  binary: boolean;
  /** The payload read as UTF-8. */
  readonly text: string;
}

export interface TestSocket {
  send(data: string | Uint8Array): void;
  next(): Promise<Frame>;
  close(): void;
}

export type Upgrade = { ok: true; socket: TestSocket } | { ok: false; status: number; body: string; headers: Record<string, string | string[] | undefined> };

/** Asks for an upgrade; a refusal is answered with its status, body and headers. */
export function upgrade(url: string, headers: Record<string, string> = {}): Promise<Upgrade> {
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

/** Opens a socket; a refused upgrade rejects with `upgrade refused: <status>`. */
export async function connect(url: string, headers: Record<string, string> = {}): Promise<TestSocket> {
  const r = await upgrade(url, headers);
  if (!r.ok) throw new Error(`upgrade refused: ${r.status}`);
  return r.socket;
}


function wrap(socket: Socket, head: Buffer): TestSocket {
  let buf = head;
  const frames: Frame[] = [];
  const waiters: Array<(f: Frame) => void> = [];
  const pump = () => {
    for (;;) {
      const raw = readFrame(buf);
      if (!raw) return;
      const { op } = raw;
      const data = Buffer.from(raw.payload);
      buf = buf.subarray(raw.size);
      if (op !== 1 && op !== 2) continue; // control frames
      const f: Frame = { data, binary: op === 2, get text() { return data.toString('utf8'); } };
      const w = waiters.shift();
      if (w) w(f);
      else frames.push(f);
    }
  };
  socket.on('data', (d: Buffer) => {
    buf = Buffer.concat([buf, d]);
    pump();
  });
  pump();
  return {
    send(data) {
      const payload = Buffer.from(data);
      const mask = randomBytes(4);
      const masked = Buffer.alloc(payload.length);
      for (let i = 0; i < payload.length; i++) masked[i] = payload[i] ^ mask[i & 3];
      socket.write(Buffer.concat([clientFrameHeader(typeof data === 'string' ? 1 : 2, payload.length), mask, masked]));
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
