/**
 * Runtime bench (DESIGN "The runtime"). In one process and one run:
 * - baseline: the same state update applied through a plain async function, awaited per command;
 * - commands/s through one hot actor (asks in waves of WAVE concurrent callers);
 * - commands/s spread over 100,000 actors;
 * - activations/s from memory snapshots (a new system over the same stores reads every actor).
 * The whole process, garbage collector threads included, is pinned to one core (taskset).
 */
import { spawnSync } from 'node:child_process';
import { ActorSystem, ManualClock, defineActor } from '../../runtime/index.ts';
import { createMemoryStores } from '../../stores/index.ts';
import { round, versus, type BenchResult } from '../report.ts';

interface S {
  total: number;
  count: number;
}
type E = { type: 'added'; n: number } | { type: 'opened' };

const evolve = (s: S, e: E): S => (e.type === 'added' ? { total: s.total + e.n, count: s.count + 1 } : s);
const decideAdd = (_s: S, cmd: { n: number }): E[] => [{ type: 'added', n: cmd.n }];

const Acc = defineActor({
  kind: 'bench_acc',
  prefix: 'acc_',
  creates: ['open'],
  snapshotEvery: 1_000_000,
  initial: (): S => ({ total: 0, count: 0 }),
  decide: { open: (_s: S, _cmd: unknown): E[] => [{ type: 'opened' }], add: decideAdd },
  evolve,
  view: (s: S) => s,
});

const HOT = 1_000_000;
const ACTORS = 100_000;
/** Other actors used to warm each measured path up first (as the hot actor is warmed up). */
const WARM_ACTORS = 20_000;
const SPREAD = 1_000_000;
const WAVE = 8_192;
const ORG = 'org_bench';

async function baseline(n: number): Promise<Rate> {
  let state: S = { total: 0, count: 0 };
  const apply = async (s: S, cmd: { n: number }) => {
    let next = s;
    for (const e of decideAdd(s, cmd)) next = evolve(next, e);
    return next;
  };
  const rate = await timed(n, async () => {
    for (let i = 0; i < n; i++) state = await apply(state, { n: i });
  });
  if (state.count < n) throw new Error('baseline lost updates');
  return rate;
}

interface Rate {
  wall: number;
  /** Per second of this process's CPU time: steadier than wall time on a shared machine. */
  cpu: number;
}

async function timed(total: number, body: () => Promise<void>): Promise<Rate> {
  const c0 = process.cpuUsage();
  const t0 = performance.now();
  await body();
  const c = process.cpuUsage(c0);
  return { wall: total / ((performance.now() - t0) / 1000), cpu: total / ((c.user + c.system) / 1e6) };
}

function waves(total: number, send: (i: number) => Promise<unknown>): Promise<Rate> {
  return timed(total, async () => {
    for (let i = 0; i < total; i += WAVE) {
      const batch: Promise<unknown>[] = [];
      for (let j = i; j < Math.min(total, i + WAVE); j++) batch.push(send(j));
      await Promise.all(batch);
    }
  });
}

/** A fresh system over fresh memory stores: each figure is measured without another's heap. */
async function boot(clock: ManualClock) {
  const stores = createMemoryStores({ now: () => clock.now() });
  const system = new ActorSystem({ stores, clock, kinds: [Acc], limits: { mailboxCapacity: WAVE * 2 } });
  await system.start();
  return { stores, system };
}

async function hotActor(clock: ManualClock): Promise<Rate> {
  const { system } = await boot(clock);
  await system.ask(Acc, 'acc_hot', 'open', {}, { org: ORG });
  await waves(100_000, (i) => system.ask(Acc, 'acc_hot', 'add', { n: i }, { org: ORG })); // warm-up
  const rate = await waves(HOT, (i) => system.ask(Acc, 'acc_hot', 'add', { n: i }, { org: ORG }));
  await system.stop();
  return rate;
}

export default async function run(): Promise<BenchResult[]> {
  // The targets are for one core: pin every thread of this process (the GC's included) to core 0.
  const pinned = spawnSync('taskset', ['-a', '-p', '-c', '0', String(process.pid)], { stdio: 'ignore' }).status === 0;
  const clock = new ManualClock();
  await baseline(200_000); // warm-up
  const base = await baseline(HOT);

  const hot = await hotActor(clock);

  const { stores, system } = await boot(clock);
  const ids = Array.from({ length: ACTORS }, (_, i) => `acc_${i}`);
  const warm = Array.from({ length: WARM_ACTORS }, (_, i) => `acc_warm_${i}`);
  await waves(ACTORS, (i) => system.ask(Acc, ids[i], 'open', {}, { org: ORG }));
  await waves(WARM_ACTORS, (i) => system.ask(Acc, warm[i], 'open', {}, { org: ORG }));
  await waves(WARM_ACTORS * 4, (i) => system.ask(Acc, warm[i % WARM_ACTORS], 'add', { n: 1 }, { org: ORG })); // warm-up
  const spread = await waves(SPREAD, (i) => system.ask(Acc, ids[i % ACTORS], 'add', { n: 1 }, { org: ORG }));

  await system.stop(); // flushes a snapshot of every actor
  const fresh = new ActorSystem({ stores, clock, kinds: [Acc] });
  await fresh.start();
  await waves(WARM_ACTORS, (j) => fresh.state(Acc, warm[j], ORG)); // warm-up
  const activations = await waves(ACTORS, (j) => fresh.state(Acc, ids[j], ORG));
  const check = await fresh.state<S>(Acc, ids[7], ORG);
  if (check.count !== SPREAD / ACTORS) throw new Error(`activation rebuilt a wrong state: ${JSON.stringify(check)}`);
  await fresh.stop();

  const rows: BenchResult[] = [];
  for (const [basis, pick] of [['wall', (r: Rate) => r.wall], ['per CPU-second', (r: Rate) => r.cpu]] as const) {
    const note = `${pinned ? 'all threads pinned to core 0' : 'NOT pinned (taskset unavailable)'}, memory stores; ${basis}`;
    rows.push(
      versus(`hot actor (${basis})`, round(pick(hot)), 'cmd/s', 'plain async function', round(pick(base)), 500_000, note),
      versus(`spread over 100,000 actors (${basis})`, round(pick(spread)), 'cmd/s', 'plain async function', round(pick(base)), 300_000, note),
      versus(`activations from memory snapshots (${basis})`, round(pick(activations)), 'act/s', 'plain async function', round(pick(base)), 100_000, note),
    );
  }
  return rows;
}
