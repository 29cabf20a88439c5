/**
 * `npm run load`: load a running deployment (README "Load testing"). Simulated devices send
 * heartbeats over the WebSocket while API clients read lists and records (and, with
 * --dispatchers, dispatchers open work orders around the devices and accept their offers); a
 * progress bar runs meanwhile; at the end a table of throughput and latency percentiles per
 * operation, the platform's own counters beside the tool's (readings accepted; work orders filled),
 * and a self-contained HTML report with plots over time. Exit 0 when the counters agree within 1%,
 * 1 when they do not, 2 on a refusal or a setup failure.
 */
import { randomBytes } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import cliProgress from 'cli-progress';
import { makeAvailable, platformCounters, readers, register, pool } from './clients.ts';

type Counters = Awaited<ReturnType<typeof platformCounters>>;
import { Dispatch } from './dispatch.ts';
import { DeviceSocket, HEARTBEAT_SOCKET_PATH, makeDevices, nextReading, rng, type Device } from './devices.ts';
import { Metrics, table } from './metrics.ts';
import { Phone } from './phones.ts';
import { checkTargets, parseArgs, USAGE, type LoadOptions } from './options.ts';
import { loadReport, type LoadOutcome } from './report.ts';

/** The counters agree when they differ by at most this share of the tool's count. */
export const AGREEMENT = 0.01;
const TICK_MS = 20;
const DRAIN_MS = 15_000;

type Bar = (label: string, total: number) => cliProgress.SingleBar;

/** A progress bar on stderr, or one that shows nothing under --quiet. */
function progressBars(o: LoadOptions): Bar {
  return (label, total) => {
    if (o.quiet) return { increment() {}, update() {}, stop() {} } as unknown as cliProgress.SingleBar;
    const b = new cliProgress.SingleBar({ format: `${label.padEnd(10)} [{bar}] {percentage}% {value}/{total} {extra}`, hideCursor: true, stream: process.stderr, noTTYOutput: true, notTTYSchedule: 5000 }, cliProgress.Presets.shades_classic);
    b.start(total, 0, { extra: '' });
    return b;
  };
}

interface Setup {
  devices: Device[];
  sockets: (DeviceSocket | Phone)[];
  dispatch: Dispatch | undefined;
}

/** One worker record per device, then the sockets, then the dispatchers' eligible workers. */
async function setUp(o: LoadOptions, key: string, runId: string, random: () => number, metrics: Metrics, bar: Bar, log: (s: string) => void): Promise<Setup> {
  const base = makeDevices(o.devices, runId, o.city, random);
  let b = bar('workers', base.length);
  const deviceKeys = await makeAvailable(o.targets, key, base.map((d) => d.workerId), metrics, () => b.increment());
  b.stop();
  // A socket per device authenticates with that device's own credential; sockets shared by several
  // devices are the organisation's relay and use its key (docs/gaps.md#allocation: a heartbeat never
  // changes availability, so a relay may send them).
  // A device on a socket of its own is a phone on the device library (phones.ts).
  const ownSockets = o.sockets >= base.length;
  const sockets: (DeviceSocket | Phone)[] = Array.from({ length: o.sockets }, (_, i) => {
    const t = o.targets[i % o.targets.length];
    if (ownSockets && !o.simulator) return new Phone(t.origin, deviceKeys.get(base[i].workerId)!, base[i].workerId, metrics);
    const url = `${t.protocol === 'https:' ? 'wss' : 'ws'}://${t.host}${HEARTBEAT_SOCKET_PATH}`;
    return new DeviceSocket(url, ownSockets ? deviceKeys.get(base[i].workerId)! : key, metrics, o.encoding);
  });
  b = bar('sockets', sockets.length);
  await pool(sockets, 50, (s) => s.connect(), () => b.increment());
  b.stop();
  const devices: Device[] = base.map((d, i) => ({ ...d, socket: sockets[i % sockets.length] }));

  // dispatchers: a share of the workers made eligible through the identity and engagements APIs
  let dispatch: Dispatch | undefined;
  if (o.dispatchers > 0) {
    dispatch = new Dispatch(o.targets, key, runId, metrics, random, o, (w) => deviceKeys.get(w));
    b = bar('eligible', Math.round(base.length * o.eligibleShare));
    await dispatch.setup(base.map((d) => d.workerId), () => b.increment());
    b.stop();
    log(`dispatchers: ${dispatch.outcome.note}`);
  }
  return { devices, sockets, dispatch };
}

