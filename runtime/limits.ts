/** Every limit of the runtime in one place (STYLE: "put a limit on everything"). */
export interface Limits {
  /** User-lane capacity of one mailbox; a full lane answers 503 overloaded (retryable). */
  mailboxCapacity: number;
  /** System-lane capacity (reminders, reactions); beyond it the sender retries later. */
  systemLaneCapacity: number;
  /** Commands decided per turn before committing and yielding to the event loop. */
  batchSize: number;
  /** Commands decided per drain pass over the ready queue before committing and yielding. */
  drainBudget: number;
  /** Snapshot an actor after this many events since its last snapshot. */
  snapshotEvery: number;
  /** Active actors kept in memory; above it the idle ones are passivated, oldest first. */
  maxActive: number;
  /** An actor idle this long (runtime clock) is passivated by the sweep. */
  idleMs: number;
  /** How often the passivation sweep runs (wall time, volatile timer). */
  sweepEveryMs: number;
  /** Dedupe ids remembered per actor (reactions, reminders, retries). */
  dedupeMemory: number;
  reminderBatch: number;
  /** How long a node holds a claimed reminder before another may fire it. */
  reminderLeaseMs: number;
  /**
   * Delay before a reminder whose command failed retryably fires again (runtime clock), doubled
   * for each failure in a row on this node up to reminderRetryMaxMs: short, so a reminder that met
   * a store's election fires soon after it, and growing, so one whose target stays down costs
   * little.
   */
  reminderRetryMs: number;
  reminderRetryMaxMs: number;
  /** Longest wait between reminder polls with the system clock (other nodes may add some). */
  reminderPollMs: number;
  /** How often a node looks whether the stores lost what they derived from the journal (wall time; derived-watch.ts). */
  derivedCheckMs: number;
  reactionBatch: number;
  reactionMaxAttempts: number;
  /** First retry delay of a failed reaction (wall time, doubled per attempt, capped). */
  reactionBackoffMs: number;
  reactionBackoffMaxMs: number;
  /** First wait of a global feed reader (reactions, delivery) after a store fault, doubled per fault, capped (wall time). */
  feedRetryMs: number;
  feedRetryMaxMs: number;
  /**
   * Cluster: one node at a time reads a global feed, the holder of a lease in the key-value store
   * (expiring on the stores' clock) renewed by compare-and-set; a dead holder's lapses after this.
   */
  feedLeaseMs: number;
  /** How often the holder renews that lease and the other nodes try to take it (wall time). */
  feedLeaseRenewMs: number;
}

export const DEFAULT_LIMITS: Limits = {
  mailboxCapacity: 16_384,
  systemLaneCapacity: 65_536,
  batchSize: 512,
  drainBudget: 16_384,
  snapshotEvery: 100,
  maxActive: 500_000,
  idleMs: 15 * 60_000,
  sweepEveryMs: 30_000,
  dedupeMemory: 1_024,
  reminderBatch: 256,
  reminderLeaseMs: 30_000,
  reminderRetryMs: 1_000,
  reminderRetryMaxMs: 60_000,
  reminderPollMs: 1_000,
  derivedCheckMs: 2_000,
  reactionBatch: 256,
  reactionMaxAttempts: 12,
  reactionBackoffMs: 5,
  reactionBackoffMaxMs: 2_000,
  feedRetryMs: 250,
  feedRetryMaxMs: 2_000,
  feedLeaseMs: 15_000,
  feedLeaseRenewMs: 5_000,
};
