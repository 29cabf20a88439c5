/**
 * The store family a test runs over: TEST_STORES=memory (default), local or cluster
 * (vitest.config.ts runs the suite once per family). A local family gets a temporary data
 * directory of its own, removed when closed; a cluster family gets a random namespace of its own
 * (streams, subjects, keys) and deletes all of it when closed, so parallel test files never meet.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Clock } from '../runtime/index.ts';
import { createClusterStores, createLocalStores, dropNamespace, createMemoryStores, type ClusterStores, type LocalStores, type Stores } from '../stores/index.ts';

export type StoreFamily = 'memory' | 'local' | 'cluster';

export const storeFamily = (): StoreFamily => {
  const f = process.env.TEST_STORES;
  return f === 'cluster' || f === 'local' ? f : 'memory';
};

/** A new empty directory under the system's temporary directory. */
export const tempDir = (name = 'wf-test-') => mkdtempSync(join(tmpdir(), name));

export const natsUrl = () => process.env.NATS_URL ?? '127.0.0.1:4222';
export const redisUrl = () => process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';

/** A fresh namespace: `t` and 12 random hex characters (or `t_<given>_<random>`). */
export const testNamespace = (given?: string) => `t${given ? `_${given}_` : ''}${randomBytes(6).toString('hex')}`;

export async function testStores(clock: Clock, opts: { namespace?: string; family?: StoreFamily; readingRetentionMs?: number } = {}): Promise<Stores> {
  const now = () => clock.now();
  const family = opts.family ?? storeFamily();
  if (family === 'memory') return createMemoryStores({ now, readingRetentionMs: opts.readingRetentionMs });
  if (family === 'local') return localTestStores(clock, opts);
  return clusterTestStores(clock, opts);
}

const open = new Set<Stores>();

/**
 * Local stores in `dir`, or in a temporary directory removed when they close (`keep` leaves it,
 * for a test that opens the same directory again, as a restart does).
 */
export function localTestStores(clock: Clock, opts: { dir?: string; keep?: boolean; readingRetentionMs?: number } = {}): LocalStores {
  const dir = opts.dir ?? tempDir();
  const stores = createLocalStores({ dir, now: () => clock.now(), readingRetentionMs: opts.readingRetentionMs });
  const close = stores.close.bind(stores);
  let closing: Promise<void> | undefined;
  stores.close = () => {
    open.delete(stores);
    return (closing ??= close().then(() => {
      if (!opts.keep && !opts.dir) rmSync(dir, { recursive: true, force: true });
    }));
  };
  open.add(stores);
  return stores;
}

/** Cluster stores of this process open on each namespace (clusterTestStores). */
const users = new Map<string, number>();

/**
 * Cluster stores on a namespace of the test's own; pass one namespace to two calls to share it.
 * An ephemeral namespace is deleted when the last stores of this process on it close, so a test
 * that closes one member first does not pull the streams from under the other.
 */
export async function clusterTestStores(clock: Clock, opts: { namespace?: string; readingRetentionMs?: number; ephemeral?: boolean; directReads?: boolean } = {}): Promise<ClusterStores> {
  const namespace = opts.namespace ?? testNamespace();
  const stores = await createClusterStores({
    natsUrl: natsUrl(),
    redisUrl: redisUrl(),
    now: () => clock.now(),
    namespace,
    readingRetentionMs: opts.readingRetentionMs,
    ephemeral: false,
    directReads: opts.directReads,
  });
  users.set(namespace, (users.get(namespace) ?? 0) + 1);
  const close = stores.close.bind(stores);
  let closing: Promise<void> | undefined;
  stores.close = () => {
    open.delete(stores);
    return (closing ??= (async () => {
      const left = (users.get(namespace) ?? 1) - 1;
      if (left > 0) users.set(namespace, left);
      else users.delete(namespace);
      if (left === 0 && (opts.ephemeral ?? true)) await dropNamespace(stores).catch(() => {});
      await close();
    })());
  };
  open.add(stores);
  return stores;
}

/**
 * Closes (and so deletes, when ephemeral or temporary) every family a test file opened and left open;
 * support/setup.ts runs it after each file, so no namespace outlives its tests.
 */
export async function closeLeftoverStores(): Promise<void> {
  await Promise.all([...open].map((s) => s.close().catch(() => {})));
}
