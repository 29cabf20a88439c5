/**
 * Heartbeats bench (DESIGN "The supply map"). One run, server on core 0, load and baseline clients on core 1
 * (taskset), each in its own process:
 *
 *   (a) baseline: Redis GEOADD of the same points, one command per reading (the reading's worker
 *       as member), pipelined 1,000 commands per round trip, via ioredis;
 *   (b) our WebSocket ingest: msgpack batches of 50 readings over the heartbeat socket, each batch
 *       parsed, validated reading by reading, stored in the ReadingStore, applied to the supply map,
 *       and answered with a msgpack HeartbeatReceipt;  target (b) >= 2x (a) in readings/s;
 *   (c) REST: POST /v1/allocation/heartbeats with a fresh Idempotency-Key per batch of 50 (JSON),
 *       in batches/s.
 *
 * The server is the full platform (every area, memory stores, system clock, the real gateway).
 * This file is also its child processes: `--serve`, `--ws-load <json>`, `--rest-load <json>`,
 * `--redis <json>`. Sizes: BENCH_SECONDS, BENCH_HB_WORKERS, BENCH_HB_CONNECTIONS, BENCH_HB_INFLIGHT.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { connect, type Socket } from 'node:net';
import { loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';
import { absolute, compared, round, type BenchResult } from '../report.ts';
import { startRegisteredPlatform } from '../../support/platform.ts';
import { readFrame } from '../../support/ws-frames.ts';

const SELF = fileURLToPath(import.meta.url);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 4);
const WARMUP = Number(process.env.BENCH_WARMUP ?? 2);
const WORKERS = Number(process.env.BENCH_HB_WORKERS ?? 2000);
const REST_WORKERS = 500;
const CONNECTIONS = Number(process.env.BENCH_HB_CONNECTIONS ?? 4);
const INFLIGHT = Number(process.env.BENCH_HB_INFLIGHT ?? 16);
const REST_CONNECTIONS = 32;
const BATCH = 50;
const REDIS_READINGS = Number(process.env.BENCH_HB_REDIS_READINGS ?? 500_000);
const SOCKET_PATH = '/v1/allocation/heartbeats/stream';

// ---------------------------------------------------------------------------------------------
// The readings, the same for every client: worker w's batch j holds readings j*50 .. j*50+49,
// SPACING_MS apart from `base` (a dense device clock, so that a few thousand workers can send
// hundreds of thousands of readings a second without running ahead of the server clock), walking
// about 1 m/s from a fixed point in Lagos (plausible movement).

const SPACING_MS = 10;
/** Fixed width, so a frame can be patched in place (see frameTemplate). */
const workerName = (w: number) => `wrk_bench_${w.toString().padStart(7, '0')}`;

function point(w: number, t: number): [number, number] {
  const f = (w * 0.6180339887) % 1;
  const g = (w * 0.7548776662) % 1;
  return [6.4 + f * 0.3 + t * 1e-7, 3.2 + g * 0.4 + t * 1e-7];
}

function batch(w: number, j: number, base: number) {
  const readings = new Array(BATCH);
  for (let k = 0; k < BATCH; k++) {
    const t = j * BATCH + k;
    const [lat, lng] = point(w, t);
    readings[k] = {
      recorded_at: new Date(base + t * SPACING_MS).toISOString(),
      position: { latitude: lat, longitude: lng, accuracy_metres: 8 },
      connectivity: 'good',
      availability: 'available',
      battery_percent: 80,
      mock_location_detected: false,
      device_integrity_attested: true,
    };
  }
  return { worker_id: workerName(w), readings };
}

// ---------------------------------------------------------------------------------------------
// Server (child, core 0)

async function serve(): Promise<void> {
  process.stdout.write(JSON.stringify(await startRegisteredPlatform()) + '\n');
}

// ---------------------------------------------------------------------------------------------
// WebSocket load (child, core 1): raw frames over node:net, INFLIGHT frames outstanding per socket.

