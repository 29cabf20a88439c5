/**
 * The merge operations (spec 4.3 POST /v1/identity/merges and .../reverse; shape a gap,
 * docs/gaps.md#identity): a person merges two passports found to be one person, from a merge
 * candidate or by naming both, and may reverse the merge. A merge needs two issued passports of the
 * organisation, neither already superseded; the passports and the candidate follow by reaction.
 */
import { ApiError, type Caller, fieldError, type Platform } from '../../kernel/index.ts';
import { passportIdOf } from './ids.ts';
import { Merge } from './merge.ts';
import { MergeCandidate } from './merge-candidate.ts';
import { Passport } from './passport.ts';

export interface MergeBody {
  survivor_passport_id?: string;
  superseded_passport_id?: string;
  merge_candidate_id?: string;
  reason: string;
}

/** The two passports a merge names: from its candidate, or as given. */
async function mergePair(platform: Platform, caller: Caller, body: MergeBody): Promise<{ survivor: string; superseded: string }> {
  let survivor = body.survivor_passport_id;
  let superseded = body.superseded_passport_id;
  if (body.merge_candidate_id) {
    const c = await platform.system.state(MergeCandidate, body.merge_candidate_id, caller.org);
    if (c.status !== 'open') throw new ApiError('conflict', `Merge candidate ${c.id} is ${c.status}.`);
    const pair = c.subject_refs.map((r) => passportIdOf(caller.org, r));
    if (survivor && !pair.includes(survivor)) throw fieldError('/survivor_passport_id', 'not_in_candidate', 'survivor_passport_id must be one of the candidate\u2019s two passports.');
    survivor ??= pair[0];
    superseded ??= pair.find((p) => p !== survivor);
  }
  if (!survivor || !superseded) throw fieldError('/survivor_passport_id', 'required', 'Name merge_candidate_id, or both survivor_passport_id and superseded_passport_id.');
  if (survivor === superseded) throw fieldError('/superseded_passport_id', 'same_passport', 'A passport cannot be merged into itself.');
  return { survivor, superseded };
}

export async function makeMerge(platform: Platform, caller: Caller, id: string, body: MergeBody, dedupeId: string | undefined): Promise<unknown> {
  const { system } = platform;
  const { survivor, superseded } = await mergePair(platform, caller, body);
  const [a, b] = await Promise.all([survivor, superseded].map((p) => system.state(Passport, p, caller.org)));
  if (!a!.issued || !b!.issued) throw new ApiError('not_found', 'Both passports must exist.');
  if (a!.holds.some((h) => h.kind === 'merged')) throw new ApiError('conflict', `Passport ${survivor} is itself superseded; merge into its survivor instead.`);
  if (b!.holds.some((h) => h.kind === 'merged')) throw new ApiError('conflict', `Passport ${superseded} is already superseded.`);
  return system.ask(Merge, id, 'make', { survivor_passport_id: survivor, superseded_passport_id: superseded, merge_candidate_id: body.merge_candidate_id ?? null, reason: body.reason, livemode: caller.livemode }, { ...caller, dedupeId });
}

/** Reversing a merge leaves both passports as they were before it. */
export function reverseMerge(platform: Platform, caller: Caller, id: string, body: { reason: string }, dedupeId: string | undefined): Promise<unknown> {
  return platform.system.ask(Merge, id, 'reverse', body, { ...caller, dedupeId });
}
