/**
 * Credentials bench (spec 2.5, 3 Competence claim decay), on the embedded stores.
 *
 * 1. Eligibility reads/s through the face (credentialEligibility(platform).check) for a subject
 *    holding 20 claims against an occupation (ng-7412) requiring 5 claim codes and a licence; target
 *    >= 1,000,000/s. Baseline in the same run: the identity gate's live-passport read (two map
 *    lookups), the other gate served from memory. Rounds of 1 s; median with min..max.
 * 2. Decay of N claims (default 1,000,000; CREDENTIALS_BENCH_CLAIMS overrides) issued through the
 *    claim actor (20 per subject) with evidence dates spread over each class's lifetime, then the
 *    manual clock advanced one year in twelve steps: every reminder fires at its own boundary and
 *    each step commits its event. Run in a child process with its own heap. Reported: set-up rate, decay time and steps/s, and resident memory per
 *    claim (RSS after a forced GC, less the RSS before the claims; it includes the memory journal,
 *    snapshots, list indexes, reminders and the eligibility model: everything an embedded node holds).
 *    Claim actors are not all held: the bench passivates them (snapshot kept) after every set-up batch
 *    and after each month of the year, so memory per claim is the stores' and the model's, not a cell each.
 */
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { absolute, round, versus, type BenchResult } from '../report.ts';
import { ManualClock } from '../../runtime/index.ts';
import { createPlatform, stopPlatform, type Platform } from '../../kernel/index.ts';
import { createMemoryStores } from '../../stores/index.ts';
import { area as identity, identityGate } from '../../actors/identity/index.ts';
import { area as credentialsArea, Claim, createClaim, credentialEligibility, credentials, Licence } from '../../actors/credentials/index.ts';

const N = Number(process.env.CREDENTIALS_BENCH_CLAIMS ?? 1_000_000);
const ORG = 'org_bench_credentials';
const DAY = 86_400_000;
/** Heap of the decay's child process (CREDENTIALS_BENCH_HEAP_MB overrides). */
const DECAY_HEAP_MB = Number(process.env.CREDENTIALS_BENCH_HEAP_MB ?? 12_288);
/** Twenty claims per subject, as in the eligibility read. */
const SUBJECTS = Math.max(1, Math.floor(N / 20));
/** Claim actors touched since the last passivation sweep, at most (set-up batches, decay steps of a month). */
const PASSIVATE_EVERY = 50_000;
const CLASSES = ['e1_claimed', 'e2_attested', 'e3_documented', 'e5_demonstrated'] as const;

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;
const rss = () => {
  gc();
  gc();
  return process.memoryUsage().rss;
};
const heap = () => process.memoryUsage().heapUsed;

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

/** Calls per second of `f`, in rounds of about `ms`; the median and the spread of the rounds. */
function rate(f: () => unknown, rounds = 7, ms = 1000): { median: number; min: number; max: number } {
  const rates: number[] = [];
  let sink = 0;
  for (let r = 0; r < rounds; r++) {
    let n = 0;
    const t0 = performance.now();
    let t = t0;
    while (t - t0 < ms) {
      for (let i = 0; i < 10_000; i++) if (f()) sink++;
      n += 10_000;
      t = performance.now();
    }
    rates.push(n / ((t - t0) / 1000));
  }
  if (sink < 0) console.log(sink);
  return { median: median(rates), min: Math.min(...rates), max: Math.max(...rates) };
}

