/**
 * The passport operations the routes call (spec 2.4 Passport, 4.3; the passport's fields and the
 * evidence bundle are gaps, docs/gaps.md#identity): a passport made from a resolved verification,
 * a passport read, and the evidence bundle behind a verification (every source it consulted and
 * what each said, identifiers masked).
 */
import { ApiError, type Caller, type Platform } from '../../kernel/index.ts';
import { passportIdOf, verificationIdOfBundle } from './ids.ts';
import { Passport, type PassportState } from './passport.ts';
import { identityService } from './service.ts';
import { Verification, type VerificationState } from './verification.ts';

/** POST /v1/identity/passports: only a resolved verification makes one; an existing passport is answered as it stands. */
export async function passportFromVerification(platform: Platform, caller: Caller, verificationId: string): Promise<unknown> {
  const s = await platform.system.state<VerificationState>(Verification, verificationId, caller.org);
  if (s.outcome !== 'resolved') throw new ApiError('conflict', `Verification ${verificationId} is ${s.outcome}; a passport is made only from a resolved verification.`);
  await identityService(platform).issuePassport(s, caller);
  return platform.system.get(Passport, passportIdOf(caller.org, s.subject_ref), caller.org);
}

export async function getPassport(platform: Platform, caller: Caller, id: string): Promise<unknown> {
  const s = await platform.system.state<PassportState>(Passport, id, caller.org);
  if (!s.issued) throw new ApiError('not_found', `No passport with id ${id}.`);
  return Passport.view(s);
}

export async function evidenceBundle(platform: Platform, caller: Caller, bundleId: string): Promise<unknown> {
  const id = verificationIdOfBundle(bundleId);
  const s = await platform.system.state<VerificationState>(Verification, id, caller.org);
  if (!s.results.length) throw new ApiError('not_found', `Verification ${id} queried no source (it was blocked), so it has no evidence bundle.`);
  const vault = await identityService(platform).vault.get(caller.org, id);
  return {
    id: bundleId,
    object: 'evidence_bundle',
    livemode: s.livemode,
    mocked: s.mocked,
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
      identifier_shown: vault?.masked[r.check as 'government_identifier' | 'bank_identifier' | 'contactability'] ?? null,
    })),
  };
}
