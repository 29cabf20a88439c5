/**
 * Identity bench (spec 2.4, 4.3). In one run, on the local stores `npm start` runs on and then on
 * memory stores:
 *
 *   1. POST /v1/bench/noops: the gateway's no-op idempotent POST, a fresh Idempotency-Key each
 *      (baseline for 2; support/noop-area.ts)
 *   2. POST /v1/identity/verifications through the full gateway: one consent token reused, the
 *      sandbox sources in process (NIN, phone), name and date-of-birth matched, the verification
 *      resolved and the passport updated, a fresh Idempotency-Key each (target >= 0.3x of 1 on
 *      the local stores, >= 0.25x on memory stores)
 *   3. the live-passport gate read in process over 100,000 subjects with passports, beside a bare
 *      Map lookup over the same keys (target >= 5,000,000 reads/s)
 *
 * Each family's server runs in a child process on core 0 and the load comes from this process on
 * core 1 (when taskset exists), over keep-alive connections. 1 and 2 alternate over BENCH_ROUNDS
 * rounds (default 3) against one server; each figure is the median of its rounds, and the note
 * gives each round's ratio and the ratio per server CPU-second (read from /proc, which other
 * processes on a shared machine do not move). This file is also the server: `--serve <family>`.
 */
import { spawn, spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, readFileSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { fileURLToPath } from 'node:url';
import { compared, round, versus, type BenchResult } from '../report.ts';

const SELF = fileURLToPath(import.meta.url);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 3);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 32);

type Family = 'local' | 'memory';

async function serve(family: Family): Promise<void> {
  const { areas } = await import('../../actors/index.ts');
  const { noopArea } = await import('../../support/noop-area.ts');
  const { startRegisteredPlatform } = await import('../../support/platform.ts');
  const { port, key } = await startRegisteredPlatform([...areas, noopArea], family);
  console.log(JSON.stringify({ port, key }));
  process.on('SIGTERM', () => process.exit(0)); // lets --cpu-prof write its profile
}

function cpuSeconds(pid: number): number {
  const f = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return (Number(f[11]) + Number(f[12])) / 100; // utime + stime, clock ticks (100/s)
}

const statuses = new Map<number, number>();
/** Idempotency-Keys are never reused across drives (a reused key with another body is refused). */
let seq = 0;

interface Rate {
  rps: number;
  perCpu: number;
  errors: number;
}

async function drive(port: number, key: string, path: string, body: (i: number) => string, seconds: number, pid: number): Promise<Rate> {
  const agent = new Agent({ keepAlive: true, maxSockets: CONNECTIONS });
  let n = 0;
  let errors = 0;
  const one = (i: number) =>
    new Promise<void>((resolve) => {
      const data = body(i);
      const r = request({ host: '127.0.0.1', port, path, method: 'POST', agent, headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(data), 'service-api-key': key, 'idempotency-key': `bench-${process.pid}-${path}-${i}` } }, (res) => {
        res.resume();
        res.on('end', () => {
          if ((res.statusCode ?? 500) >= 300) {
            errors++;
            statuses.set(res.statusCode ?? 0, (statuses.get(res.statusCode ?? 0) ?? 0) + 1);
          }
          resolve();
        });
      });
      r.on('error', () => {
        errors++;
        resolve();
      });
      r.end(data);
    });
  const end = Date.now() + seconds * 1000;
  const cpu0 = cpuSeconds(pid);
  const t0 = process.hrtime.bigint();
  await Promise.all(
    Array.from({ length: CONNECTIONS }, async () => {
      while (Date.now() < end) {
        await one(seq++);
        n++;
      }
    }),
  );
  const secs = Number(process.hrtime.bigint() - t0) / 1e9;
  const cpu = cpuSeconds(pid) - cpu0;
  agent.destroy();
  return { rps: n / secs, perCpu: cpu > 0 ? n / cpu : 0, errors };
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

async function gateReads(): Promise<BenchResult> {
  const { createPlatform, stopPlatform } = await import('../../kernel/index.ts');
  const { ManualClock } = await import('../../runtime/index.ts');
  const { createMemoryStores } = await import('../../stores/index.ts');
  const { area, identityGate, PASSPORT_KIND, passportIdOf } = await import('../../actors/identity/index.ts');
  const clock = new ManualClock();
  const platform = await createPlatform({ areas: [area], stores: createMemoryStores({ now: () => clock.now() }), clock, config: {} });
  const org = 'org_bench';
  const SUBJECTS = 100_000;
  const refs = Array.from({ length: SUBJECTS }, (_, i) => `worker_${i}`);
  for (let i = 0; i < SUBJECTS; i += 1000) {
    await Promise.all(refs.slice(i, i + 1000).map((r) => platform.system.ask(PASSPORT_KIND, passportIdOf(org, r), 'issue', { subject_ref: r, verification_id: `anchor_pro_verification_b${r}`, assurance: 'dal_2', consent_token_id: null, livemode: false, mocked: true }, { org, noReply: true })));
  }
  const gate = identityGate(platform);
  const bare = new Map(refs.map((r) => [r, true]));
  // Probe keys in a fixed pseudo-random order, a tenth of them unknown subjects.
  const probes = Array.from({ length: 1 << 20 }, (_, i) => (i % 10 === 9 ? `stranger_${i}` : refs[(i * 7919) % SUBJECTS]!));
  const time = (fn: (k: string) => boolean): number => {
    let hits = 0;
    let reads = 0;
    const t0 = process.hrtime.bigint();
    const until = t0 + 1_000_000_000n;
    while (process.hrtime.bigint() < until) {
      for (let i = 0; i < probes.length; i++) if (fn(probes[i]!)) hits++;
      reads += probes.length;
    }
    if (hits === 0) throw new Error('no hits');
    return reads / (Number(process.hrtime.bigint() - t0) / 1e9);
  };
  const gateRates: number[] = [];
  const bareRates: number[] = [];
  for (let r = 0; r < ROUNDS; r++) {
    gateRates.push(time((k) => gate.isLive(org, k)));
    bareRates.push(time((k) => bare.get(k) === true));
  }
  await stopPlatform(platform);
  return versus('live-passport gate reads (in process)', median(gateRates), 'reads/s', 'bare Map lookup', median(bareRates), 5_000_000,
    `${SUBJECTS.toLocaleString('en-US')} passports; rounds (gate/bare): ${gateRates.map((g, i) => `${round(g / 1e6, 1)}M/${round(bareRates[i]! / 1e6, 1)}M`).join(', ')}`);
}

