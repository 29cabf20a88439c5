/**
 * Re-attestation (credentials). Spec 2.5 ("a claim cannot be quietly extended"), 4.4 (POST
 * /v1/credentials/reattestations, GET /{id}); fields not shown (docs/gaps.md#credentials). Someone
 * attests the competence of a claim afresh: the record names the claim re-attested and the new claim
 * it issued, which supersedes the old one (superseded_by); the old claim stays as it was.
 *
 * status     command  condition  event                   next
 * ---------  -------  ---------  ----------------------  ---------
 * (none)     create   -          reattestation.created   completed
 * completed  create   -          -                       completed
 */
import { defineActor, type IndexEntry, iso, sortKeyTime } from '../../runtime/index.ts';
import { factsOf, recordView } from '../../kernel/index.ts';
import { REATTESTATION_PREFIX } from './ids.ts';
import type { EvidenceClass } from './policy.ts';

/** The evidence classes a re-attestation may give (e1 is no attestation, e4 comes only from a verification). */
export const REATTESTATION_CLASSES = ['e2_attested', 'e3_documented', 'e5_demonstrated'] as const satisfies readonly EvidenceClass[];

export interface CreateReattestation {
  subject_ref: string;
  claim_id: string;
  new_claim_id: string;
  claim_code: string;
  evidence_class: EvidenceClass;
  evidence_date: string;
  attested_by: string;
  note: string | null;
  livemode: boolean;
}

export interface ReattestationState extends CreateReattestation {
  id: string;
  org: string;
  created_at: number;
}

export type ReattestationEvent = { type: 'reattestation.created' } & CreateReattestation;

export const Reattestation = defineActor({
  kind: 'credentials_reattestation',
  prefix: REATTESTATION_PREFIX,
  creates: ['create'],
  initial: (id: string, org: string): ReattestationState => ({
    id, org, subject_ref: '', claim_id: '', new_claim_id: '', claim_code: '', evidence_class: 'e2_attested', evidence_date: '', attested_by: '', note: null, livemode: false, created_at: 0,
  }),
  decide: {
    create(_s: ReattestationState, cmd: CreateReattestation, ctx): ReattestationEvent[] {
      return ctx.version > 0 ? [] : [{ type: 'reattestation.created', ...cmd }];
    },
  },
  evolve(s: ReattestationState, e: ReattestationEvent, meta): ReattestationState {
    return { ...s, ...factsOf(e), created_at: meta.at };
  },
  view: (s: ReattestationState) => (recordView('reattestation', s.id, s.livemode, false, {
    status: 'completed',
    subject_ref: s.subject_ref,
    claim_id: s.claim_id,
    new_claim_id: s.new_claim_id,
    claim_code: s.claim_code,
    evidence_class: s.evidence_class,
    evidence_date: s.evidence_date,
    attested_by: s.attested_by,
    note: s.note,
    created_at: iso(s.created_at),
  })),
  indexes(s: ReattestationState): IndexEntry[] {
    const k = sortKeyTime(s.created_at);
    return [
      { list: 'all', sortKey: k },
      { list: `subject:${s.subject_ref}`, sortKey: k },
    ];
  },
});
