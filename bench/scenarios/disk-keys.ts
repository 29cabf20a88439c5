/**
 * Disk keys bench (docs/architecture.md "What a write costs"): what a put costs on the local
 * stores' engine by where its key lands. LMDB opened as the local family opens it (overlapping
 * sync, plain msgpack values), one database preloaded with PRELOAD records, then transactions of
 * BATCH puts of a 200-byte value, each put either
 *
 *   1. at a key that appends (a time or a counter first: a feed position, an expiry, an event id,
 *      a list member ordered by time), the baseline, or
 *   2. at a random key (a hash or a client's choice first: an idempotency record, a credential,
 *      a stream whose id is derived from an Idempotency-Key).
 *
 * The first figure is puts per CPU-second of this process (LMDB's commit and sync threads
 * included), the second puts per second of wall time in the same rounds, which adds what the
 * processor does not show: a commit waits for the flush of the one before (overlapping sync), and
 * the pages a random key dirties are written at random places of the file.
 * Medians of BENCH_ROUNDS alternating rounds; informative, no target. They say what a command's
 * puts at random keys cost against those that append, the floor under a keyed create on disk.
 */
import { randomBytes } from 'node:crypto';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { open, type RootDatabaseOptionsWithPath } from 'lmdb';
import { compared, round, type BenchResult } from '../report.ts';
import { tempDir } from '../../support/stores.ts';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const PRELOAD = Number(process.env.BENCH_DISK_PRELOAD ?? 400_000);
const PUTS = Number(process.env.BENCH_DISK_PUTS ?? 60_000);
const BATCH = 64;

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const spread = (xs: number[]) => `${Math.round(Math.min(...xs)).toLocaleString('en-US')} / ${Math.round(median(xs)).toLocaleString('en-US')} / ${Math.round(Math.max(...xs)).toLocaleString('en-US')}`;

export default async function run(): Promise<BenchResult[]> {
  const dir = tempDir('wf-disk-keys-');
  const env = open({ path: join(dir, 'lmdb'), overlappingSync: true, useRecords: false } as RootDatabaseOptionsWithPath);
  const db = env.openDB({ name: 'records' });
  const value = { body: 'x'.repeat(200), n: 12345 };
  let counter = 0;
  const appended = () => `a\u001f${String(counter++).padStart(16, '0')}`;
  const random = () => `r\u001f${randomBytes(16).toString('base64url')}`;
  const write = async (key: () => string, n: number) => {
    const pending: Promise<unknown>[] = [];
    for (let done = 0; done < n; done += BATCH) {
      // two transactions in flight, as the writer has one committing and one gathering
      pending.push(env.transaction(() => {
        for (let i = 0; i < BATCH; i++) db.put(key(), value);
      }));
      if (pending.length > 2) await pending.shift();
    }
    await Promise.all(pending);
    await env.flushed;
  };
  /** Puts per CPU-second and per second of wall time of one round. */
  const rates = async (key: () => string) => {
    const cpu = process.cpuUsage();
    const began = performance.now();
    await write(key, PUTS);
    const used = process.cpuUsage(cpu);
    return { cpu: PUTS / ((used.user + used.system) / 1e6), wall: PUTS / ((performance.now() - began) / 1000) };
  };
  try {
    // both kinds of key preloaded, so each lands in a tree of the same size
    await write(appended, PRELOAD / 2);
    await write(random, PRELOAD / 2);
    const cpu = { appended: [] as number[], random: [] as number[] };
    const wall = { appended: [] as number[], random: [] as number[] };
    for (let r = 0; r < ROUNDS; r++) {
      for (const [kind, key] of [['appended', appended], ['random', random]] as const) {
        const got = await rates(key);
        cpu[kind].push(got.cpu);
        wall[kind].push(got.wall);
      }
    }
    const setup = `LMDB as the local stores open it, ${PRELOAD.toLocaleString('en-US')} records preloaded, ${BATCH} puts of 200 bytes a transaction, ${PUTS.toLocaleString('en-US')} puts a round`;
    const figure = (name: string, unit: string, at: typeof cpu) =>
      compared(name, Math.round(median(at.random)), unit, 'puts at keys that append', Math.round(median(at.appended)), undefined,
        `${setup}; random ${spread(at.random)}, appended ${spread(at.appended)}; rounds ${at.random.map((x, i) => `${round(x / at.appended[i], 2)}x`).join(', ')}`);
    return [
      figure('puts at random keys per CPU-second (informative)', 'puts/CPU-s', cpu),
      figure('puts at random keys per second of wall time (informative)', 'puts/s', wall),
    ];
  } finally {
    await env.close();
    rmSync(dir, { recursive: true, force: true });
  }
}
