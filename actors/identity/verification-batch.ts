/**
 * Verification batch (spec 4.3 POST and GET /v1/identity/verification_batches; shape a gap,
 * docs/gaps.md#identity): many subjects verified in one request, each exactly as a single POST
 * would (its own verification id, derived from the batch's, so a retried batch lands on the same
 * records), and a report per item: the verification's id and outcome, or the refusal it met
 * (code and message, as the single POST would have answered). Written once, when every item ran.
 *
 * status     command  condition  event                         next
 * ---------  -------  ---------  ----------------------------  ---------
 * (none)     record   -          verification_batch.completed  completed
 * completed  record   -          - (the same record)           completed
 */
import { defineActor, type IndexEntry, iso, sortKeyTime } from '../../runtime/index.ts';
import { assertNever, recordView } from '../../kernel/index.ts';
import { BATCH_PREFIX } from './ids.ts';

export interface BatchItemResult {
  index: number;
  subject_ref: string;
  verification_id: string | null;
  outcome: string | null;
  error: { code: string; message: string } | null;
}

export interface BatchState {
  id: string;
  org: string;
  livemode: boolean;
  items: BatchItemResult[];
  created_at: number;
}

export type BatchEvent = { type: 'verification_batch.completed'; items: BatchItemResult[]; livemode: boolean };

export const VerificationBatch = defineActor({
  kind: 'identity_verification_batch',
  prefix: BATCH_PREFIX,
  creates: ['record'],
  initial: (id: string, org: string): BatchState => ({ id, org, livemode: false, items: [], created_at: 0 }),
  decide: {
    record(_s: BatchState, cmd: { items: BatchItemResult[]; livemode: boolean }, ctx): BatchEvent[] {
      return ctx.version > 0 ? [] : [{ type: 'verification_batch.completed', items: cmd.items, livemode: cmd.livemode }];
    },
  },
  evolve(s: BatchState, e: BatchEvent, meta): BatchState {
    switch (e.type) {
      case 'verification_batch.completed':
        return { ...s, items: e.items, livemode: e.livemode, created_at: meta.at };
      default:
        return assertNever(e.type);
    }
  },
  view: (s: BatchState) => {
    const count = (o: string) => s.items.filter((i) => i.outcome === o).length;
    return recordView('verification_batch', s.id, s.livemode, false, {
      status: 'completed',
      item_count: s.items.length,
      summary: { resolved: count('resolved'), pending: count('pending'), unresolved: count('unresolved'), blocked: count('blocked'), refused: s.items.filter((i) => i.error).length },
      items: s.items,
      created_at: iso(s.created_at),
    });
  },
  indexes: (s: BatchState): IndexEntry[] => [{ list: 'all', sortKey: sortKeyTime(s.created_at) }],
});