/** The no-op and verification rounds against one family's server. */
async function measure(family: Family): Promise<{ noop: Rate[]; verify: Rate[] }> {
  const taskset = existsSync('/usr/bin/taskset');
  const prof = process.env.BENCH_CPU_PROF ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_CPU_PROF}`] : [];
  const child = spawn(taskset ? 'taskset' : process.execPath, [...(taskset ? ['-c', '0', process.execPath] : []), ...prof, '--max-semi-space-size=64', '--import', 'tsx', SELF, '--serve', family], { stdio: ['ignore', 'pipe', 'inherit'] });
  const line = await new Promise<string>((resolve, reject) => {
    let buf = '';
    child.stdout!.on('data', (d: Buffer) => {
      buf += d.toString();
      const nl = buf.indexOf('\n');
      if (nl >= 0) resolve(buf.slice(0, nl));
    });
    child.on('exit', (c) => reject(new Error(`server exited ${c}`)));
  });
  const { port, key } = JSON.parse(line) as { port: number; key: string };
  const base = `http://127.0.0.1:${port}`;
  const headers = { 'content-type': 'application/json', 'service-api-key': key };
  const t = await fetch(`${base}/v1/identity/consent_tokens`, { method: 'POST', headers: { ...headers, 'idempotency-key': `bench-consent-${process.pid}` }, body: JSON.stringify({ subject_ref: 'bench_subject', purpose: 'employment_verification', checks: ['government_identifier', 'name_match', 'date_of_birth_match', 'contactability'], wording_version: 'bench-v1' }) });
  const token = ((await t.json()) as { id: string }).id;
  const verification = () => JSON.stringify({ subject_ref: 'bench_subject', consent_token_id: token, claims: { full_name: 'Adaeze Chioma Okafor', date_of_birth: '1990-01-01', government_identifier: '70123456789', phone: '+2348012345678' } });
  const check = await fetch(`${base}/v1/identity/verifications`, { method: 'POST', headers: { ...headers, 'idempotency-key': `bench-check-${process.pid}` }, body: verification() });
  const first = (await check.json()) as { outcome: string; passport_id: string };
  if (first.outcome !== 'resolved' || !first.passport_id) throw new Error(`bench verification did not resolve: ${JSON.stringify(first)}`);
  const pid = child.pid!;
  const noop: Rate[] = [];
  const verify: Rate[] = [];
  await drive(port, key, '/v1/bench/noops', (i) => `{"name":"warm${i}"}`, 1, pid);
  await drive(port, key, '/v1/identity/verifications', verification, 1, pid);
  for (let r = 0; r < ROUNDS; r++) {
    noop.push(await drive(port, key, '/v1/bench/noops', (i) => `{"name":"noop${i}"}`, SECONDS, pid));
    verify.push(await drive(port, key, '/v1/identity/verifications', verification, SECONDS, pid));
  }
  child.kill('SIGTERM');
  await once(child, 'exit');
  const errors = [...noop, ...verify].reduce((a, x) => a + x.errors, 0);
  if (errors) throw new Error(`${errors} requests answered non-2xx on ${family} stores: ${JSON.stringify([...statuses])}`);
  return { noop, verify };
}

export default async function run(): Promise<BenchResult[]> {
  // The servers on core 0, this process (the load) on core 1, as the gateway bench does.
  if (existsSync('/usr/bin/taskset')) spawnSync('taskset', ['-p', '-c', '1', String(process.pid)], { stdio: 'ignore' });
  const rows: BenchResult[] = [];
  for (const [family, target, label] of [['local', 0.3, ', local stores'], ['memory', 0.25, '']] as const) {
    const { noop, verify } = await measure(family);
    const rounds = noop.map((n, i) => `${round(verify[i]!.rps / n.rps, 2)}x (per CPU-s ${round(verify[i]!.perCpu / n.perCpu, 2)}x)`).join(', ');
    rows.push(
      compared(`identity verification POST (resolved, passport made)${label}`, median(verify.map((v) => v.rps)), 'req/s', 'no-op idempotent POST', median(noop.map((n) => n.rps)), target, `${family} stores; rounds: ${rounds}; ${CONNECTIONS} connections, ${SECONDS}s each`),
      compared(`identity verification POST per server CPU-second (informative)${label}`, median(verify.map((v) => v.perCpu)), 'req/CPU-s', 'no-op idempotent POST', median(noop.map((n) => n.perCpu))),
    );
  }
  rows.push(await gateReads());
  return rows;
}

if (process.argv.includes('--serve')) void serve(process.argv[process.argv.indexOf('--serve') + 1] === 'local' ? 'local' : 'memory');
