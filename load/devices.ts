/**
 * Simulated field devices: each is a worker moving over the city (walking or riding, turning now
 * and then, battery draining, connectivity mostly good), sending one heartbeat reading per interval
 * as a batch frame on the platform's heartbeat WebSocket. A share of readings is bad on purpose,
 * each of a kind the platform refuses (spec 2.8): an inaccurate fix, a clock in the future, a
 * duplicate of the last reading, a teleport. Devices share sockets (a file descriptor per device
 * would not fit most machines' limits); each socket carries one frame at a time, in order.
 */
import { Packr, Unpackr } from 'msgpackr';
import WebSocket from 'ws';
import type { Metrics } from './metrics.ts';
import type { LoadOptions } from './options.ts';

/** The documented heartbeat socket (docs/openapi.json x-sockets; README). */
export const HEARTBEAT_SOCKET_PATH = '/v1/allocation/heartbeats/stream';
export const BAD_KINDS = ['inaccurate', 'future', 'duplicate', 'teleport'] as const;
type BadKind = (typeof BAD_KINDS)[number];

const EARTH = 6_371_000;
const packr = new Packr({ useRecords: false });
const unpackr = new Unpackr({ useRecords: false, mapsAsObjects: true });

/** A small seeded generator, so a run can be repeated. */
export function rng(seed: number): () => number {
  let s = seed >>> 0 || 1;
  return () => {
    s ^= s << 13;
    s ^= s >>> 17;
    s ^= s << 5;
    return (s >>> 0) / 4294967296;
  };
}

/** What carries a device's readings: a phone of its own (phones.ts) or a relay socket shared with others. */
export interface Sender {
  send(workerId: string, readings: Record<string, unknown>[], dueAt: number): void;
  readonly pending: number;
  close(): void;
}

export interface Device {
  workerId: string;
  lat: number;
  lng: number;
  heading: number;
  /** metres a second */
  speed: number;
  battery: number;
  lastRecordedAt: number;
  movedAt: number;
  socket: Sender;
}

export function makeDevices(n: number, runId: string, city: LoadOptions['city'], random: () => number): Omit<Device, 'socket'>[] {
  const out: Omit<Device, 'socket'>[] = [];
  for (let i = 0; i < n; i++) {
    const r = city.radiusMetres * Math.sqrt(random());
    const a = random() * 2 * Math.PI;
    const [lat, lng] = move(city.latitude, city.longitude, a, r);
    const riding = random() < 0.4;
    out.push({ workerId: `load_${runId}_${i}`, lat, lng, heading: random() * 2 * Math.PI, speed: riding ? 5 + random() * 8 : 0.8 + random() * 1.2, battery: 40 + random() * 60, lastRecordedAt: 0, movedAt: Date.now() });
  }
  return out;
}

function move(lat: number, lng: number, heading: number, metres: number): [number, number] {
  const dLat = (metres * Math.cos(heading)) / EARTH;
  const dLng = (metres * Math.sin(heading)) / (EARTH * Math.cos((lat * Math.PI) / 180));
  return [lat + (dLat * 180) / Math.PI, lng + (dLng * 180) / Math.PI];
}

function distance(lat1: number, lng1: number, lat2: number, lng2: number): number {
  const r = Math.PI / 180;
  const a = Math.sin(((lat2 - lat1) * r) / 2) ** 2 + Math.cos(lat1 * r) * Math.cos(lat2 * r) * Math.sin(((lng2 - lng1) * r) / 2) ** 2;
  return 2 * EARTH * Math.asin(Math.sqrt(a));
}