async function eligibilityReads(platform: Platform): Promise<BenchResult[]> {
  const svc = credentials(platform);
  const caller = { org: ORG, livemode: false, principal: 'api_key_bench' };
  const subject = 'bench-electrician';
  const required = ['ng-7412.machine_wiring', 'ng-7412.safe_isolation', 'ng-7412.fault_finding', 'ng-7412.inspection_testing', 'ng-7412.generator_maintenance'];
  const others = ['ng-7411.final_circuits', 'ng-7411.safe_isolation', 'ng-7411.inspection_testing', 'ng-7411.earthing_bonding', 'ng-7413.overhead_lines', 'ng-7413.safe_isolation', 'ng-7413.work_at_height', 'ng-7126.pipework', 'ng-7126.drainage', 'ng-general.ssce'];
  let k = 0;
  const today = new Date(platform.clock.now()).toISOString().slice(0, 10);
  const claim = (code: string, evidence_class: (typeof CLASSES)[number]) =>
    createClaim(platform, { ...caller, idempotencyKey: `bench-${++k}` }, { subject_ref: subject, claim_code: code, level: 3, evidence_class, evidence_date: today });
  for (const c of required) await claim(c, 'e3_documented');
  for (const c of required) await claim(c, 'e5_demonstrated');
  for (const c of others) await claim(c, 'e2_attested');
  await platform.system.ask(Licence, 'proof_licence_benchelectrician0000000001', 'record', {
    verification_id: 'proof_academic_verification_bench', subject_ref: subject, occupation_code: 'ng-7412', issuer_id: 'proof_issuer_nemsa', issuer_name: 'NEMSA',
    licence_kind: 'nemsa_competency_certificate', valid_from: today, expires_at: '2099-01-01', livemode: false, mocked: true,
  }, { org: ORG });
  const gate = credentialEligibility(platform);
  const q = { occupation_code: 'ng-7412' };
  const answer = gate.check(ORG, subject, q);
  if (!answer.eligible || answer.claims.length !== 5 || svc.eligibility.size.claims !== 20) throw new Error(`bench: eligibility set-up is wrong: ${JSON.stringify(answer)}`);
  const ineligible = gate.check(ORG, 'nobody', q);
  if (ineligible.eligible || ineligible.reasons.length !== 6) throw new Error('bench: an empty subject must fail on 5 claims and the licence');

  const idGate = identityGate(platform);
  const base = rate(() => idGate.isLive(ORG, subject));
  const eligible = rate(() => gate.check(ORG, subject, q).eligible);
  const refused = rate(() => gate.check(ORG, 'nobody', q).eligible);
  const spread = (r: { min: number; max: number }) => `rounds ${round(r.min / 1e6, 2)}..${round(r.max / 1e6, 2)} M/s`;
  return [
    versus('eligibility reads (20 claims, 5 required codes + licence; eligible)', round(eligible.median, 0), 'reads/s', 'identity gate isLive', round(base.median, 0), 1_000_000, `${spread(eligible)}; baseline ${spread(base)}`),
    absolute('eligibility reads (no claims, no licence; 6 reasons)', round(refused.median, 0), 'reads/s', undefined, true, spread(refused)),
  ];
}