interface WsSpec {
  port: number;
  key: string;
  base: number;
  workers: number;
  connections: number;
  inflight: number;
  seconds: number;
  warmup: number;
}

function frameHeader(len: number): Buffer {
  // client frames are masked; a zero mask keeps the payload bytes as they are
  if (len < 126) return Buffer.from([0x82, 0x80 | len, 0, 0, 0, 0]);
  if (len < 65536) return Buffer.from([0x82, 0x80 | 126, len >> 8, len & 0xff, 0, 0, 0, 0]);
  const b = Buffer.alloc(14);
  b[0] = 0x82;
  b[1] = 0x80 | 127;
  b.writeBigUInt64BE(BigInt(len), 2);
  return b;
}

/**
 * Encoding 50 readings with msgpackr costs the load core more than the server spends on them, so
 * the client encodes one batch and patches worker id, recorded_at and coordinates in place (every
 * field is fixed width: the id, the ISO instant, float64 coordinates). The bytes are exactly what
 * msgpackr would produce for that batch.
 */
function frameTemplate(packr: { pack(v: unknown): Buffer }, base: number) {
  const sample = batch(0, 0, base);
  const body = Buffer.from(packr.pack(sample));
  const header = frameHeader(body.length);
  const frame = Buffer.concat([header, body]);
  const find = (needle: Buffer, from: number) => {
    const at = frame.indexOf(needle, from);
    if (at < 0) throw new Error('template field not found');
    return at;
  };
  const idAt = find(Buffer.from(sample.worker_id), 0);
  const timeAt: number[] = [];
  const latAt: number[] = [];
  const lngAt: number[] = [];
  let from = idAt;
  for (const r of sample.readings) {
    timeAt.push((from = find(Buffer.from(r.recorded_at), from)));
    const f = Buffer.alloc(9);
    f[0] = 0xcb;
    f.writeDoubleBE(r.position.latitude, 1);
    latAt.push((from = find(f, from)) + 1);
    f.writeDoubleBE(r.position.longitude, 1);
    lngAt.push((from = find(f, from)) + 1);
  }
  return (w: number, j: number): Buffer => {
    const out = Buffer.from(frame);
    out.write(workerName(w), idAt, 'latin1');
    for (let k = 0; k < BATCH; k++) {
      const t = j * BATCH + k;
      const [lat, lng] = point(w, t);
      out.write(new Date(base + t * SPACING_MS).toISOString(), timeAt[k], 'latin1');
      out.writeDoubleBE(lat, latAt[k]);
      out.writeDoubleBE(lng, lngAt[k]);
    }
    return out;
  };
}

/** The WebSocket upgrade of the heartbeat socket, with the API key. */
const upgradeRequest = (key: string) =>
  `GET ${SOCKET_PATH} HTTP/1.1\r\nhost: 127.0.0.1\r\nconnection: Upgrade\r\nupgrade: websocket\r\nsec-websocket-version: 13\r\n` +
  `sec-websocket-key: dGhlIHNhbXBsZSBub25jZQ==\r\nservice-api-key: ${key}\r\n\r\n`;