/** The run: device i is due at start + k*interval + i*interval/devices, until the duration is up. */
function drive(o: LoadOptions, { devices, sockets, dispatch }: Setup, reads: ReturnType<typeof readers>, start: number, random: () => number, metrics: Metrics, bar: Bar): Promise<void> {
  const byWorker = new Map(devices.map((d) => [d.workerId, d]));
  const positionOf = (w: string) => {
    const d = byWorker.get(w);
    return d && d.lastRecordedAt > 0 ? { workerId: w, lat: d.lat, lng: d.lng } : undefined;
  };
  const runBar = bar('load', Math.round(o.durationMs / 1000));
  dispatch?.start();
  let next = 0;
  let round = 0;
  const dueOf = (i: number, k: number) => start + k * o.intervalMs + (i * o.intervalMs) / devices.length;
  return new Promise<void>((done) => {
    const timer = setInterval(() => {
      const now = performance.now();
      const end = start + o.durationMs;
      const until = Math.min(now, end);
      while (devices.length && dueOf(next, round) <= until) {
        const d = devices[next];
        const due = dueOf(next, round);
        const { reading, bad } = nextReading(d, Date.now(), o.city, o.badShare, random);
        metrics.add(bad ? `bad sent: ${bad}` : 'good readings sent');
        d.socket.send(d.workerId, [reading], due);
        if (++next === devices.length) (next = 0), round++;
      }
      reads.issue(start, until);
      // work orders from the second round on, when every device has reported a position
      dispatch?.issue(start + o.intervalMs, until, positionOf);
      const elapsed = Math.floor((until - start) / 1000);
      const s = metrics.summary().find((x) => x.name === 'heartbeat frame');
      runBar.update(elapsed, { extra: `| accepted ${metrics.counter('readings accepted (receipts)')} | frames p99 ${s ? s.p99.toFixed(1) : '-'} ms | queued ${sockets.reduce((a, x) => a + x.pending, 0)}` });
      if (now >= end) {
        clearInterval(timer);
        runBar.stop();
        done();
      }
    }, TICK_MS);
  });
}

/** Lets what was sent be answered (for at most DRAIN_MS), then stops the clock and closes the sockets; answers when it stopped and how many went unanswered. */
async function drain({ sockets, dispatch }: Setup, reads: ReturnType<typeof readers>, metrics: Metrics): Promise<{ endedAt: number; unanswered: number }> {
  const drainUntil = performance.now() + DRAIN_MS;
  dispatch?.stopOpening();
  while ((sockets.some((s) => s.pending > 0) || reads.inFlight > 0 || dispatch?.busy) && performance.now() < drainUntil) await new Promise((r) => setTimeout(r, 50));
  const endedAt = (metrics.endedAt = performance.now());
  const unanswered = sockets.reduce((a, s) => a + s.pending, 0);
  for (const s of sockets) s.close();
  return { endedAt, unanswered };
}

export async function runLoad(o: LoadOptions, log: (s: string) => void = (s) => process.stderr.write(s + '\n')): Promise<LoadOutcome> {
  await checkTargets(o.targets, o.ownTarget);
  const runId = `${Date.now().toString(36)}${randomBytes(3).toString('hex')}`;
  const random = rng(Number.parseInt(runId.slice(-6), 16));
  const metrics = new Metrics();
  const key = o.apiKey ?? (await register(o.targets[0], runId));
  const bar = progressBars(o);
  const setup = await setUp(o, key, runId, random, metrics, bar, log);

  const reads = readers(o.targets, key, o.readRate, setup.devices.map((d) => d.workerId), o.city, metrics, random);
  // the platform's counters count since each node started: the run's figure is the difference
  const countersBefore = await platformCounters(o.targets, key);
  const start = performance.now();
  metrics.runStartedAt = start;
  await drive(o, setup, reads, start, random, metrics, bar);
  const { endedAt, unanswered } = await drain(setup, reads, metrics);
  const dispatched = await setup.dispatch?.finish(AGREEMENT);

  const counters = since(countersBefore, await platformCounters(o.targets, key));
  const tool = metrics.counter('readings accepted (receipts)');
  const difference = counters.served ? Math.abs(counters.accepted - tool) / Math.max(1, tool) : undefined;
  const outcome: LoadOutcome = {
    options: o, runId, summary: metrics.summary(), series: metrics.series(), counters: Object.fromEntries(metrics.counters), platform: counters,
    agreement: difference === undefined ? undefined : { difference, within: difference <= AGREEMENT },
    dispatch: dispatched, unanswered, seconds: (endedAt - start) / 1000, reportFile: resolve(o.report), runStartSecond: (start - metrics.startedAt) / 1000,
  };
  writeFileSync(outcome.reportFile, loadReport(outcome));
  if (o.summary) {
    const frames = outcome.summary.find((s) => s.name === 'heartbeat frame');
    writeFileSync(o.summary, JSON.stringify({ frames: frames?.count ?? 0, frame_errors: frames?.errors ?? 0, frame_p99_ms: frames?.p99 ?? 0, seconds: outcome.seconds, readings_accepted: tool, unanswered }));
  }
  return outcome;
}

