/**
 * A list declared anew over records that already exist starts whole (DESIGN "Stores": list indexes
 * are derived from the journal; runtime/index-declarations.ts). Over every store family: records
 * are created under one declaration of the kind's lists, the platform starts again with a
 * declaration that adds a list, and the new list holds every existing record before the first
 * request; a start with an unchanged declaration rebuilds nothing.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterEach, expect, it } from 'vitest';
import { ActorSystem, ManualClock, type AnyActorDef } from '../../runtime/index.ts';
import { declarationPrints } from '../../runtime/index-declarations.ts';
import type { Stores } from '../../stores/index.ts';
import { testStores } from '../../support/stores.ts';
import { Counter, type CounterState } from './counter.ts';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

/** Counter with a list the first declaration did not have. */
const CounterWithTotals: AnyActorDef = {
  ...Counter,
  indexes: (s: CounterState) => [...Counter.indexes!(s), { list: `total:${s.total}`, sortKey: String(s.createdAt) }],
};

let stores: Stores | undefined;
let system: ActorSystem | undefined;
afterEach(async () => {
  await system?.stop();
  await stores?.close();
  system = stores = undefined;
});

async function startWith(def: AnyActorDef, clock: ManualClock, logs: string[]): Promise<ActorSystem> {
  const s = new ActorSystem({ stores: stores!, clock, kinds: [def], log: (m) => logs.push(m) });
  await s.start();
  return s;
}

it('a list newly declared on a kind holds the records created before it, from the first request on; an unchanged declaration rebuilds nothing', async () => {
  const clock = new ManualClock();
  stores = await testStores(clock);
  const logs: string[] = [];
  system = await startWith(Counter, clock, logs);
  const ids = ['ctr_a', 'ctr_b', 'ctr_c'];
  for (const id of ids) await system.ask(Counter, id, 'open', {}, { org: 'org_a' });
  await system.ask(Counter, 'ctr_b', 'add', { n: 2 }, { org: 'org_a' });
  await system.settle();
  await system.stop();
  expect(logs.filter((m) => m.includes('built again'))).toEqual([]);

  system = await startWith(CounterWithTotals, clock, logs);
  expect(logs.filter((m) => m.includes('built again'))).toHaveLength(1);
  expect((await system.listIds(CounterWithTotals, 'org_a', 'total:0', { limit: 10, order: 'asc' })).ids.sort()).toEqual(['ctr_a', 'ctr_c']);
  expect((await system.listIds(CounterWithTotals, 'org_a', 'total:2', { limit: 10, order: 'asc' })).ids).toEqual(['ctr_b']);
  // the lists declared before are as they were
  expect((await system.listIds(CounterWithTotals, 'org_a', 'all', { limit: 10, order: 'asc' })).ids.sort()).toEqual(ids);
  await system.stop();

  system = await startWith(CounterWithTotals, clock, logs);
  expect(logs.filter((m) => m.includes('built again'))).toHaveLength(1);
});

/** Counter whose list `all` is ordered by total, largest first, where it was by creation. */
const CounterByTotal: AnyActorDef = {
  ...Counter,
  indexes: (s: CounterState) => [{ list: 'all', sortKey: String(1_000_000 - s.total).padStart(7, '0') }, { list: `status:${s.status}`, sortKey: String(s.createdAt) }],
};

