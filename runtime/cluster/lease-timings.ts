/**
 * Every limit of the shard leases in one place (DESIGN "Sharding"; docs/cluster.md "Variables":
 * fixed in code). The lease lifetime bounds failover after a node dies; riding out a JetStream
 * election does not depend on it (leases.ts), so it stays short.
 */
export interface LeaseTimings {
  /** Lease lifetime after a renewal. */
  ttlMs: number;
  renewMs: number;
  /** How often placement is re-evaluated (also after any change seen on the bucket). */
  tickMs: number;
  /** Allowed clock difference between nodes. */
  marginMs: number;
  /** Wait after joining before taking shards, to hear of nodes starting at the same moment. */
  joinMs: number;
  /** How often unowned-looking shards are re-read from the stream leader and the watch is checked (default 4 ticks). */
  sweepMs?: number;
}

export const DEFAULT_TIMINGS: LeaseTimings = { ttlMs: 3000, renewMs: 750, tickMs: 250, marginMs: 500, joinMs: 1000, sweepMs: 1000 };

/** Compare-and-set attempts on one shard in one pass, each after a fresh read. */
export const CAS_ATTEMPTS = 3;

/** How long the first heartbeat may wait for a bucket just created (its stream electing a leader). */
export const START_WAIT_MS = 30_000;

/**
 * How long one write to the bucket may take before it counts as failed: two renewal periods, so a
 * lost write is retried while the lease it renews still has time left. A write that timed out may
 * still land; the next compare-and-set then meets its revision and reads it back as this node's.
 */
export const writeTimeoutMs = (t: LeaseTimings): number => 2 * t.renewMs;
