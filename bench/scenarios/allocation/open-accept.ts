/**
 * Allocation bench part (c), through the gateway (the load generator in a child process pinned to
 * core 1): opening a work order, ranked over 200 available workers near the point (20 of them
 * eligible: passport and engagement), and accepting an offer with the worker's own device
 * credential, each beside the gateway's no-op idempotent POST; see ../allocation.ts. Its steps:
 * prepare the workers, keep them reporting, then time the rounds.
 */
import type { Clock } from '../../../runtime/index.ts';
import { runLoad, type LoadResult, type LoadSpec, type Req } from '../../http-load.ts';
import { profiled } from '../../profile.ts';
import { round } from '../../report.ts';
import { NOOP_PATH } from '../../../support/noop-area.ts';
import { type Embedded, livePassport, load, parallel } from './embedded.ts';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 3);
export const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 32);
export const ACCEPTS = Number(process.env.BENCH_ACCEPTS ?? 16_000);
export const POINT = { latitude: 6.4541, longitude: 3.3947 };

/** Each round's rate (req/s) and rate per server CPU-second, of the no-op, the open and the accept runs. */
export interface OpenAcceptRows {
  noop: number[];
  open: number[];
  accept: number[];
  noopCpu: number[];
  openCpu: number[];
  acceptCpu: number[];
}

/**
 * 200 workers near the point, each with a device credential and available; the first 20 with a
 * live passport and an active engagement with one employer. Answers the workers and their devices.
 */
async function prepareWorkers(e: Embedded): Promise<{ near: string[]; devices: Map<string, string> }> {
  const { call, key } = e;
  const near = Array.from({ length: 200 }, (_, i) => `bench_near_${i}`);
  const eligible = near.slice(0, 20);
  const employer = 'bench_employer';
  await livePassport(e, employer);
  const facts = { control: 'engaging_party', integration: 'integral', economic_dependence: 'single_party', tools: 'engaging_party', delegation: 'not_permitted', payment_form: 'wage_or_salary', duration: 'open_ended' };
  await parallel(eligible.length, 4, async (i) => {
    const w = eligible[i];
    await livePassport(e, w);
    const g = await call('POST', '/v1/rail/engagements', { engaging_party_ref: employer, worker_ref: w, starts_on: '2026-01-01', ends_on: null, facts }, key);
    const ins = await call('POST', `/v1/rail/engagements/${g.id}/instruments`, { template_code: 'ng_contract_of_employment' }, key);
    await call('POST', `/v1/rail/engagements/${g.id}/paper`, { instrument_id: ins.id }, key);
    await call('POST', `/v1/rail/engagements/${g.id}/instruments/${ins.id}/assents`, { party: 'engaging_party', subject_ref: employer }, key);
    await call('POST', `/v1/rail/engagements/${g.id}/instruments/${ins.id}/assents`, { party: 'worker', subject_ref: w }, key);
    await call('POST', `/v1/rail/engagements/${g.id}/instruments/${ins.id}/execute`, undefined, key);
    await call('POST', `/v1/rail/engagements/${g.id}/activate`, undefined, key);
  });
  const devices = new Map<string, string>();
  await parallel(near.length, 8, async (i) => {
    const w = near[i];
    const d = await call('POST', '/v1/allocation/device_credentials', { worker_id: w, name: 'bench phone' }, key);
    devices.set(w, d.key);
    await call('PUT', `/v1/allocation/availability/${w}`, { availability: 'available' }, d.key);
  });
  return { near, devices };
}

/**
 * The devices keep reporting (presence goes stale after a minute without readings): one reading
 * each now, checked in the supply map, then every 15 s until the returned stop is called.
 */
async function keepReporting(e: Embedded, clock: Clock, near: string[]): Promise<() => void> {
  const { allocation, submitHeartbeats } = await import('../../../actors/allocation/index.ts');
  const { platform, org } = e;
  const svc = allocation(platform);
  // Readings are recorded now: a reading from before a worker's availability began is outside
  // its collection window and refused (the 200 ms before the last availability PUTs would leave
  // most of the 200 out of the map for the first round).
  const report = async () => {
    const at = clock.now();
    await Promise.all(near.map((w, i) =>
      submitHeartbeats(
        platform,
        { org, livemode: false, principal: 'bench' },
        { worker_id: w, readings: [{ recorded_at: new Date(at).toISOString(), position: { latitude: POINT.latitude + (i % 20) * 0.0004, longitude: POINT.longitude + Math.floor(i / 20) * 0.0004, accuracy_metres: 8 }, connectivity: 'good', availability: 'available', battery_percent: 80, mock_location_detected: false, device_integrity_attested: true }] },
      ),
    ));
  };
  await report();
  await platform.system.settle();
  const inMap = svc.supply.size(org);
  if (inMap !== near.length) throw new Error(`${inMap} of the ${near.length} workers near the point are in the supply map`);
  const reporter = setInterval(() => void report().catch((err) => process.stderr.write(`  reporter: ${err}\n`)), 15_000);
  return () => clearInterval(reporter);
}

