/**
 * Flags of `npm run load` and the target rule: a load test is pointed only at a loopback or private
 * test address unless the operator says they own the target (--i-own-this-target).
 */
import { lookup } from 'node:dns/promises';
import { isIP } from 'node:net';

export interface LoadOptions {
  targets: URL[];
  devices: number;
  /** Sockets the devices share (a device sends its own batches; a socket carries several devices' frames). */
  sockets: number;
  /** Each device sends one reading per interval. */
  intervalMs: number;
  durationMs: number;
  /** Share of readings made bad on purpose (inaccurate, from the future, duplicated, teleported). */
  badShare: number;
  encoding: 'json' | 'msgpack';
  /** API reads a second, over all readers. */
  readRate: number;
  /** Dispatchers opening work orders and accepting offers; 0 switches them off. */
  dispatchers: number;
  /** Share of the simulated workers made eligible at setup (live passport, current engagement) when dispatchers run. */
  eligibleShare: number;
  /** Work orders opened a second, over all dispatchers. */
  workOrderRate: number;
  ownTarget: boolean;
  report: string;
  /** An existing organisation's key (LOAD_API_KEY); otherwise the tool registers a sandbox organisation. */
  apiKey: string | undefined;
  city: { latitude: number; longitude: number; radiusMetres: number };
  quiet: boolean;
  /** Own sockets on the tool's private socket code instead of the device library (the baseline of `npm run bench -- devices`). */
  simulator: boolean;
  /** Where to write the run's figures as JSON (frames answered, seconds, readings accepted), if anywhere. */
  summary: string | undefined;
}

export const USAGE = `npm run load -- --target http://127.0.0.1:8080 [--target http://10.0.0.2:8080 ...]
  --devices N          simulated devices (default 1000)
  --sockets N          WebSocket connections the devices share (default min(devices, 2000));
                       as many as devices: each device is a phone on the device library
                       (clients/device, its own credential, msgpack); fewer: the organisation's
                       relay sockets (its key, several workers a socket)
  --interval 10s       one heartbeat per device per interval
  --duration 60s       how long the load runs (ms, s, m)
  --bad-share 0.05     share of bad readings (inaccurate fix, future clock, duplicate, teleport)
  --encoding json      json or msgpack frames on relay sockets (phones send msgpack)
  --read-rate 50       API list and record reads a second
  --dispatchers 0      dispatchers opening work orders and accepting offers (0: off)
  --eligible-share 0.1 share of simulated workers made eligible at setup (passport, engagement)
  --work-order-rate 1  work orders opened a second over all dispatchers
  --city 6.5244,3.3792,15000   centre latitude, longitude and radius in metres
  --report FILE        HTML report (default load-report-<time>.html)
  --i-own-this-target  allow a target that is not on a loopback or private address
  --quiet              no progress bar
  --simulator          devices on sockets of their own use the tool's private socket code, not
                       the device library (the baseline npm run bench -- devices measures against)
  --summary FILE       the run's figures as JSON (frames answered, seconds, readings accepted)
  LOAD_API_KEY=sk_...  use this organisation instead of registering a sandbox one`;

export function parseDuration(s: string): number {
  const m = /^(\d+(?:\.\d+)?)(ms|s|m)?$/.exec(s.trim());
  if (!m) throw new Error(`not a duration: ${JSON.stringify(s)} (use 500ms, 30s, 2m)`);
  const n = Number(m[1]);
  return Math.round(m[2] === 'ms' ? n : m[2] === 'm' ? n * 60_000 : n * 1000);
}

function positive(name: string, v: string, integer = true): number {
  const n = Number(v);
  if (!Number.isFinite(n) || n < 0 || (integer && !Number.isInteger(n))) throw new Error(`--${name} must be a ${integer ? 'whole ' : ''}number >= 0, not ${JSON.stringify(v)}`);
  return n;
}

