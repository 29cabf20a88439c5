/**
 * Re-attestation operations (spec 2.5 "a claim cannot be quietly extended", 4.4 POST
 * /v1/credentials/reattestations): someone attests a claim's competence afresh; a new claim is
 * issued (checked as any claim is, claims.ts), it supersedes the old one, which stays, and the
 * re-attestation records both. The re-attestation's rules are reattestation.ts.
 */
import { ApiError, type Caller, createdId, createDedupe, errorEntry, type Platform } from '../../kernel/index.ts';
import { refuseIf } from './checks.ts';
import { Claim, type IssueClaim } from './claim.ts';
import { claimEntries, decayTerms } from './claims.ts';
import { CLAIM_PREFIX, claimIdOfReattestation, REATTESTATION_PREFIX } from './ids.ts';
import type { EvidenceClass } from './policy.ts';
import { Reattestation } from './reattestation.ts';
import { credentialsService } from './service.ts';

export interface ReattestationBody {
  claim_id: string;
  evidence_class: EvidenceClass;
  evidence_date: string;
  attested_by: string;
  level?: number;
  note?: string;
}

export async function createReattestation(platform: Platform, caller: Caller, body: ReattestationBody): Promise<unknown> {
  const { system } = platform;
  const { policy } = credentialsService(platform);
  const id = createdId(caller, REATTESTATION_PREFIX);
  const entries = claimEntries(policy, platform.clock.now(), { evidence_date: body.evidence_date }, body.evidence_class);
  if (!body.claim_id.startsWith(CLAIM_PREFIX)) entries.unshift(errorEntry('/claim_id', 'invalid_id', 'claim_id must name a competence claim (proof_academic_claim_...).'));
  refuseIf(entries, 1);
  const old = await system.state(Claim, body.claim_id, caller.org);
  const newId = claimIdOfReattestation(id);
  if (old.superseded_by !== null && old.superseded_by !== newId) throw new ApiError('conflict', `Claim ${old.id} is already superseded by ${old.superseded_by}; re-attest the claim that superseded it.`);
  const opts = { ...caller, dedupeId: createDedupe(caller) };
  await system.ask(Claim, newId, 'issue', {
    subject_ref: old.subject_ref, claim_code: old.claim_code, level: body.level ?? old.level, evidence_class: body.evidence_class, evidence_date: body.evidence_date, issuing_method: null,
    ...decayTerms(policy, body.evidence_class), verification_id: null, supersedes: old.id, livemode: caller.livemode, mocked: false,
  } satisfies IssueClaim, opts);
  await system.ask(Claim, old.id, 'supersede', { by: newId }, { ...caller, dedupeId: `supersede:${newId}` });
  return system.ask(Reattestation, id, 'create', {
    subject_ref: old.subject_ref, claim_id: old.id, new_claim_id: newId, claim_code: old.claim_code, evidence_class: body.evidence_class, evidence_date: body.evidence_date,
    attested_by: body.attested_by, note: body.note ?? null, livemode: caller.livemode,
  }, opts);
}