it('a list whose sort key is declared anew holds each record once, in the new order, resumable after an id; later moves keep it so', async () => {
  const clock = new ManualClock();
  stores = await testStores(clock);
  const logs: string[] = [];
  system = await startWith(Counter, clock, logs);
  for (const [id, n] of [['ctr_a', 1], ['ctr_b', 3], ['ctr_c', 2]] as const) {
    await system.ask(Counter, id, 'open', {}, { org: 'org_a' });
    await clock.advance(1_000);
    await system.ask(Counter, id, 'add', { n }, { org: 'org_a' });
  }
  await system.settle();
  expect((await system.listIds(Counter, 'org_a', 'all', { limit: 10, order: 'asc' })).ids).toEqual(['ctr_a', 'ctr_b', 'ctr_c']);
  await system.stop();

  system = await startWith(CounterByTotal, clock, logs);
  expect(logs.filter((m) => m.includes('built again'))).toHaveLength(1);
  const all = async (after?: string) => (await system!.listIds(CounterByTotal, 'org_a', 'all', { after, limit: 10, order: 'asc' })).ids;
  expect(await all()).toEqual(['ctr_b', 'ctr_c', 'ctr_a']);
  expect(await all('ctr_c')).toEqual(['ctr_a']);
  await system.ask(CounterByTotal, 'ctr_a', 'add', { n: 5 }, { org: 'org_a' });
  await system.settle();
  expect(await all()).toEqual(['ctr_a', 'ctr_b', 'ctr_c']);
  expect(await all('ctr_a')).toEqual(['ctr_b', 'ctr_c']);
  expect((await system.listIds(CounterByTotal, 'org_a', 'status:open', { limit: 10, order: 'asc' })).ids).toEqual(['ctr_a', 'ctr_b', 'ctr_c']);
});

it('a declaration prints alike read through another loader (white space and a bundler\'s renamed identifiers), and otherwise when its lists change', () => {
  const a = { ...Counter, indexes: (s: CounterState) => [{ list: 'all', sortKey: String(s.createdAt) }] } as AnyActorDef;
  // eslint-disable-next-line prettier/prettier
  const b = { ...Counter, indexes: (s2: CounterState) => [ { list: 'all',   sortKey: String(s2.createdAt) } ] } as AnyActorDef;
  const c = { ...Counter, indexes: (s: CounterState) => [{ list: 'every', sortKey: String(s.createdAt) }] } as AnyActorDef;
  expect(declarationPrints([a])).toEqual(declarationPrints([b]));
  expect(declarationPrints([a])).not.toEqual(declarationPrints([c]));
});

it('every kind of every area prints alike under npm start (one esbuild bundle) and under tsx, so a directory written by one rebuilds no list when the other starts on it', async () => {
  const { build } = await import('esbuild');
  // beside node_modules, so the bundle's packages resolve as npm start's do (scripts/start.mjs)
  const cache = join(ROOT, 'node_modules', '.cache');
  mkdirSync(cache, { recursive: true });
  const dir = mkdtempSync(join(cache, 'prints-'));
  const printAll = (from: string) => `import { areas } from '${from}/actors/index.ts'; import { declarationPrints } from '${from}/runtime/index-declarations.ts'; console.log(JSON.stringify(declarationPrints(areas.flatMap((a) => a.kinds))));`;
  try {
    // the recipe of scripts/start.mjs: one ESM module for Node 20, every package left to Node
    await build({ stdin: { contents: printAll('.'), resolveDir: ROOT, loader: 'ts' }, absWorkingDir: ROOT, bundle: true, platform: 'node', format: 'esm', target: 'node20', packages: 'external', outfile: join(dir, 'prints.mjs'), logLevel: 'error', plugins: [fileUrls] });
    const run = (args: string[]) => JSON.parse(execFileSync(process.execPath, args, { cwd: ROOT, encoding: 'utf8', maxBuffer: 1 << 24 }).trim().split('\n').at(-1)!) as Record<string, string>;
    const bundled = run([join(dir, 'prints.mjs')]);
    const tsx = run(['--import', 'tsx', '--input-type=module', '-e', printAll(ROOT)]);
    expect(Object.keys(bundled).length).toBeGreaterThan(40);
    expect(tsx).toEqual(bundled);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}, 60_000);

/** As scripts/start.mjs: a source that finds its files through import.meta.url is given its own file's URL. */
const fileUrls = {
  name: 'file-urls',
  setup(b: { onLoad(o: { filter: RegExp }, f: (a: { path: string }) => { contents: string; loader: 'ts' }): void }) {
    b.onLoad({ filter: /\.ts$/ }, (a) => ({ contents: readFileSync(a.path, 'utf8').replaceAll('import.meta.url', JSON.stringify(pathToFileURL(a.path).href)), loader: 'ts' }));
  },
};