async function wsLoad(spec: WsSpec) {
  const { Packr } = await import('msgpackr');
  const packr = new Packr({ useRecords: false });
  const make = frameTemplate(packr, spec.base);
  // the patched frame equals msgpackr's own encoding of the same batch
  const check = Buffer.from(packr.pack(batch(3, 2, spec.base)));
  if (!make(3, 2).subarray(-check.length).equals(check)) throw new Error('frame template drifted from msgpackr encoding');
  let cursor = 0;
  const nextFrame = () => {
    const c = cursor++;
    return make(c % spec.workers, Math.floor(c / spec.workers));
  };
  let counting = false;
  let stopped = false;
  let receipts = 0;
  let accepted = 0;
  let rejected = 0;
  let errors = 0;
  const sockets: Socket[] = [];

  const open = () =>
    new Promise<void>((resolve, reject) => {
      const s = connect(spec.port, '127.0.0.1');
      s.setNoDelay(true);
      sockets.push(s);
      let upgraded = false;
      let buf: Buffer = Buffer.alloc(0);
      s.on('connect', () => s.write(upgradeRequest(spec.key)));
      s.on('error', (e) => (stopped ? undefined : reject(e)));
      s.on('data', (chunk: Buffer) => {
        buf = buf.length ? Buffer.concat([buf, chunk]) : chunk;
        if (!upgraded) {
          const end = buf.indexOf('\r\n\r\n');
          if (end < 0) return;
          if (!buf.toString('latin1', 0, 12).includes('101')) return reject(new Error(buf.toString('latin1', 0, end)));
          upgraded = true;
          buf = buf.subarray(end + 4);
          const out: Buffer[] = [];
          for (let i = 0; i < spec.inflight; i++) out.push(nextFrame());
          s.write(Buffer.concat(out));
          resolve();
        }
        let done = 0;
        for (;;) {
          const frame = readFrame(buf);
          if (!frame) break;
          const { op, payload } = frame;
          buf = buf.subarray(frame.size);
          done++;
          if (!counting) continue;
          if (op === 2) {
            const r = packr.unpack(payload) as { accepted_count: number; rejected_count: number };
            receipts++;
            accepted += r.accepted_count;
            rejected += r.rejected_count;
          } else errors++;
        }
        if (done && !stopped) {
          const out: Buffer[] = [];
          for (let i = 0; i < done; i++) out.push(nextFrame());
          s.write(out.length === 1 ? out[0] : Buffer.concat(out));
        }
      });
    });

  await Promise.all(Array.from({ length: spec.connections }, open));
  await new Promise((r) => setTimeout(r, spec.warmup * 1000));
  counting = true;
  const t0 = process.hrtime.bigint();
  await new Promise((r) => setTimeout(r, spec.seconds * 1000));
  counting = false;
  const seconds = Number(process.hrtime.bigint() - t0) / 1e9;
  stopped = true;
  for (const s of sockets) s.destroy();
  return { receipts, accepted, rejected, errors, seconds };
}

// ---------------------------------------------------------------------------------------------
// REST load (child, core 1): keep-alive connections, one POST in flight each, a fresh IK each.

interface RestSpec {
  port: number;
  key: string;
  base: number;
  firstWorker: number;
  workers: number;
  connections: number;
  seconds: number;
  warmup: number;
}

async function restLoad(spec: RestSpec) {
  let cursor = 0;
  const next = () => {
    const c = cursor++;
    const body = JSON.stringify(batch(spec.firstWorker + (c % spec.workers), Math.floor(c / spec.workers), spec.base));
    return (
      `POST /v1/allocation/heartbeats HTTP/1.1\r\nhost: 127.0.0.1\r\nconnection: keep-alive\r\nservice-api-key: ${spec.key}\r\n` +
      `idempotency-key: hb-${process.pid}-${c}\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(body)}\r\n\r\n${body}`
    );
  };
  let counting = false;
  let stopped = false;
  let ok = 0;
  let non2xx = 0;
  const sockets: Socket[] = [];
  const open = () =>
    new Promise<void>((resolve, reject) => {
      const s = connect(spec.port, '127.0.0.1');
      s.setNoDelay(true);
      sockets.push(s);
      let buf: Buffer = Buffer.alloc(0);
      s.on('connect', () => {
        s.write(next());
        resolve();
      });
      s.on('error', (e) => (stopped ? undefined : reject(e)));
      s.on('data', (chunk: Buffer) => {
        buf = buf.length ? Buffer.concat([buf, chunk]) : chunk;
        for (;;) {
          const end = buf.indexOf('\r\n\r\n');
          if (end < 0) return;
          const head = buf.toString('latin1', 0, end);
          const len = Number(/content-length: *(\d+)/i.exec(head)?.[1] ?? 0);
          if (buf.length < end + 4 + len) return;
          buf = buf.subarray(end + 4 + len);
          if (counting) head.slice(9, 12) === '200' ? ok++ : non2xx++;
          if (!stopped) s.write(next());
        }
      });
    });
  await Promise.all(Array.from({ length: spec.connections }, open));
  await new Promise((r) => setTimeout(r, spec.warmup * 1000));
  counting = true;
  const t0 = process.hrtime.bigint();
  await new Promise((r) => setTimeout(r, spec.seconds * 1000));
  counting = false;
  const seconds = Number(process.hrtime.bigint() - t0) / 1e9;
  stopped = true;
  for (const s of sockets) s.destroy();
  return { ok, non2xx, seconds };
}

