/**
 * Decisions a person takes in the identity module (spec 3 "Identity verification": resolve,
 * mark_unresolved and block; 4.3 blocklist entries, merges): each is recorded with who took it and
 * why, and the passports follow by reaction.
 * - Blocking a verification chooses a scope: `subject` blocklists its subject; `identifier` also
 *   blocklists every other subject of the organisation who presented the same identifier (matched
 *   by keyed digest; docs/gaps.md#identity).
 * - A merge needs two issued passports of the organisation, neither already superseded.
 */
import { ApiError, type Caller, derivedId, fieldError, type Platform } from '../../kernel/index.ts';
import { BlocklistEntry, type CreateEntry } from './blocklist-entry.ts';
import { BLOCKLIST_PREFIX, passportIdOf } from './ids.ts';
import { Merge } from './merge.ts';
import { MergeCandidate, type CandidateState } from './merge-candidate.ts';
import { Passport, type PassportState } from './passport.ts';
import type { IdentityService } from './service.ts';
import { type BlockScope, Verification, type VerificationState } from './verification.ts';
import { isBlocklisted } from './verify.ts';

/** resolve: a verification not yet resolved is refused while its subject is blocklisted; the passport follows at once (the reaction to verification.resolved is the safety net). */
export async function resolveVerification(svc: IdentityService, platform: Platform, caller: Caller, id: string, body: { reason: string }, dedupeId: string | undefined): Promise<unknown> {
  const { system } = platform;
  const s = await system.state<VerificationState>(Verification, id, caller.org);
  if (s.outcome !== 'resolved' && (await isBlocklisted(platform, caller.org, s.subject_ref))) {
    throw new ApiError('conflict', `Subject ${s.subject_ref} is blocklisted; reverse the blocklist entry before resolving.`);
  }
  const view = await system.ask(Verification, id, 'resolve', body, { ...caller, dedupeId });
  await svc.issuePassport(await system.state<VerificationState>(Verification, id, caller.org), caller);
  return view;
}

export function markUnresolved(platform: Platform, caller: Caller, id: string, body: { source: string; reason: string }, dedupeId: string | undefined): Promise<unknown> {
  return platform.system.ask(Verification, id, 'mark_unresolved', body, { ...caller, dedupeId });
}

export async function blockVerification(svc: IdentityService, platform: Platform, caller: Caller, id: string, body: { scope: BlockScope; reason: string }, dedupeId: string | undefined): Promise<unknown> {
  const { system } = platform;
  const s = await system.state<VerificationState>(Verification, id, caller.org);
  if (s.outcome === 'blocked') throw new ApiError('conflict', `Verification ${id} is already blocked.`);
  const subjects = new Set([s.subject_ref]);
  if (body.scope === 'identifier') {
    const entry = await svc.vault.get(caller.org, id);
    for (const digest of [entry?.digests.government_identifier, entry?.digests.bank_identifier]) {
      if (!digest) continue;
      for (const passport of await svc.vault.sameDigest(caller.org, digest, 100)) {
        const other = await svc.vault.subjectOf(caller.org, passport);
        if (other !== undefined) subjects.add(other);
      }
    }
  }
  for (const subject of subjects) {
    const cmd: CreateEntry = { subject_ref: subject, reason: body.reason, scope: body.scope, origin: 'verification_block', verification_id: id, livemode: s.livemode };
    await system.ask(BlocklistEntry, derivedId(BLOCKLIST_PREFIX, [caller.org, id, subject]), 'create', cmd, { ...caller, dedupeId: dedupeId && `${dedupeId}:${subject}` });
  }
  return system.ask(Verification, id, 'block', body, { ...caller, dedupeId });
}

/** A person blocklists a subject directly: scope subject, origin staff, tied to no verification. */
export function blocklistSubject(platform: Platform, caller: Caller, id: string, body: { subject_ref: string; reason: string }, dedupeId: string | undefined): Promise<unknown> {
  const cmd: CreateEntry = { subject_ref: body.subject_ref, reason: body.reason, scope: 'subject', origin: 'staff', verification_id: null, livemode: caller.livemode };
  return platform.system.ask(BlocklistEntry, id, 'create', cmd, { ...caller, dedupeId });
}

/** reverse an active entry; confirm or decline a proposed one (a forgery the credentials module escalated). */
export function decideBlocklistEntry(platform: Platform, caller: Caller, id: string, op: 'reverse' | 'confirm' | 'decline', body: { reason: string }, dedupeId: string | undefined): Promise<unknown> {
  return platform.system.ask(BlocklistEntry, id, op, body, { ...caller, dedupeId });
}

export async function makeMerge(platform: Platform, caller: Caller, id: string, body: { survivor_passport_id?: string; superseded_passport_id?: string; merge_candidate_id?: string; reason: string }, dedupeId: string | undefined): Promise<unknown> {
  const { system } = platform;
  let survivor = body.survivor_passport_id;
  let superseded = body.superseded_passport_id;
  if (body.merge_candidate_id) {
    const c = await system.state<CandidateState>(MergeCandidate, body.merge_candidate_id, caller.org);
    if (c.status !== 'open') throw new ApiError('conflict', `Merge candidate ${c.id} is ${c.status}.`);
    const pair = c.subject_refs.map((r) => passportIdOf(caller.org, r));
    if (survivor && !pair.includes(survivor)) throw fieldError('/survivor_passport_id', 'not_in_candidate', 'survivor_passport_id must be one of the candidate\u2019s two passports.');
    survivor ??= pair[0];
    superseded ??= pair.find((p) => p !== survivor);
  }
  if (!survivor || !superseded) throw fieldError('/survivor_passport_id', 'required', 'Name merge_candidate_id, or both survivor_passport_id and superseded_passport_id.');
  if (survivor === superseded) throw fieldError('/superseded_passport_id', 'same_passport', 'A passport cannot be merged into itself.');
  const [a, b] = await Promise.all([survivor, superseded].map((p) => system.state<PassportState>(Passport, p, caller.org)));
  if (!a!.issued || !b!.issued) throw new ApiError('not_found', 'Both passports must exist.');
  if (a!.holds.some((h) => h.kind === 'merged')) throw new ApiError('conflict', `Passport ${survivor} is itself superseded; merge into its survivor instead.`);
  if (b!.holds.some((h) => h.kind === 'merged')) throw new ApiError('conflict', `Passport ${superseded} is already superseded.`);
  return system.ask(Merge, id, 'make', { survivor_passport_id: survivor, superseded_passport_id: superseded, merge_candidate_id: body.merge_candidate_id ?? null, reason: body.reason, livemode: caller.livemode }, { ...caller, dedupeId });
}

/** Reversing a merge leaves both passports as they were before it. */
export function reverseMerge(platform: Platform, caller: Caller, id: string, body: { reason: string }, dedupeId: string | undefined): Promise<unknown> {
  return platform.system.ask(Merge, id, 'reverse', body, { ...caller, dedupeId });
}
