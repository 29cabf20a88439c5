/** Helpers for the allocation tests: batches, a binary-capable WebSocket client. */
import { randomBytes } from 'node:crypto';
import { request } from 'node:http';
import type { Socket } from 'node:net';
import type { Harness } from '../support/http.ts';

export const LAGOS = { latitude: 6.5244, longitude: 3.3792 };

export function reading(at: number, over: Record<string, unknown> = {}) {
  return {
    recorded_at: new Date(at).toISOString(),
    position: { latitude: LAGOS.latitude, longitude: LAGOS.longitude, accuracy_metres: 8 },
    connectivity: 'good',
    availability: 'available',
    battery_percent: 80,
    mock_location_detected: false,
    device_integrity_attested: true,
    ...over,
  };
}

let n = 0;
export const workerId = (suffix = '') => `wrk_test_${process.pid}_${++n}${suffix}`;

export async function makeAvailable(h: Harness, worker: string, key?: string) {
  const r = await h.request('PUT', `/v1/allocation/availability/${worker}`, { body: { availability: 'available' }, key });
  if (r.status !== 200) throw new Error(`availability: ${r.status} ${r.text}`);
  return r.body;
}

let ik = 0;
export const heartbeats = (h: Harness, body: unknown, key?: string) =>
  h.request('POST', '/v1/allocation/heartbeats', { body, idempotencyKey: `ik-${process.pid}-${++ik}`, key });

export interface BinarySocket {
  send(data: string | Uint8Array): void;
  next(): Promise<{ data: Buffer; binary: boolean }>;
  close(): void;
}

/** RFC 6455 client: masked, unfragmented frames; keeps binary payloads as bytes. */
export function connect(url: string, headers: Record<string, string>): Promise<BinarySocket> {
  return new Promise((resolve, reject) => {
    const req = request(url, {
      headers: { ...headers, connection: 'Upgrade', upgrade: 'websocket', 'sec-websocket-version': '13', 'sec-websocket-key': randomBytes(16).toString('base64') },
    });
    req.on('upgrade', (_res, socket: Socket, head: Buffer) => resolve(wrap(socket, head)));
    req.on('response', (res) => reject(new Error(`upgrade refused: ${res.statusCode}`)));
    req.on('error', reject);
    req.end();
  });
}

function wrap(socket: Socket, head: Buffer): BinarySocket {
  let buf = head;
  const frames: { data: Buffer; binary: boolean }[] = [];
  const waiters: ((f: { data: Buffer; binary: boolean }) => void)[] = [];
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
      const f = { data: Buffer.from(buf.subarray(off, off + len)), binary: op === 2 };
      buf = buf.subarray(off + len);
      if (op !== 1 && op !== 2) continue;
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
      const op = typeof data === 'string' ? 1 : 2;
      const len = payload.length;
      const header =
        len < 126
          ? Buffer.from([0x80 | op, 0x80 | len])
          : len < 65536
            ? Buffer.from([0x80 | op, 0x80 | 126, len >> 8, len & 0xff])
            : (() => {
                const b = Buffer.alloc(10);
                b[0] = 0x80 | op;
                b[1] = 0x80 | 127;
                b.writeBigUInt64BE(BigInt(len), 2);
                return b;
              })();
      const mask = randomBytes(4);
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