/** Part (c): the rows of every round, a note a round, and the machine's load after the last. */
export async function openAndAccept(e: Embedded, clock: Clock): Promise<{ rows: OpenAcceptRows; notes: string[]; load: string }> {
  const { platform, gw, call, key } = e;
  process.stderr.write('  (c) preparing 200 workers near the point (20 eligible: passport and engagement)\n');
  const { near, devices } = await prepareWorkers(e);
  const stopReporting = await keepReporting(e, clock, near);
  try {
    await platform.system.settle();
    const window = () => ({ starts_at: new Date(clock.now()).toISOString(), ends_at: new Date(clock.now() + 4 * 3_600_000).toISOString() });
    const openBody = () => JSON.stringify({ location: { ...POINT, radius_metres: 300 }, window: window(), headcount: 1, cascade_width: 1, offer_timeout_seconds: 3600 });
    const probe = await call('POST', '/v1/allocation/work_orders', JSON.parse(openBody()), key);
    if (probe.status !== 'open') throw new Error(`a work order near the point did not open: ${JSON.stringify(probe).slice(0, 400)}`);

    /** Work orders each with one pending offer; the accept requests, each with the offered worker's device credential. */
    const acceptList = (n: number): Promise<Req[]> =>
      parallel(n, 8, async () => {
        const wo = await call('POST', '/v1/allocation/work_orders', JSON.parse(openBody()), key);
        const offers = (await call('GET', `/v1/allocation/work_orders/${wo.id}/offers`, undefined, key)).data as { id: string; worker_id: string; status: string }[];
        const o = offers.find((x) => x.status === 'pending');
        if (!o) throw new Error(`work order ${wo.id} made no offer`);
        return { method: 'POST' as const, path: `/v1/allocation/offers/${o.id}/accept`, uniqueKey: true, key: devices.get(o.worker_id)! };
      });
    const noop: Req = { method: 'POST', path: NOOP_PATH, body: JSON.stringify({ name: 'bench' }), uniqueKey: true };
    const spec = (r: Partial<LoadSpec>): LoadSpec => ({ port: gw.port, key, seconds: SECONDS, connections: CONNECTIONS, ...r });
    const rows: OpenAcceptRows = { noop: [], open: [], accept: [], noopCpu: [], openCpu: [], acceptCpu: [] };
    /** The run and the settling of the feed work it left, with this process's (the server's) CPU-seconds over both. */
    const timed = async (run: () => Promise<LoadResult>) => {
      const c0 = process.cpuUsage();
      const out = await run();
      await platform.system.settle();
      const c = process.cpuUsage(c0);
      return { out, cpu: (c.user + c.system) / 1e6 };
    };
    const notes: string[] = [];
    for (let r = 0; r < ROUNDS; r++) {
      const { out: n, cpu: nCpu } = await timed(() => runLoad(spec({ repeat: noop })));
      const { out: o, cpu: oCpu } = await profiled(`open-round-${r + 1}`, () => timed(() => runLoad(spec({ repeat: { method: 'POST', path: '/v1/allocation/work_orders', body: openBody(), uniqueKey: true } }))));
      // the accept run's offers are prepared after the open run: the open run ranks and commits
      // against what the earlier rounds left, not also against work made for the run after it
      process.stderr.write(`  (c) round ${r + 1}/${ROUNDS}: preparing ${ACCEPTS} work orders with a pending offer\n`);
      const accepts = await acceptList(ACCEPTS);
      await platform.system.settle();
      const { out: x, cpu: xCpu } = await profiled(`accept-round-${r + 1}`, () => timed(() => runLoad(spec({ list: accepts }))));
      rows.noopCpu.push(n.requests / nCpu);
      rows.openCpu.push(o.requests / oCpu);
      rows.acceptCpu.push(x.requests / xCpu);
      for (const res of [n, o, x]) if (res.non2xx) throw new Error(`bench requests refused: ${res.non2xx}; ${res.sample}`);
      rows.noop.push(n.rps);
      rows.open.push(o.rps);
      rows.accept.push(x.rps);
      notes.push(`round ${r + 1}: open ${round(o.rps / n.rps, 3)}x, accept ${round(x.rps / n.rps, 3)}x`);
      process.stderr.write(`  ${notes.at(-1)}; no-op ${Math.round(n.rps)} req/s, open ${Math.round(o.rps)}, accept ${Math.round(x.rps)}; ${load()}\n`);
    }
    return { rows, notes, load: load() };
  } finally {
    stopReporting();
  }
}
