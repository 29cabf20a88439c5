/**
 * Merge (spec 4.3 POST /v1/identity/merges and .../reverse; shape a gap, docs/gaps.md#identity):
 * two passports found to be one person; one survives, the other is superseded (it stops being live,
 * names its survivor, and the survivor lists it). Nothing is deleted (spec rule 4): a reversal
 * restores both as they were. The passports and the candidate follow by reactions
 * (passport.ts, merge-candidate.ts).
 *
 * status    command  condition  event            next
 * --------  -------  ---------  ---------------  --------
 * (none)    make     -          merge.made       merged
 * merged    reverse  -          merge.reversed   reversed
 * reversed  reverse  -          409 conflict
 */
import { defineActor, type IndexEntry, iso, sortKeyTime } from '../../runtime/index.ts';
import { ApiError, assertNever, factsOf, recordView } from '../../kernel/index.ts';
import { MERGE_PREFIX } from './ids.ts';

export interface MergeFacts {
  survivor_passport_id: string;
  superseded_passport_id: string;
  merge_candidate_id: string | null;
  reason: string;
  livemode: boolean;
}

export interface MergeState extends MergeFacts {
  id: string;
  org: string;
  status: 'merged' | 'reversed';
  decided_by: string;
  made_at: number;
  reversed: { by: string; at: string; reason: string } | null;
}

export type MergeEvent =
  | ({ type: 'merge.made'; decided_by: string } & MergeFacts)
  | { type: 'merge.reversed'; survivor_passport_id: string; superseded_passport_id: string; merge_candidate_id: string | null; by: string; reason: string };

export const Merge = defineActor({
  kind: 'identity_merge',
  prefix: MERGE_PREFIX,
  creates: ['make'],
  initial: (id: string, org: string): MergeState => ({ id, org, survivor_passport_id: '', superseded_passport_id: '', merge_candidate_id: null, reason: '', livemode: false, status: 'merged', decided_by: '', made_at: 0, reversed: null }),
  decide: {
    make(_s: MergeState, cmd: MergeFacts, ctx): MergeEvent[] {
      if (ctx.version > 0) return [];
      return [{ type: 'merge.made', ...cmd, decided_by: ctx.principal ?? 'unknown' }];
    },
    reverse(s: MergeState, cmd: { reason: string }, ctx): MergeEvent[] {
      if (s.status !== 'merged') throw new ApiError('conflict', `Merge ${s.id} is already reversed.`);
      return [{ type: 'merge.reversed', survivor_passport_id: s.survivor_passport_id, superseded_passport_id: s.superseded_passport_id, merge_candidate_id: s.merge_candidate_id, by: ctx.principal ?? 'unknown', reason: cmd.reason }];
    },
  },
  evolve(s: MergeState, e: MergeEvent, meta): MergeState {
    switch (e.type) {
      case 'merge.made':
        return { ...s, ...factsOf(e), status: 'merged', made_at: meta.at };
      case 'merge.reversed':
        return { ...s, status: 'reversed', reversed: { by: e.by, at: iso(meta.at), reason: e.reason } };
      default:
        return assertNever(e);
    }
  },
  view: (s: MergeState) => (recordView('merge', s.id, s.livemode, false, {
    status: s.status,
    survivor_passport_id: s.survivor_passport_id,
    superseded_passport_id: s.superseded_passport_id,
    merge_candidate_id: s.merge_candidate_id,
    reason: s.reason,
    decided_by: s.decided_by,
    made_at: iso(s.made_at),
    reversal: s.reversed,
  })),
  indexes: (s: MergeState): IndexEntry[] => [{ list: 'all', sortKey: sortKeyTime(s.made_at) }],
});