// ---------------------------------------------------------------------------------------------
// Redis GEOADD baseline (child, core 1)

async function redisBaseline(spec: { readings: number; workers: number }) {
  const { Redis } = await import('ioredis');
  const redis = new Redis({ host: '127.0.0.1', port: 6379, lazyConnect: true });
  await redis.connect();
  const key = `bench:heartbeats:${process.pid}`;
  // the same points the socket carries, generated ahead so only Redis is timed
  const lat = new Float64Array(spec.readings);
  const lng = new Float64Array(spec.readings);
  const member: string[] = new Array(spec.readings);
  for (let i = 0; i < spec.readings; i++) {
    const b = Math.floor(i / BATCH);
    const w = b % spec.workers;
    const t = Math.floor(b / spec.workers) * BATCH + (i % BATCH);
    [lat[i], lng[i]] = point(w, t);
    member[i] = workerName(w);
  }
  try {
    await redis.del(key);
    const t0 = performance.now();
    for (let i = 0; i < spec.readings; ) {
      const p = redis.pipeline();
      for (let c = 0; c < 1000 && i < spec.readings; c++, i++) p.geoadd(key, lng[i], lat[i], member[i]);
      await p.exec();
    }
    const single = spec.readings / ((performance.now() - t0) / 1000);
    await redis.del(key);
    const t1 = performance.now();
    for (let i = 0; i < spec.readings; ) {
      const p = redis.pipeline();
      for (let c = 0; c < 100 && i < spec.readings; c++) {
        const args: (string | number)[] = [];
        for (let k = 0; k < BATCH && i < spec.readings; k++, i++) args.push(lng[i], lat[i], member[i]);
        p.geoadd(key, ...args);
      }
      await p.exec();
    }
    const batched = spec.readings / ((performance.now() - t1) / 1000);
    return { single, batched };
  } finally {
    await redis.del(key);
    redis.disconnect();
  }
}

// ---------------------------------------------------------------------------------------------
// Orchestration (parent)

/** A child on one core, with this process's Node flags: the server runs as `npm start` runs (package.json). */
function child(core: number, args: string[], flags: string[] = []): ChildProcess {
  return spawn('taskset', ['-c', String(core), process.execPath, ...process.execArgv, ...flags, SELF, ...args], { stdio: ['ignore', 'pipe', 'inherit'] });
}

function firstLine<T>(p: ChildProcess): Promise<T> {
  return new Promise((resolve, reject) => {
    let buf = '';
    p.stdout!.on('data', (c) => {
      buf += c;
      const nl = buf.indexOf('\n');
      if (nl >= 0) resolve(JSON.parse(buf.slice(0, nl)) as T);
    });
    p.on('exit', (code) => reject(new Error(`child exited ${code} before answering`)));
  });
}

/** Each worker sets their availability with their own device credential (spec 4.7: an organisation key cannot). */
async function makeAvailable(port: number, key: string, from: number, count: number) {
  let next = from;
  const lane = async () => {
    while (next < from + count) {
      const w = next++;
      const issued = await fetch(`http://127.0.0.1:${port}/v1/allocation/device_credentials`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'service-api-key': key, 'idempotency-key': `bench-device-${process.pid}-${w}` },
        body: JSON.stringify({ worker_id: workerName(w) }),
      });
      if (issued.status !== 201) throw new Error(`device credential ${issued.status}: ${await issued.text()}`);
      const device = ((await issued.json()) as { key: string }).key;
      const r = await fetch(`http://127.0.0.1:${port}/v1/allocation/availability/${workerName(w)}`, {
        method: 'PUT',
        headers: { 'content-type': 'application/json', 'service-api-key': device },
        body: JSON.stringify({ availability: 'available' }),
      });
      if (r.status !== 200) throw new Error(`availability ${r.status}: ${await r.text()}`);
      await r.arrayBuffer();
    }
  };
  await Promise.all(Array.from({ length: 16 }, lane));
}