async function decay(): Promise<BenchResult[]> {
  const clock = new ManualClock('2026-06-01T00:00:00Z');
  const before = rss();
  const heapBefore = heap();
  const platform = await createPlatform({ areas: [identity, credentialsArea], stores: createMemoryStores({ now: () => clock.now() }), clock, config: {} });
  const results: BenchResult[] = [];
  try {
    const d = credentials(platform).policy.pack.decay;
    const codes = [...credentials(platform).policy.claimCodes.keys()];
    const opts = { org: ORG, principal: 'system', lane: 'system' as const, noReply: true };
    let t = performance.now();
    const WINDOW = 5000;
    const inflight: Promise<unknown>[] = [];
    for (let i = 0; i < N; i++) {
      const cls = CLASSES[i % CLASSES.length];
      // evidence dates spread over the lifetime of the class, so boundaries fall all through the year
      const ageDays = (i * 7919) % Math.floor(d.lifetime_months[cls] * 30.4);
      const evidence = new Date(clock.now() - ageDays * DAY).toISOString().slice(0, 10);
      inflight.push(platform.system.ask(Claim, `proof_academic_claim_bench${i.toString(36).padStart(12, '0')}`, 'issue', {
        subject_ref: `w${i % SUBJECTS}`, claim_code: codes[i % codes.length], framework_version: '2026.11.1', level: 2, evidence_class: cls, evidence_date: evidence,
        issuing_method: null, decay_function: d.function, lifetime_months: d.lifetime_months[cls], ageing_fraction: d.ageing_at, stale_fraction: d.stale_at,
        verification_id: null, supersedes: null, livemode: false, mocked: false,
      }, opts));
      if (inflight.length >= WINDOW) await Promise.all(inflight.splice(0));
      if (i % PASSIVATE_EVERY === PASSIVATE_EVERY - 1) {
        await Promise.all(inflight.splice(0));
        await platform.system.passivateIdle(0);
      }
    }
    await Promise.all(inflight.splice(0));
    await platform.system.settle();
    const setupS = (performance.now() - t) / 1000;
    await platform.system.passivateIdle(0);
    const held = rss();
    const heldHeap = heap();
    results.push(absolute(`issue ${N.toLocaleString('en-US')} claims (set-up)`, round(N / setupS, 0), 'claims/s', undefined, true, `${round(setupS, 1)} s`));
    results.push(absolute('resident memory per claim (issued)', round((held - before) / N, 0), 'bytes', undefined, false, `heap ${round((heldHeap - heapBefore) / N, 0)} B/claim; RSS ${round(held / 2 ** 20, 0)} MiB after GC; journal, snapshot, 2 list entries, 1 reminder, eligibility facts`));

    const model = credentials(platform).eligibility;
    const journalBefore = await countSteps(platform);
    t = performance.now();
    // One year in twelve steps of the manual clock (every reminder still fires at its own instant),
    // passivating the claims each step woke, so the cells held stay bounded.
    for (let m = 0; m < 12; m++) {
      await clock.advance(m < 11 ? 30 * DAY : 35 * DAY);
      await platform.system.settle();
      await platform.system.passivateIdle(0);
    }
    const decayS = (performance.now() - t) / 1000;
    const steps = (await countSteps(platform)) - journalBefore;
    await platform.system.passivateIdle(0);
    const after = rss();
    const afterHeap = heap();
    results.push(absolute(`decay of ${N.toLocaleString('en-US')} claims advanced one year (manual clock)`, round(decayS, 1), 's', undefined, false, `${steps.toLocaleString('en-US')} decay events, ${round(steps / decayS, 0).toLocaleString()} steps/s`));
    results.push(absolute('resident memory per claim (after a year of decay)', round((after - before) / N, 0), 'bytes', undefined, false, `heap ${round((afterHeap - heapBefore) / N, 0)} B/claim; RSS ${round(after / 2 ** 20, 0)} MiB after GC; model holds ${model.size.claims.toLocaleString('en-US')} claims`));
  } finally {
    await stopPlatform(platform);
  }
  return results;
}

/** Decay events committed so far (aged, went_stale, lapsed), counted from the feed. */
async function countSteps(platform: Platform): Promise<number> {
  let n = 0;
  let after = 0;
  for (;;) {
    const page = await platform.stores.journal.readFeed(after, 100_000);
    if (page.length === 0) return n;
    for (const e of page) if (e.event.type === 'claim.aged' || e.event.type === 'claim.went_stale' || e.event.type === 'claim.lapsed') n++;
    after = page[page.length - 1].position;
  }
}

/**
 * The decay runs in a child process of its own, with a heap large enough for the embedded stores of
 * N claims (the journal, snapshots, list entries and reminders live in this process when embedded;
 * clustered they live in JetStream and Redis), so its memory figures are its own.
 */
function decayInChild(): BenchResult[] {
  const r = spawnSync(process.execPath, [`--max-old-space-size=${DECAY_HEAP_MB}`, '--max-semi-space-size=64', '--import', 'tsx', fileURLToPath(import.meta.url)], {
    env: { ...process.env, CREDENTIALS_DECAY_CHILD: '1' },
    encoding: 'utf8',
    maxBuffer: 64 * 2 ** 20,
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const line = r.stdout?.split('\n').find((l) => l.startsWith('RESULTS '));
  if (r.status !== 0 || !line) throw new Error(`credentials decay child failed (status ${r.status})`);
  return JSON.parse(line.slice('RESULTS '.length)) as BenchResult[];
}

export default async function credentialsBench(): Promise<BenchResult[]> {
  const clock = new ManualClock('2026-06-01T09:00:00Z');
  const platform = await createPlatform({ areas: [identity, credentialsArea], stores: createMemoryStores({ now: () => clock.now() }), clock, config: {} });
  let reads: BenchResult[];
  try {
    reads = await eligibilityReads(platform);
  } finally {
    await stopPlatform(platform);
  }
  return [...reads, ...decayInChild()];
}

if (process.env.CREDENTIALS_DECAY_CHILD === '1') {
  decay().then(
    (r) => {
      process.stdout.write(`RESULTS ${JSON.stringify(r)}\n`);
      process.exit(0);
    },
    (e) => {
      console.error(e);
      process.exit(1);
    },
  );
}
