/**
 * Reads of the engagements area. The records as they stand: an engagement with every execution of
 * its instruments recorded (engagementNow), an instrument of an engagement, an engagement as of a
 * date and an instrument as its journal holds it (spec 2.6 as_of; verification). And what is
 * computed from records rather than stored as their own: the obligation envelope and its
 * discharges (spec 2.6), the worker's copy of an instrument (spec 4.5), the clause library (spec
 * 4.5, 9), the gating contract and readiness (spec 4.5). Shapes are not shown in the spec
 * (docs/gaps.md#engagements).
 */
import { actorEvents, ApiError, contentHash, type Platform } from '../../kernel/index.ts';
import { identityGate } from '../identity/index.ts';
import { Engagement, type EngagementState, type Passports } from './engagement.ts';
import { dateOf, envelopeId } from './ids.ts';
import { Instrument, type InstrumentState } from './instrument.ts';
import { obligationLines } from './obligation-lines.ts';
import { clauseLibrary, clauseLibraryVersions, rulePack } from './packs.ts';
import { sealedDocument } from './seal.ts';
import { standingModel } from './service.ts';

const DAY = 86_400_000;

/** Both parties' passports at this moment (spec 3: both parties need a live passport). */
export function passportsOf(platform: Platform, org: string, s: { worker_ref: string; engaging_party_ref: string }): Passports {
  const gate = identityGate(platform);
  const w = gate.livePassport(org, s.worker_ref);
  const e = gate.livePassport(org, s.engaging_party_ref);
  return { worker: { live: w !== null, passport_id: w }, engaging_party: { live: e !== null, passport_id: e } };
}

export const engagementState = (p: Platform, org: string, id: string) => p.system.state(Engagement, id, org);
export const instrumentState = (p: Platform, org: string, id: string) => p.system.state(Instrument, id, org);

type ExecutedMove = { instrument_id: string; executed_at: string; supersedes: string | null };

/** An execution of one of the engagement's instruments that the engagement has not recorded yet. */
async function unrecordedExecution(p: Platform, e: EngagementState): Promise<ExecutedMove | undefined> {
  if (e.papered_instrument_id !== null && (e.status === 'papered' || (e.status === 'disputed' && e.status_before_dispute === 'papered'))) {
    const s = await instrumentState(p, e.org, e.papered_instrument_id);
    if (s.status === 'executed' || s.status === 'superseded') return { instrument_id: s.id, executed_at: s.executed_at!, supersedes: null };
  }
  if (e.instrument_in_force_id !== null && e.status !== 'terminated') {
    const inForce = await instrumentState(p, e.org, e.instrument_in_force_id);
    if (inForce.superseded_by !== null) {
      const v = await instrumentState(p, e.org, inForce.superseded_by);
      if (v.status === 'executed' || v.status === 'superseded') return { instrument_id: v.id, executed_at: v.executed_at!, supersedes: inForce.id };
    }
  }
  return undefined;
}

/**
 * The engagement with every execution of its instruments recorded. Executing an instrument moves
 * its engagement by reaction to instrument.executed (engagement.ts), off the request path of
 * execute (docs/gaps.md#engagements); whatever reads or moves the engagement takes it from here, so
 * none reads or acts on the engagement as it stood before an execution already answered. The move
 * made here is the reaction's own (same command, same event), which then finds it made.
 */
export async function engagementNow(p: Platform, org: string, id: string): Promise<EngagementState> {
  let e = await engagementState(p, org, id);
  // a variation of a variation executed before either reaction ran takes one move each
  for (let move = await unrecordedExecution(p, e); move !== undefined; move = await unrecordedExecution(p, e)) {
    await p.system.ask(Engagement, id, 'instrument_executed', move, { org, principal: 'system', noReply: true });
    e = await engagementState(p, org, id);
  }
  return e;
}

/** The instrument, if it belongs to the engagement in the path; 404 otherwise. */
export async function instrumentOf(p: Platform, org: string, engagementId: string, instrumentId: string): Promise<InstrumentState> {
  const s = await instrumentState(p, org, instrumentId);
  if (s.engagement_id !== engagementId) throw new ApiError('not_found', `No instrument with id ${instrumentId} on engagement ${engagementId}.`);
  return s;
}

/** The engagement as it stood at the end of a date (UTC), folded from its journal (spec 2.6 as_of). */
export async function engagementAsOf(p: Platform, org: string, id: string, date: string): Promise<EngagementState> {
  const now = await engagementNow(p, org, id); // 404 / 403 as for a plain read; executions recorded
  const cutoff = Date.parse(`${date}T00:00:00.000Z`) + DAY;
  const events = await actorEvents(p, Engagement, id);
  let s: EngagementState | undefined;
  for (const ev of events) {
    if (ev.at >= cutoff) break;
    s = Engagement.evolve(s ?? Engagement.initial(id, ev.org), ev.data as never, { at: ev.at, version: ev.version, eventId: ev.id, org: ev.org });
  }
  if (!s) throw new ApiError('not_found', `Engagement ${id} did not exist on ${date}; it was opened on ${dateOf(now.created_at)}.`);
  return s;
}

/** An instrument exactly as its journal holds it now (verification reads the store, not a cached actor). */
export async function storedInstrument(p: Platform, org: string, id: string): Promise<InstrumentState | undefined> {
  const events = await actorEvents(p, Instrument, id);
  if (events.length === 0 || events[0].org !== org) return undefined;
  let s = Instrument.initial(id, org);
  for (const ev of events) s = Instrument.evolve(s, ev.data as never, { at: ev.at, version: ev.version, eventId: ev.id, org: ev.org });
  return s;
}

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