export default async function heartbeats(): Promise<BenchResult[]> {
  const redis = await firstLine<{ single: number; batched: number }>(child(1, ['--redis', JSON.stringify({ readings: REDIS_READINGS, workers: WORKERS })]));

  // BENCH_PROFILE=<dir> writes a CPU profile of the server there
  const server = child(0, ['--serve'], process.env.BENCH_PROFILE ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_PROFILE}`] : []);
  try {
    const { port, key } = await firstLine<{ port: number; key: string }>(server);
    await makeAvailable(port, key, 0, WORKERS + REST_WORKERS);
    // let the platform finish with the availability events (audit, event feed) before measuring;
    // readings recorded before availability was set would be outside the collection window anyway
    await new Promise((r) => setTimeout(r, 2000));
    const start = Date.now();
    const ws = await firstLine<{ receipts: number; accepted: number; rejected: number; errors: number; seconds: number }>(
      child(1, ['--ws-load', JSON.stringify({ port, key, base: start, workers: WORKERS, connections: CONNECTIONS, inflight: INFLIGHT, seconds: SECONDS, warmup: WARMUP } satisfies WsSpec)]),
    );
    const rest = await firstLine<{ ok: number; non2xx: number; seconds: number }>(
      child(1, ['--rest-load', JSON.stringify({ port, key, base: start, firstWorker: WORKERS, workers: REST_WORKERS, connections: REST_CONNECTIONS, seconds: SECONDS, warmup: WARMUP } satisfies RestSpec)]),
    );
    const wsReadings = ws.accepted / ws.seconds;
    const load = `machine load average ${round(loadavg()[0], 1)} on 2 cores`;
    const wsNote = `${load}; server core 0, load core 1; ${CONNECTIONS} sockets x ${INFLIGHT} frames in flight, ${WORKERS} workers, ${SECONDS}s; ${ws.rejected} rejected, ${ws.errors} error frames`;
    return [
      compared('WebSocket ingest, msgpack batches of 50 (validated, stored, mapped)', round(wsReadings, 0), 'readings/s', 'Redis GEOADD pipelined, 1 point per command', round(redis.single, 0), 2, wsNote),
      absolute('WebSocket receipts', round(ws.receipts / ws.seconds, 0), 'batches/s', undefined, true, `Redis GEOADD with 50 points per command: ${round(redis.batched, 0).toLocaleString('en-US')} points/s (not the baseline; for scale)`),
      absolute('REST POST /v1/allocation/heartbeats, 50 readings, fresh IK', round(rest.ok / rest.seconds, 0), 'batches/s', undefined, true, `server core 0, load core 1; ${REST_CONNECTIONS} conns, 1 in flight each; ${rest.non2xx} non-200`),
    ];
  } finally {
    server.kill(process.env.BENCH_PROFILE ? 'SIGTERM' : 'SIGKILL');
  }
}

// ---------------------------------------------------------------------------------------------
// Child entry points

if (process.argv[1] === SELF) {
  const [role, arg] = process.argv.slice(2);
  if (role === '--serve') {
    process.on('SIGTERM', () => process.exit(0));
    await serve();
  } else if (role === '--ws-load') {
    process.stdout.write(JSON.stringify(await wsLoad(JSON.parse(arg) as WsSpec)) + '\n');
    process.exit(0);
  } else if (role === '--rest-load') {
    process.stdout.write(JSON.stringify(await restLoad(JSON.parse(arg) as RestSpec)) + '\n');
    process.exit(0);
  } else if (role === '--redis') {
    process.stdout.write(JSON.stringify(await redisBaseline(JSON.parse(arg))) + '\n');
    process.exit(0);
  }
}