/** What the platform counted between two snapshots, node by node. */
function since(before: Counters, after: Counters): Counters {
  if (!after.served || !before.served) return after;
  const perNode = after.perNode.map((n) => {
    const b = before.perNode.find((x) => x.target === n.target);
    return { target: n.target, accepted: n.accepted - (b?.accepted ?? 0), received: n.received - (b?.received ?? 0) };
  });
  return { ...after, perNode, accepted: perNode.reduce((a, n) => a + n.accepted, 0), received: perNode.reduce((a, n) => a + n.received, 0) };
}

async function main(): Promise<void> {
  if (process.argv.includes('--help') || process.argv.includes('-h')) {
    console.log(USAGE);
    return;
  }
  let o: LoadOptions;
  try {
    o = parseArgs(process.argv.slice(2), process.env);
  } catch (e) {
    console.error((e as Error).message);
    process.exit(2);
  }
  try {
    const out = await runLoad(o);
    console.log(`\n== load: ${o.devices} devices on ${o.sockets} sockets, ${o.targets.map((t) => t.origin).join(', ')}, ${out.seconds.toFixed(1)} s`);
    console.log(table(out.summary));
    const sent = out.counters['readings sent'] ?? 0;
    console.log(`\nreadings sent ${sent}, accepted by receipts ${out.counters['readings accepted (receipts)'] ?? 0}, bad sent ${Object.entries(out.counters).filter(([k]) => k.startsWith('bad sent')).reduce((a, [, n]) => a + n, 0)}, unanswered ${out.unanswered}`);
    if (out.platform.served) console.log(`platform counters (GET /v1/allocation/counters, summed over ${out.platform.perNode.length} node(s)): readings accepted ${out.platform.accepted}; difference ${(out.agreement!.difference * 100).toFixed(3)}% (${out.agreement!.within ? 'within' : 'NOT within'} ${AGREEMENT * 100}%)`);
    else console.log(`platform counters: ${out.platform.note}`);
    const d = out.dispatch;
    if (d && !d.served) console.log(`dispatchers: ${d.note}`);
    if (d?.served) {
      console.log(`dispatchers: ${d.note}; work orders opened ${d.opened}, filled ${d.filled}, unfilled (supply gaps) ${d.unfilled}${d.unfilled ? ` (${Object.entries(d.gapReasons).map(([k, n]) => `${k} ${n}`).join(', ')})` : ''}, open at the end ${d.openAtEnd} (cancelled); offers accepted ${d.offersAccepted}`);
      console.log(`work orders filled: the platform counted ${d.platformFilled} (GET /v1/allocation/work_orders?status=filled), the tool ${d.filled}; difference ${(d.agreement!.difference * 100).toFixed(3)}% (${d.agreement!.within ? 'within' : 'NOT within'} ${AGREEMENT * 100}%)`);
    }
    console.log(`report: ${out.reportFile}`);
    process.exitCode = (out.agreement && !out.agreement.within) || (d?.agreement && !d.agreement.within) ? 1 : 0;
  } catch (e) {
    console.error(`load: ${(e as Error).message}`);
    process.exitCode = 2;
  }
  // sockets and keep-alive connections are closed; leave nothing holding the process
  setTimeout(() => process.exit(), 100).unref();
}

if (import.meta.url === `file://${process.argv[1]}` || process.argv[1]?.endsWith('load/cli.ts')) await main();
export { USAGE };
