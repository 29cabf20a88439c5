/**
 * The subject request operations (NDPA in reference 1.7; spec 4.3 subject requests): a request is
 * recorded with its due date from the policy pack; access and portability are answered at once with
 * what identity holds, masked; erasure removes the personal data in the vault and keeps the decision
 * records; rectification, objection and restriction are left for a person, who completes or refuses
 * them with the reason.
 */
import type { Caller, Platform } from '../../kernel/index.ts';
import { BlocklistEntry } from './blocklist-entry.ts';
import { ConsentToken } from './consent-token.ts';
import { passportIdOf } from './ids.ts';
import { Passport } from './passport.ts';
import { passportOf } from './passports.ts';
import { ACTIVE_POLICY, type SubjectRequestKind } from './policy.ts';
import { identityService } from './service.ts';
import { SubjectRequest } from './subject-request.ts';
import { Verification } from './verification.ts';

const DAY = 86_400_000;

/** What identity holds about a subject, masked (access and portability). */
async function subjectCopy(platform: Platform, org: string, subject: string): Promise<unknown> {
  const { system } = platform;
  const { vault } = identityService(platform);
  const key = `subject:${passportIdOf(org, subject)}`;
  const consents: unknown[] = [];
  for await (const ids of system.eachIds(ConsentToken, org, key)) for (const id of ids) consents.push(await system.get(ConsentToken, id, org));
  const verifications: unknown[] = [];
  for await (const ids of system.eachIds(Verification, org, key)) {
    for (const id of ids) {
      const v = await system.state(Verification, id, org);
      const kept = await vault.get(org, id);
      verifications.push({ id, outcome: v.outcome, assurance_reached: v.assurance_reached, checks: (Verification.view(v) as { checks: unknown }).checks, identifiers_shown: kept?.masked ?? {}, created_at: new Date(v.created_at).toISOString() });
    }
  }
  const p = await passportOf(platform, org, subject);
  const blocklisted = (await system.listIds(BlocklistEntry, org, `active_subject:${passportIdOf(org, subject)}`, { limit: 1, order: 'asc' })).ids.length > 0;
  return { subject_ref: subject, consent_tokens: consents, verifications, passport: p?.issued ? Passport.view(p) : null, blocklisted };
}

/** Erasure: each of the subject's verifications loses its vault entry; returns how many had one. */
async function eraseSubject(platform: Platform, org: string, subject: string): Promise<number> {
  const { vault } = identityService(platform);
  let erased = 0;
  for await (const ids of platform.system.eachIds(Verification, org, `subject:${passportIdOf(org, subject)}`)) {
    for (const v of ids) if (await vault.erase(org, v)) erased++;
  }
  return erased;
}

export async function openSubjectRequest(platform: Platform, caller: Caller, id: string, body: { subject_ref: string; kind: SubjectRequestKind; detail?: string }, dedupeId: string | undefined): Promise<unknown> {
  const { system } = platform;
  const pack = ACTIVE_POLICY.pack;
  const now = platform.clock.now();
  await system.ask(SubjectRequest, id, 'open', { subject_ref: body.subject_ref, kind: body.kind, detail: body.detail ?? null, due_at: now + pack.subject_requests.due_days[body.kind] * DAY, policy_version: pack.version, livemode: caller.livemode }, { ...caller, dedupeId });
  const opts = { org: caller.org, requestId: caller.requestId, principal: caller.principal, dedupeId: dedupeId && `${dedupeId}:carry_out` };
  if (body.kind === 'access' || body.kind === 'portability') {
    await system.ask(SubjectRequest, id, 'fulfil', { response: await subjectCopy(platform, caller.org, body.subject_ref) }, opts);
  } else if (body.kind === 'erasure') {
    await system.ask(SubjectRequest, id, 'erase', { verifications: await eraseSubject(platform, caller.org, body.subject_ref) }, opts);
  }
  return system.get(SubjectRequest, id, caller.org);
}

/** Rectification, objection and restriction are left for a person, who completes or refuses them with the reason. */
export function completeSubjectRequest(platform: Platform, caller: Caller, id: string, body: { outcome: 'completed' | 'refused'; reason: string }, dedupeId: string | undefined): Promise<unknown> {
  return platform.system.ask(SubjectRequest, id, 'complete', body, { ...caller, dedupeId });
}
