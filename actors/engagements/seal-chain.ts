/**
 * Seal chain (engagements): one per organisation, the order in which its instruments were sealed
 * (spec 2.6 seal.previous_hash "chaining the organisation's sealed instruments"). One actor
 * processes one command at a time, so two instruments of one organisation executed at once
 * chain one after the other and never fork. The chain's journal is the chain: one event per seal,
 * in order, which audit bundles copy and verification walks.
 *
 * status  command  condition                                      event              next
 * ------  -------  ---------------------------------------------  -----------------  ------
 * any     seal     instrument not sealed yet; expires_at not due  seal_chain.sealed  head = the new hash
 * any     seal     instrument sealed before (a retry)             - (same seal)      same
 * any     seal     expires_at passed                              409 conflict       same
 */
import { defineActor } from '../../runtime/index.ts';
import { ApiError, assertNever } from '../../kernel/index.ts';
import { SEAL_CHAIN_PREFIX } from './ids.ts';
import { GENESIS, SEAL_ALGORITHM, type Seal, type SealedDocument, sealHash } from './seal.ts';

/** Seals remembered for retries of a seal whose instrument did not record it yet. */
const RECENT = 256;

export interface ChainEntry extends Seal {
  instrument_id: string;
  engagement_id: string;
  position: number;
}

export interface SealChainState {
  org: string;
  head: string;
  count: number;
  /** The last RECENT seals, oldest first: `items[start, end)` (see remember). */
  recent: Window;
}

/**
 * A persistent append-only window: a state owns `items[start, end)`. Remembering one more appends
 * in place when no later state appended to the same array (its length is still `end`), else it
 * copies; older states never see a change, so evolve stays pure. The array is compacted to the last
 * RECENT entries when it reaches twice that: a seal costs O(1) amortised instead of a copy of the
 * whole window on every execution.
 */
interface Window {
  items: ChainEntry[];
  start: number;
  end: number;
}

function remember(w: Window, entry: ChainEntry): Window {
  let { items, start, end } = w;
  if (items.length !== end || end >= 2 * RECENT) {
    items = items.slice(Math.max(start, end - RECENT + 1), end);
    start = 0;
    end = items.length;
  }
  items.push(entry);
  end++;
  if (end - start > RECENT) start = end - RECENT;
  return { items, start, end };
}

/** The remembered seal of an instrument, newest first (a retry comes soon after its seal). */
function recall(w: Window, instrumentId: string): ChainEntry | undefined {
  for (let i = w.end - 1; i >= w.start; i--) if (w.items[i].instrument_id === instrumentId) return w.items[i];
  return undefined;
}

export type SealChainEvent = { type: 'seal_chain.sealed' } & ChainEntry;

export const SealChain = defineActor({
  kind: 'engagements_seal_chain',
  prefix: SEAL_CHAIN_PREFIX,
  // Its state is the head and the last RECENT seals, so a snapshot costs RECENT entries while a
  // seal event is small: snapshots every 1000 seals (the runtime's default is 100) keep them off
  // most executions, and activation replays at most 1000 small events.
  snapshotEvery: 1000,
  // 2: `recent` became a persistent window; older snapshots are replayed instead.
  schema: 2,
  creates: ['seal'],
  initial: (_id: string, org: string): SealChainState => ({ org, head: GENESIS, count: 0, recent: { items: [], start: 0, end: 0 } }),
  decide: {
    seal(s: SealChainState, cmd: { instrument_id: string; engagement_id: string; document: SealedDocument; expires_at: number | null }, ctx) {
      const before = recall(s.recent, cmd.instrument_id);
      if (before) return { events: [] as SealChainEvent[], reply: sealOf(before) };
      if (cmd.expires_at !== null && ctx.now >= cmd.expires_at) throw new ApiError('conflict', `Instrument ${cmd.instrument_id} passed its expires_at; it cannot be sealed.`);
      const sealed_at = new Date(ctx.now).toISOString();
      const entry: ChainEntry = {
        instrument_id: cmd.instrument_id,
        engagement_id: cmd.engagement_id,
        position: s.count + 1,
        hash: sealHash(cmd.document, s.head, sealed_at),
        previous_hash: s.head,
        sealed_at,
        algorithm: SEAL_ALGORITHM,
      };
      return { events: [{ type: 'seal_chain.sealed' as const, ...entry }], reply: sealOf(entry) };
    },
  },
  evolve(s: SealChainState, e: SealChainEvent): SealChainState {
    switch (e.type) {
      case 'seal_chain.sealed': {
        const entry: ChainEntry = { instrument_id: e.instrument_id, engagement_id: e.engagement_id, position: e.position, hash: e.hash, previous_hash: e.previous_hash, sealed_at: e.sealed_at, algorithm: e.algorithm };
        return { org: s.org, head: e.hash, count: e.position, recent: remember(s.recent, entry) };
      }
      default:
        return assertNever(e.type);
    }
  },
  view: (s: SealChainState) => ({ object: 'seal_chain', head: s.head, length: s.count }),
});

export const sealOf = (e: ChainEntry): Seal => ({ hash: e.hash, previous_hash: e.previous_hash, sealed_at: e.sealed_at, algorithm: e.algorithm });
