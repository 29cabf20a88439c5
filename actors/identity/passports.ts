/**
 * The passport operations (spec 2.4 Passport, 4.3; the passport's fields and the evidence bundle
 * are gaps, docs/gaps.md#identity): issuing the passport of a resolved verification (at once, by the
 * verification operations; the reaction to verification.resolved is the safety net), a passport
 * made from a resolved verification, a passport read, and the evidence bundle behind a
 * verification (every source it consulted and what each said, identifiers masked).
 */
import { ApiError, type Caller, type Platform, recordView } from '../../kernel/index.ts';
import { BlocklistEntry } from './blocklist-entry.ts';
import { passportIdOf, verificationIdOfBundle } from './ids.ts';
import { markIssuedHere, Passport, type PassportState } from './passport.ts';
import { isSourceCheck } from './policy.ts';
import { identityService } from './service.ts';
import { Verification, type VerificationState } from './verification.ts';

/** The fields of a verification that issuing its passport reads. */
export type Issuing = Pick<VerificationState, 'id' | 'org' | 'outcome' | 'subject_ref' | 'assurance_reached' | 'consent_token_id' | 'livemode' | 'mocked'>;

/** The passport of a resolved verification, at once (the reaction to verification.resolved is the safety net). */
export async function issuePassport(platform: Platform, s: Issuing, caller: Caller): Promise<void> {
  if (s.outcome !== 'resolved' || s.assurance_reached === null) return;
  const { system } = platform;
  const pid = passportIdOf(s.org, s.subject_ref);
  await system.ask(
    Passport,
    pid,
    'issue',
    { subject_ref: s.subject_ref, verification_id: s.id, assurance: s.assurance_reached, consent_token_id: s.consent_token_id, livemode: s.livemode, mocked: s.mocked },
    { ...caller, dedupeId: `issue:${s.id}` },
  );
  markIssuedHere(s.org, s.id);
  // A blocklisting that landed while the sources were being asked still holds the new passport.
  const active = await system.listIds(BlocklistEntry, s.org, `active_subject:${pid}`, { limit: 100, order: 'asc' });
  for (const entry of active.ids) {
    await system.ask(Passport, pid, 'hold', { kind: 'blocklisted', ref: entry }, { org: s.org, principal: 'system', dedupeId: `hold:${entry}:${s.id}` });
  }
}

/** The subject's passport as it stands, or undefined when none was ever asked for. */
export async function passportOf(platform: Platform, org: string, subject: string): Promise<PassportState | undefined> {
  return platform.system.state(Passport, passportIdOf(org, subject), org).catch(() => undefined);
}

/** POST /v1/identity/passports: only a resolved verification makes one; an existing passport is answered as it stands. */
export async function passportFromVerification(platform: Platform, caller: Caller, verificationId: string): Promise<unknown> {
  const s = await platform.system.state(Verification, verificationId, caller.org);
  if (s.outcome !== 'resolved') throw new ApiError('conflict', `Verification ${verificationId} is ${s.outcome}; a passport is made only from a resolved verification.`);
  await issuePassport(platform, s, caller);
  return platform.system.get(Passport, passportIdOf(caller.org, s.subject_ref), caller.org);
}

export async function getPassport(platform: Platform, caller: Caller, id: string): Promise<unknown> {
  const s = await platform.system.state(Passport, id, caller.org);
  if (!s.issued) throw new ApiError('not_found', `No passport with id ${id}.`);
  return Passport.view(s);
}

export async function evidenceBundle(platform: Platform, caller: Caller, bundleId: string): Promise<unknown> {
  const id = verificationIdOfBundle(bundleId);
  const s = await platform.system.state(Verification, id, caller.org);
  if (!s.results.length) throw new ApiError('not_found', `Verification ${id} queried no source (it was blocked), so it has no evidence bundle.`);
  const vault = await identityService(platform).vault.get(caller.org, id);
  return recordView('evidence_bundle', bundleId, s.livemode, s.mocked, {
    verification_id: s.id,
    subject_ref: s.subject_ref,
    assurance_reached: s.assurance_reached,
    policy_version: s.policy_version,
    personal_data_erased: vault === undefined,
    sources: s.results.map((r) => ({
      source: r.source,
      check: r.check,
      status: r.status,
      said: r.finding,
      answered_at: r.answered_at === null ? null : new Date(r.answered_at).toISOString(),
      identifier_shown: (isSourceCheck(r.check) ? vault?.masked[r.check] : undefined) ?? null,
    })),
  });
}
