/**
 * The store family a test runs over: TEST_STORES=memory (default) or cluster (vitest.config.ts runs
 * the suite once per family). A cluster family gets a random namespace of its own (streams,
 * subjects, keys) and deletes all of it when closed, so parallel test files never meet.
 */
import { randomBytes } from 'node:crypto';
import type { Clock } from '../runtime/index.ts';
import { createClusterStores, createMemoryStores, type ClusterStores, type Stores } from '../stores/index.ts';

export type StoreFamily = 'memory' | 'cluster';

export const storeFamily = (): StoreFamily => (process.env.TEST_STORES === 'cluster' ? 'cluster' : 'memory');

export const natsUrl = () => process.env.NATS_URL ?? '127.0.0.1:4222';
export const redisUrl = () => process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';

/** A fresh namespace: `t` and 12 random hex characters (or `t_<given>_<random>`). */
export const testNamespace = (given?: string) => `t${given ? `_${given}_` : ''}${randomBytes(6).toString('hex')}`;

export async function testStores(clock: Clock, opts: { namespace?: string; family?: StoreFamily; readingRetentionMs?: number } = {}): Promise<Stores> {
  const now = () => clock.now();
  if ((opts.family ?? storeFamily()) === 'memory') return createMemoryStores({ now, readingRetentionMs: opts.readingRetentionMs });
  return clusterTestStores(clock, opts);
}

const open = new Set<ClusterStores>();

/** Cluster stores on a namespace of the test's own; pass one namespace to two calls to share it. */
export async function clusterTestStores(clock: Clock, opts: { namespace?: string; readingRetentionMs?: number; ephemeral?: boolean; directReads?: boolean } = {}): Promise<ClusterStores> {
  const stores = await createClusterStores({
    natsUrl: natsUrl(),
    redisUrl: redisUrl(),
    now: () => clock.now(),
    namespace: opts.namespace ?? testNamespace(),
    readingRetentionMs: opts.readingRetentionMs,
    ephemeral: opts.ephemeral ?? true,
    directReads: opts.directReads,
  });
  const close = stores.close.bind(stores);
  let closing: Promise<void> | undefined;
  stores.close = () => {
    open.delete(stores);
    return (closing ??= close());
  };
  open.add(stores);
  return stores;
}

/**
 * Closes (and so deletes, when ephemeral) every cluster family a test file opened and left open;
 * support/setup.ts runs it after each file, so no namespace outlives its tests.
 */
export async function closeLeftoverStores(): Promise<void> {
  await Promise.all([...open].map((s) => s.close().catch(() => {})));
}
