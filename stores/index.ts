/** Public face of stores/: the interfaces and the factories. Implementations stay private. */
import { createClusterStores, type StoreLog } from './cluster/index.ts';
import { createLocalStores } from './local/index.ts';
import { createMemoryStores } from './memory/index.ts';
import { StoreSetupError, type Now, type Stores } from './types.ts';

export type * from './types.ts';
export { firstAfter, StoreSetupError, StoreUnavailableError, VersionConflictError } from './types.ts';
export { isStoreFault } from './faults.ts';
export { packTree } from './cluster/codec.ts';
export { createMemoryStores, type MemoryStoreOptions } from './memory/index.ts';
export { createLocalStores, DataDirectoryError, DATA_FORMAT, READ_MODELS_FILE, type LocalStoreOptions, type LocalStores, type LocalDatabaseName } from './local/index.ts';
export { createClusterStores, dropNamespace, type ClusterStoreOptions, type ClusterStores } from './cluster/index.ts';

/** Where `npm start` keeps its records when DATA_DIR is not set. */
export const DEFAULT_DATA_DIR = './data';

/**
 * The family chosen at start (DESIGN "Stores"): cluster when NATS_URL and REDIS_URL are both set;
 * otherwise memory when STORE=memory, and local (LMDB in DATA_DIR, default ./data) by default.
 * STORE_NAMESPACE prefixes every cluster stream and key (default `wf`).
 */
export async function createStores(env: Readonly<Record<string, string | undefined>>, now: Now, log?: StoreLog): Promise<Stores> {
  const retention = env.READING_RETENTION_MS ? Number(env.READING_RETENTION_MS) : undefined;
  if (env.NATS_URL && env.REDIS_URL) {
    return createClusterStores({
      natsUrl: env.NATS_URL,
      redisUrl: env.REDIS_URL,
      now,
      namespace: env.STORE_NAMESPACE || undefined,
      replicas: env.NATS_REPLICAS ? Number(env.NATS_REPLICAS) : undefined,
      readingRetentionMs: retention,
      name: env.NODE_ID ? `platform-${env.NODE_ID}` : undefined,
      log,
    });
  }
  const store = env.STORE || 'local';
  if (store === 'memory') return createMemoryStores({ now, readingRetentionMs: retention });
  if (store !== 'local') throw new StoreSetupError(`STORE must be local or memory, not ${JSON.stringify(env.STORE)} (the cluster is chosen by NATS_URL and REDIS_URL)`);
  return createLocalStores({ dir: env.DATA_DIR || DEFAULT_DATA_DIR, now, readingRetentionMs: retention });
}
