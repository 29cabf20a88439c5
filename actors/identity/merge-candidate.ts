/**
 * Merge candidate (spec 4.3 GET /v1/identity/merge_candidates; shape a gap, docs/gaps.md#identity):
 * two subjects of one organisation that presented the same identifier (matched by keyed digest,
 * never by the number itself). Found by the verification operations (verifications.ts) when a
 * verification records an identifier already seen for another subject; one record per pair (the
 * id is derived from the pair).
 *
 * status     command   condition              event                          next
 * ---------  --------  ---------------------  -----------------------------  ----------
 * (none)     find      -                      merge_candidate.found          open
 * open       find      a new matching kind    merge_candidate.match_added    open
 * open       merged    -                      merge_candidate.merged         merged
 * merged     reopen    the merge was reversed merge_candidate.reopened       open
 * other      find, merged, reopen             -                              (unchanged)
 */
import { defineActor, type IndexEntry, iso, sortKeyTime } from '../../runtime/index.ts';
import { assertNever, derivedId, recordView } from '../../kernel/index.ts';
import { MERGE_CANDIDATE_PREFIX, passportIdOf } from './ids.ts';

export const CANDIDATE_STATUSES = ['open', 'merged'] as const;
export type CandidateStatus = (typeof CANDIDATE_STATUSES)[number];

export interface CandidateState {
  id: string;
  org: string;
  livemode: boolean;
  subject_refs: [string, string];
  matched_on: string[];
  verification_ids: string[];
  status: CandidateStatus;
  merge_id: string | null;
  found_at: number;
}

export type CandidateEvent =
  | { type: 'merge_candidate.found'; subject_refs: [string, string]; matched_on: string[]; verification_ids: string[]; livemode: boolean }
  | { type: 'merge_candidate.match_added'; matched_on: string[]; verification_ids: string[] }
  | { type: 'merge_candidate.merged'; merge_id: string }
  | { type: 'merge_candidate.reopened'; merge_id: string };

export const candidateIdOf = (org: string, a: string, b: string): string => derivedId(MERGE_CANDIDATE_PREFIX, [org, ...[a, b].sort()]);

export const MergeCandidate = defineActor({
  kind: 'identity_merge_candidate',
  prefix: MERGE_CANDIDATE_PREFIX,
  creates: ['find'],
  initial: (id: string, org: string): CandidateState => ({ id, org, livemode: false, subject_refs: ['', ''], matched_on: [], verification_ids: [], status: 'open', merge_id: null, found_at: 0 }),
  decide: {
    find(s: CandidateState, cmd: { subject_refs: [string, string]; matched_on: string; verification_ids: string[]; livemode: boolean }, ctx): CandidateEvent[] {
      if (ctx.version === 0) return [{ type: 'merge_candidate.found', subject_refs: [...cmd.subject_refs].sort() as [string, string], matched_on: [cmd.matched_on], verification_ids: cmd.verification_ids, livemode: cmd.livemode }];
      if (s.status !== 'open') return [];
      const fresh = cmd.verification_ids.filter((v) => !s.verification_ids.includes(v));
      if (s.matched_on.includes(cmd.matched_on) && fresh.length === 0) return [];
      return [{ type: 'merge_candidate.match_added', matched_on: s.matched_on.includes(cmd.matched_on) ? [] : [cmd.matched_on], verification_ids: fresh }];
    },
    merged(s: CandidateState, cmd: { merge_id: string }): CandidateEvent[] {
      return s.status === 'open' ? [{ type: 'merge_candidate.merged', merge_id: cmd.merge_id }] : [];
    },
    reopen(s: CandidateState, cmd: { merge_id: string }): CandidateEvent[] {
      return s.status === 'merged' && s.merge_id === cmd.merge_id ? [{ type: 'merge_candidate.reopened', merge_id: cmd.merge_id }] : [];
    },
  },
  evolve(s: CandidateState, e: CandidateEvent, meta): CandidateState {
    switch (e.type) {
      case 'merge_candidate.found':
        return { ...s, subject_refs: e.subject_refs, matched_on: e.matched_on, verification_ids: e.verification_ids, livemode: e.livemode, status: 'open', found_at: meta.at };
      case 'merge_candidate.match_added':
        return { ...s, matched_on: [...s.matched_on, ...e.matched_on], verification_ids: [...s.verification_ids, ...e.verification_ids] };
      case 'merge_candidate.merged':
        return { ...s, status: 'merged', merge_id: e.merge_id };
      case 'merge_candidate.reopened':
        return { ...s, status: 'open', merge_id: null };
      default:
        return assertNever(e);
    }
  },
  view: (s: CandidateState) => (recordView('merge_candidate', s.id, s.livemode, false, {
    subject_refs: s.subject_refs,
    passport_ids: s.subject_refs.map((r) => passportIdOf(s.org, r)),
    matched_on: s.matched_on,
    verification_ids: s.verification_ids,
    status: s.status,
    merge_id: s.merge_id,
    found_at: iso(s.found_at),
  })),
  indexes: (s: CandidateState): IndexEntry[] => [
    { list: 'all', sortKey: sortKeyTime(s.found_at) },
    { list: `status:${s.status}`, sortKey: sortKeyTime(s.found_at) },
  ],
  reactions: [
    { from: 'identity_merge', events: ['merge.made'], command: 'merged', target: (e, src) => candidateTarget(e.data, src.id) },
    { from: 'identity_merge', events: ['merge.reversed'], command: 'reopen', target: (e, src) => candidateTarget(e.data, src.id) },
  ],
});

function candidateTarget(data: unknown, mergeId: string) {
  const d = data as { merge_candidate_id?: string | null };
  return d.merge_candidate_id ? { id: d.merge_candidate_id, payload: { merge_id: mergeId } } : undefined;
}
