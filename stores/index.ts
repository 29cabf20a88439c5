/** Public face of stores/: the interfaces and the factories. Implementations stay private. */
import { createClusterStores } from './cluster/index.ts';
import { createMemoryStores } from './memory/index.ts';
import type { Now, Stores } from './types.ts';

export type * from './types.ts';
export { VersionConflictError } from './types.ts';
export { createMemoryStores, type MemoryStoreOptions } from './memory/index.ts';
export { createClusterStores, type ClusterStoreOptions, type ClusterStores } from './cluster/index.ts';

/**
 * The family chosen at start (DESIGN "Sharding"): cluster when NATS_URL and REDIS_URL are both set,
 * embedded memory stores otherwise. STORE_NAMESPACE prefixes every stream and key (default `wf`).
 */
export async function createStores(env: Readonly<Record<string, string | undefined>>, now: Now): Promise<Stores> {
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
    });
  }
  return createMemoryStores({ now, readingRetentionMs: retention });
}