export function parseArgs(argv: string[], env: Record<string, string | undefined> = {}): LoadOptions {
  const targets: URL[] = [];
  const o: Omit<LoadOptions, 'targets' | 'sockets'> & { sockets?: number } = {
    devices: 1000, intervalMs: 10_000, durationMs: 60_000, badShare: 0.05, encoding: 'json', readRate: 50, dispatchers: 0, eligibleShare: 0.1, workOrderRate: 1,
    ownTarget: false, report: `load-report-${new Date().toISOString().replace(/[:.]/g, '-')}.html`, apiKey: env.LOAD_API_KEY || undefined,
    city: { latitude: 6.5244, longitude: 3.3792, radiusMetres: 15_000 }, quiet: false, simulator: false, summary: undefined,
  };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    const [flag, inline] = a.includes('=') ? [a.slice(0, a.indexOf('=')), a.slice(a.indexOf('=') + 1)] : [a, undefined];
    const value = () => {
      const v = inline ?? argv[++i];
      if (v === undefined) throw new Error(`${flag} needs a value`);
      return v;
    };
    switch (flag) {
      case '--target':
        for (const t of value().split(',')) {
          const u = new URL(t.includes('://') ? t : `http://${t}`);
          if (!targets.some((x) => x.origin === u.origin)) targets.push(u); // a node named twice would be counted twice
        }
        break;
      case '--devices': o.devices = positive('devices', value()); break;
      case '--sockets': o.sockets = positive('sockets', value()); break;
      case '--interval': o.intervalMs = parseDuration(value()); break;
      case '--duration': o.durationMs = parseDuration(value()); break;
      case '--bad-share': o.badShare = positive('bad-share', value(), false); break;
      case '--encoding': { const e = value(); if (e !== 'json' && e !== 'msgpack') throw new Error('--encoding is json or msgpack'); o.encoding = e; break; }
      case '--read-rate': o.readRate = positive('read-rate', value(), false); break;
      case '--dispatchers': o.dispatchers = positive('dispatchers', value()); break;
      case '--eligible-share': o.eligibleShare = positive('eligible-share', value(), false); break;
      case '--work-order-rate': o.workOrderRate = positive('work-order-rate', value(), false); break;
      case '--city': {
        const [lat, lng, r] = value().split(',').map(Number);
        if (![lat, lng, r].every(Number.isFinite)) throw new Error('--city is latitude,longitude,radius_metres');
        o.city = { latitude: lat, longitude: lng, radiusMetres: r };
        break;
      }
      case '--report': o.report = value(); break;
      case '--i-own-this-target': o.ownTarget = true; break;
      case '--quiet': o.quiet = true; break;
      case '--simulator': o.simulator = true; break;
      case '--summary': o.summary = value(); break;
      default: throw new Error(`unknown flag ${a}\n${USAGE}`);
    }
  }
  if (!targets.length) throw new Error(`--target is required\n${USAGE}`);
  for (const t of targets) if (t.protocol !== 'http:' && t.protocol !== 'https:') throw new Error(`a target is http(s), not ${t.protocol}`);
  if (o.badShare > 1) throw new Error('--bad-share is at most 1');
  if (o.eligibleShare > 1) throw new Error('--eligible-share is at most 1');
  if (o.intervalMs <= 0 || o.durationMs <= 0) throw new Error('--interval and --duration must be above zero');
  const sockets = Math.max(1, Math.min(o.devices, o.sockets ?? Math.min(o.devices, 2000)));
  return { ...o, targets, sockets };
}

/** Loopback (127/8, ::1) or a private test network (10/8, 172.16/12, 192.168/16, fc00::/7). */
export function isPrivateAddress(ip: string): boolean {
  if (isIP(ip) === 4) {
    const [a, b] = ip.split('.').map(Number);
    return a === 127 || a === 10 || (a === 172 && b >= 16 && b <= 31) || (a === 192 && b === 168);
  }
  const v = ip.toLowerCase();
  if (v === '::1') return true;
  if (v.startsWith('::ffff:')) return isPrivateAddress(v.slice(7));
  return /^f[cd][0-9a-f]{2}:/.test(v);
}

/** Refuses (throws) a target whose every address is not loopback or private, unless the operator owns it. */
export async function checkTargets(targets: URL[], ownTarget: boolean, resolve = async (host: string) => (await lookup(host, { all: true })).map((a) => a.address)): Promise<void> {
  if (ownTarget) return;
  for (const t of targets) {
    const host = t.hostname.replace(/^\[|\]$/g, '');
    const addresses = isIP(host) ? [host] : await resolve(host);
    const outside = addresses.filter((a) => !isPrivateAddress(a));
    if (!addresses.length || outside.length)
      throw new Error(`refusing target ${t.origin}: ${outside.join(', ') || 'no address'} is not a loopback or private test address. Pass --i-own-this-target if you own the deployment.`);
  }
}