/** The next reading of a device, good or (with probability badShare) bad of one kind; moves the device when good. */
export function nextReading(d: Omit<Device, 'socket'>, now: number, city: LoadOptions['city'], badShare: number, random: () => number): { reading: Record<string, unknown>; bad: BadKind | undefined } {
  let bad: BadKind | undefined = random() < badShare ? BAD_KINDS[Math.floor(random() * BAD_KINDS.length)] : undefined;
  // with no reading before it, a duplicate or a teleport is neither: the first reading is inaccurate instead
  if ((bad === 'duplicate' || bad === 'teleport') && d.lastRecordedAt === 0) bad = 'inaccurate';
  const base = { connectivity: random() < 0.9 ? 'good' : 'poor', availability: 'available', battery_percent: Math.max(1, Math.round(d.battery)), mock_location_detected: false, device_integrity_attested: true };
  if (bad === 'future') return { bad, reading: { ...base, recorded_at: new Date(now + 10 * 60_000).toISOString(), position: { latitude: d.lat, longitude: d.lng, accuracy_metres: 10 } } };
  if (bad === 'duplicate') return { bad, reading: { ...base, recorded_at: new Date(d.lastRecordedAt).toISOString(), position: { latitude: d.lat, longitude: d.lng, accuracy_metres: 10 } } };
  const at = Math.max(now, d.lastRecordedAt + 1);
  if (bad === 'inaccurate') return { bad, reading: { ...base, recorded_at: new Date(at).toISOString(), position: { latitude: d.lat, longitude: d.lng, accuracy_metres: 400 + Math.round(random() * 1000) } } };
  if (bad === 'teleport') {
    const [lat, lng] = move(d.lat, d.lng, random() * 2 * Math.PI, 300_000);
    return { bad, reading: { ...base, recorded_at: new Date(at).toISOString(), position: { latitude: lat, longitude: lng, accuracy_metres: 10 } } };
  }
  // a good reading: walk or ride on, turning a little, back towards the centre at the city's edge
  const dt = Math.max(0, (at - d.movedAt) / 1000);
  d.heading += (random() - 0.5) * 0.6;
  if (distance(d.lat, d.lng, city.latitude, city.longitude) > city.radiusMetres) d.heading = Math.atan2(city.longitude - d.lng, city.latitude - d.lat);
  [d.lat, d.lng] = move(d.lat, d.lng, d.heading, d.speed * dt);
  d.battery = Math.max(1, d.battery - dt / 600);
  d.movedAt = at;
  d.lastRecordedAt = at;
  return { bad: undefined, reading: { ...base, recorded_at: new Date(at).toISOString(), position: { latitude: d.lat, longitude: d.lng, accuracy_metres: 4 + Math.round(random() * 20) } } };
}

interface Pending {
  frame: string | Buffer;
  dueAt: number;
  readings: number;
}

/** One WebSocket to a node, carrying several devices' frames, one in flight at a time. */
export class DeviceSocket {
  private ws!: WebSocket;
  private readonly queue: Pending[] = [];
  private inFlight: Pending | undefined;
  open = false;

  constructor(private readonly url: string, private readonly key: string, private readonly metrics: Metrics, private readonly encoding: 'json' | 'msgpack') {}

  connect(): Promise<void> {
    return new Promise((resolve, reject) => {
      const started = performance.now();
      this.ws = new WebSocket(this.url, { headers: { 'service-api-key': this.key }, perMessageDeflate: false });
      this.ws.once('open', () => {
        this.open = true;
        this.metrics.record('ws connect', started);
        resolve();
      });
      this.ws.once('unexpected-response', (_req, res) => reject(new Error(`upgrade refused: HTTP ${res.statusCode}`)));
      this.ws.once('error', (e) => (this.open ? undefined : reject(e)));
      this.ws.on('message', (data, binary) => this.answered(data as Buffer, binary));
      this.ws.on('close', () => {
        this.open = false;
        if (this.inFlight) this.metrics.record('heartbeat frame', this.inFlight.dueAt, 'closed');
        for (const p of this.queue.splice(0)) this.metrics.record('heartbeat frame', p.dueAt, 'closed');
        this.inFlight = undefined;
      });
    });
  }

  get pending(): number {
    return this.queue.length + (this.inFlight ? 1 : 0);
  }

  send(workerId: string, readings: Record<string, unknown>[], dueAt: number): void {
    const batch = { worker_id: workerId, readings };
    const frame = this.encoding === 'msgpack' ? packr.pack(batch) : JSON.stringify(batch);
    this.queue.push({ frame, dueAt, readings: readings.length });
    this.metrics.add('readings sent', readings.length);
    this.pump();
  }

  private pump(): void {
    if (this.inFlight || !this.open) return;
    const next = this.queue.shift();
    if (!next) return;
    this.inFlight = next;
    this.ws.send(next.frame, { binary: typeof next.frame !== 'string' });
  }

  private answered(data: Buffer, binary: boolean): void {
    const p = this.inFlight;
    this.inFlight = undefined;
    if (p) {
      const body = (binary ? unpackr.unpack(data) : JSON.parse(data.toString('utf8'))) as { accepted_count?: number; rejections?: { reason: string }[]; error?: { code: string } };
      if (body.error) {
        this.metrics.record('heartbeat frame', p.dueAt, body.error.code);
        this.metrics.add('readings refused with the frame', p.readings);
      } else {
        this.metrics.record('heartbeat frame', p.dueAt);
        this.metrics.add('readings accepted (receipts)', body.accepted_count ?? 0);
        for (const r of body.rejections ?? []) this.metrics.add(`rejected: ${r.reason}`);
      }
    }
    this.pump();
  }

  close(): void {
    this.ws?.close();
  }
}
