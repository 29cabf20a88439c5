/**
 * The gating contract and readiness (spec 4.3 GET /v1/identity/gating_contract, /readiness; shapes
 * a gap, docs/gaps.md#identity): a machine-readable statement of what "live passport" means for the
 * modules that check it before acting (engagements before execution, allocation before an offer,
 * an arrival or a completion, payouts before paying a person), how they ask, and which events
 * announce a change; and whether the module can verify now. Not one actor's operations: the
 * contract is data beside the policy pack, and readiness reads the node-local service (its sources
 * and gate).
 */
import { contentHash, type Platform } from '../../kernel/index.ts';
import { HOLD_KINDS } from './passport.ts';
import { ACTIVE_POLICY } from './policy.ts';
import { identityService } from './service.ts';

const CONTRACT = {
  version: '2026.11.1',
  subject: 'A subject is a subject_ref within one organisation; the organisation comes from the credential (spec 5.5).',
  live_passport: {
    definition: 'The subject\u2019s passport was issued from a resolved identity verification and nothing holds it.',
    holds: HOLD_KINDS.map((k) => ({
      kind: k,
      meaning: {
        blocklisted: 'An active blocklist entry of the subject (reversible: POST .../blocklist_entries/{id}/reverse).',
        merged: 'The passport was superseded by another in a merge (reversible: POST .../merges/{id}/reverse).',
        consent_withdrawn: 'A consent token the passport rests on was withdrawn and the identity policy pack says withdrawal ends it (lifted by a new verification under an active token).',
        erased: 'The subject\u2019s personal data was erased on their request (final).',
      }[k],
    })),
    assurance: 'A live passport carries assurance_level (dal_0..dal_2); a module needing a level reads it from the passport.',
  },
  how_to_ask: {
    in_process: 'identityGate(platform).isLive(org, subject_ref) / livePassport(org, subject_ref) through actors/identity/index.ts: a read of memory on the calling node, kept current from commits and, in a cluster, from the journal feed.',
    over_http: 'GET /v1/identity/passports/{passport_id} (live, ended_because).',
  },
  events: {
    stops_being_live: 'anchor.passport.ended',
    live_again: 'anchor.passport.restored',
    issued: 'anchor.passport.issued',
    journal: { kind: 'identity_passport', ended: 'passport.ended', restored: 'passport.restored', issued: 'passport.issued' },
  },
  obligations_of_callers: 'Check the gate at the moment of acting, and react to anchor.passport.ended (spec 6: removal from live allocation cascades within 60 seconds).',
};

export function gatingContract(livemode: boolean) {
  return { object: 'gating_contract', livemode, mocked: false, ...CONTRACT, content_hash: contentHash(CONTRACT), policy: { version: ACTIVE_POLICY.pack.version, content_hash: ACTIVE_POLICY.hash } };
}

export function readiness(platform: Platform, livemode: boolean) {
  const svc = identityService(platform);
  const sources = svc.sources.map((s) => ({ id: s.id, check: s.check, state: s.state(), mocked: s.mocked }));
  return {
    object: 'identity_readiness',
    livemode,
    mocked: sources.some((s) => s.mocked),
    ready: sources.every((s) => s.state !== 'unavailable'),
    sources,
    policy: { version: ACTIVE_POLICY.pack.version, content_hash: ACTIVE_POLICY.hash, legal_approval_reference: ACTIVE_POLICY.pack.legal_approval_reference },
    gate: { passports_known: svc.gate.size },
    delivered_assurance_levels: ['dal_0', 'dal_1', 'dal_2'],
  };
}
