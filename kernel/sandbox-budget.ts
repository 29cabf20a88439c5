/**
 * The record cap across the nodes of a cluster (docs/gaps.md#sandbox-caps): a node admits a
 * sandbox request's creates only against slots of the organisation's budget it took from a mark
 * shared by every node, so creates at once on several nodes cannot together pass the cap as they
 * could if each node went by its own count (which learns the others' records only from the feed).
 *
 * The mark (`sandbox:mark:<org>` in the cluster's key-value store, which keeps it in JetStream
 * beside the journal, never in Redis alone: kv-routes.ts) is how many records the organisation may
 * have once every slot taken is spent. A node takes a slice by one compare-and-set: from the larger
 * of the mark and its own count of the records made (which brings in what the platform made
 * itself, never through a slot), up to the cap. A slice is small near the cap (a share of what is
 * left for each live node), so a node takes another only every so many creates and never holds
 * much of what is left.
 *
 * A node keeps its slots a while (SLOT_LIFE_MS) and the mark lives twice as long past its last
 * slice, so slots a node took and no longer uses (it restarted, or the organisation's requests go
 * elsewhere) are not lost for good: once the mark lapses, the next slice starts from the journal's
 * count again.
 */
import type { Clock } from '../runtime/index.ts';
import { isStoreFault, type KeyValueStore } from '../stores/index.ts';
import { ApiError } from './base/errors.ts';

/** The most slots a node takes at once. */
export const SLICE_MAX = 16;
/** How long a node uses the slots it took; the mark lapses after twice this with no slice taken. */
export const SLOT_LIFE_MS = 30_000;
/** How long a budget found without room is taken as still full before the mark is read again. */
const FULL_RECHECK_MS = 1_000;
/** Compare-and-set attempts before a slice is given up for this request (others kept winning). */
const ATTEMPTS = 32;

interface Slots {
  n: number;
  until: number;
}

export class SandboxBudget {
  private readonly slots = new Map<string, Slots>();
  /** One slice taken at a time per organisation on this node. */
  private readonly taking = new Map<string, Promise<boolean>>();
  /** Organisations whose budget had no room at the last look, until when: a request of one at its cap reads no mark. */
  private readonly full = new Map<string, number>();

  constructor(
    private readonly kv: KeyValueStore,
    private readonly clock: Clock,
    private readonly cap: () => number,
    /** Records made in an organisation as this node counts them. */
    private readonly counted: (org: string) => number,
    /** Live nodes sharing the budget. */
    private readonly nodes: () => number,
  ) {}

  /** Unspent slots of `org` this node holds now. */
  held(org: string): number {
    const s = this.slots.get(org);
    return s === undefined || s.until <= this.clock.now() ? 0 : s.n;
  }

  /** Slots a request took and did not spend, kept for the next one while they last. */
  giveBack(org: string, n: number): void {
    const s = this.slots.get(org);
    if (n > 0 && s !== undefined && s.until > this.clock.now()) s.n += n;
  }

  /**
   * Takes `n` slots of `org` for one request, taking a slice from the mark when this node holds
   * too few: `n`, or 0 when the budget has no room for them. A store fault throws a retryable 503.
   */
  async acquire(org: string, n: number): Promise<number> {
    for (;;) {
      if (this.take(org, n)) return n;
      const full = this.full.get(org);
      if (full !== undefined && full > this.clock.now()) return 0;
      const busy = this.taking.get(org);
      if (busy !== undefined) {
        await busy.catch(() => false); // its fault, if any, is met again by this request's own slice
        continue;
      }
      const p = this.slice(org, n).finally(() => this.taking.delete(org));
      this.taking.set(org, p);
      try {
        if (!(await p)) return 0;
      } catch (e) {
        // before anything ran: a retryable 503 that says nothing was applied (docs/gaps.md#sandbox-caps)
        if (isStoreFault(e)) throw new ApiError('unavailable', 'The sandbox record budget could not be read; nothing was applied. Retry.', { retryable: true });
        throw e;
      }
    }
  }

  private take(org: string, n: number): boolean {
    const s = this.slots.get(org);
    if (s === undefined || s.until <= this.clock.now() || s.n < n) return false;
    s.n -= n;
    return true;
  }

  /** Adds a slice to this node's slots of `org`: false when the budget has no room for `n` more (or others kept winning). */
  private async slice(org: string, n: number): Promise<boolean> {
    const key = `sandbox:mark:${org}`;
    const cap = this.cap();
    for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
      const mark = await this.kv.get<number>(key);
      const base = Math.max(mark ?? 0, this.counted(org));
      const left = cap - base;
      const have = this.held(org);
      const want = Math.min(left, Math.max(n - have, Math.min(SLICE_MAX, Math.floor(left / (2 * Math.max(1, this.nodes()))))));
      if (want < n - have || want <= 0) {
        // no room: the request is refused at its decision, and the next ones a moment without a read
        this.full.set(org, this.clock.now() + FULL_RECHECK_MS);
        return false;
      }
      this.full.delete(org);
      if (await this.kv.compareAndSet(key, mark, base + want, 2 * SLOT_LIFE_MS)) {
        // what this node's requests took or gave back meanwhile stands: the slice is added to it
        this.slots.set(org, { n: this.held(org) + want, until: this.clock.now() + SLOT_LIFE_MS });
        return true;
      }
    }
    // other nodes kept taking slices first: busy, not full (docs/gaps.md#sandbox-caps)
    throw new ApiError('overloaded', 'The sandbox record budget is being taken by several nodes at once; nothing was applied. Retry shortly.', { retryable: true });
  }
}
