/**
 * Reads of the engagements area that are computed from records rather than stored as their own:
 * the obligation envelope and its discharges (spec 2.6), the worker's copy of an instrument
 * (spec 4.5), the clause library (spec 4.5, 9), the gating contract and readiness (spec 4.5).
 * Shapes are not shown in the spec (docs/gaps.md#engagements).
 */
import { contentHash, type Platform } from '../../kernel/index.ts';
import type { EngagementState } from './engagement.ts';
import { envelopeId } from './ids.ts';
import type { InstrumentState } from './instrument.ts';
import { obligationLines } from './obligations.ts';
import { clauseLibrary, clauseLibraryVersions, rulePack } from './packs.ts';
import { sealedDocument } from './seal.ts';
import { standingModel } from './service.ts';

const IN_FORCE = ['executed', 'registered', 'current'];

/** The obligation envelope of an engagement's current classification; never a figure (spec 2.6). */
export function envelopeView(e: EngagementState) {
  const c = e.classification!;
  const pack = rulePack(c.rule_pack.version) ?? rulePack()!;
  return {
    id: envelopeId(e.id, e.classification_count),
    object: 'obligation_envelope' as const,
    livemode: e.livemode,
    mocked: false,
    engagement_id: e.id,
    classification: c.classification,
    classification_review_required: c.review_required,
    in_force: IN_FORCE.includes(e.status),
    in_force_because: IN_FORCE.includes(e.status)
      ? `The engagement is ${e.status}: its instrument is executed.`
      : `The engagement is ${e.status}; classification alone confers no rights and an unexecuted instrument binds no one (spec 3), so nothing is owed under it yet.`,
    employer_facts: e.employer,
    rule_pack: { version: pack.version, content_hash: pack.content_hash },
    obligations: obligationLines(pack, c.classification, e.employer, e.starts_on),
  };
}

/**
 * Which obligations of the envelope were met. Evidence comes from payroll and remittance events
 * that name the engagement; no such event exists in this release (docs/gaps.md#engagements), so
 * every owed line reads no_evidence, and nothing is claimed met that was not shown to be.
 */
export function dischargesView(e: EngagementState) {
  const env = envelopeView(e);
  return {
    object: 'list' as const,
    data: env.obligations
      .filter((o) => o.applies !== 'no')
      .map((o) => ({ object: 'obligation_discharge' as const, livemode: e.livemode, mocked: false, engagement_id: e.id, envelope_id: env.id, obligation: o.code, applies: o.applies, status: 'no_evidence' as const, evidence: [] as unknown[] })),
    has_more: false,
  };
}

/** The worker's own copy: the instrument's clauses rendered for this engagement, with its seal. */
export function copyView(s: InstrumentState) {
  const lib = clauseLibrary(s.clause_library_version)!;
  const template = lib.templates.find((t) => t.code === s.template_code)!;
  const fill = (text: string) =>
    text.replace(/\{\{(\w+)\}\}/g, (_m, k: string) => {
      const v = ({ engaging_party_ref: s.engaging_party_ref, worker_ref: s.worker_ref, starts_on: s.starts_on, ends_on: s.ends_on ?? 'no fixed end date', classification: s.classification } as Record<string, string>)[k];
      return v ?? `{{${k}}}`;
    });
  const document = sealedDocument(s);
  return {
    object: 'instrument_copy' as const,
    livemode: s.livemode,
    mocked: false,
    instrument_id: s.id,
    engagement_id: s.engagement_id,
    status: s.status,
    worker_ref: s.worker_ref,
    engaging_party_ref: s.engaging_party_ref,
    template: { code: template.code, title: template.title },
    clauses: s.clauses.map((c) => {
      const clause = lib.clauses.find((x) => x.code === c.clause_code && x.version === c.clause_version)!;
      return { clause_code: c.clause_code, clause_version: c.clause_version, title: clause.title, covers: clause.covers, text: fill(clause.text) };
    }),
    clause_library_version: s.clause_library_version,
    legal_approval_reference: s.legal_approval_reference,
    document,
    seal: s.seal,
    executed_at: s.executed_at,
  };
}

export function clauseLibraryView(version?: string) {
  const lib = clauseLibrary(version);
  if (!lib) return undefined;
  return { object: 'clause_library' as const, livemode: false, mocked: false, ...lib, versions: clauseLibraryVersions() };
}

const CONTRACT = {
  version: '2026.11.2',
  question: 'Is the engagement between this organisation and this worker executed and current?',
  answer: 'Yes only while an engagement of the worker (worker_ref) in the organisation has status current: its instrument was executed with both parties\u2019 assent and live passports, and it was activated. classified, papered, executed, registered, lapsed, disputed and terminated are not current.',
  refusal: { status: 422, code: 'engagement_not_current', applies_to: ['POST /v1/allocation/offers/{offer_id}/accept', 'POST /v1/allocation/assignments/{assignment_id}/arrival', 'POST /v1/allocation/assignments/{assignment_id}/completion'] },
  how_to_ask: {
    in_process: 'engagementStanding(platform).isCurrent(org, worker_ref) through actors/engagements/index.ts: a read of memory on the calling node, kept current from commits and, in a cluster, from the journal feed.',
    over_http: 'GET /v1/rail/engagements?status=current, GET /v1/rail/engagements/{engagement_id}.',
  },
  standing_changes: {
    journal: { kind: 'engagements_engagement', lapsed: 'engagement.lapsed', terminated: 'engagement.terminated', disputed: 'engagement.disputed', activated: 'engagement.activated' },
    public: ['rail.engagement.lapsed', 'engagement.terminated', 'rail.engagement.disputed', 'rail.engagement.activated'],
  },
  lapses_when: ['a party\u2019s passport stops being live (identity passport.ended)', 'the term ends (end of ends_on)', 'the papered instrument expires unexecuted', 'POST .../lapse'],
  reinstated_when: 'Only by POST /v1/rail/engagements/{engagement_id}/activate, with both parties\u2019 passports live at that moment. A passport that becomes live again (identity passport.restored) does not reinstate lapsed standing by itself: the engagement stays lapsed, and not current, until a person activates it.',
  obligations_of_callers: 'Check at the moment of acting and react to the standing changes: spec 6 removes the worker from every live allocation cascade within 60 seconds of a lapse.',
};

export function gatingContract(livemode: boolean) {
  return { object: 'gating_contract' as const, livemode, mocked: false, ...CONTRACT, content_hash: contentHash(CONTRACT) };
}

export function readiness(p: Platform, livemode: boolean) {
  const pack = rulePack()!;
  const lib = clauseLibrary()!;
  return {
    object: 'engagements_readiness' as const,
    livemode,
    mocked: false,
    ready: true,
    rule_pack: { version: pack.version, content_hash: pack.content_hash, legal_approval_reference: pack.legal_approval_reference, unconfirmed: pack.unconfirmed },
    clause_library: { version: lib.version, content_hash: lib.content_hash, legal_approval_reference: lib.legal_approval_reference },
    standing: { engagements_known: standingModel(p).size },
    obligations_evidence: 'Discharges read no_evidence until payroll and remittance events name engagements.',
  };
}
