/**
 * Engagement (engagements). Spec 1 rule 4, 2.6 Engagement, 3 (Engagement), 4.5, 6. The legal
 * standing of a working relationship. The spec names the states and the operations (classify,
 * paper, execute, register, activate, lapse, dispute, terminate) but not the transitions; these
 * are ours (docs/gaps.md#engagements), kept to its rules: classification alone confers no rights
 * (classified and papered are never current); an unexecuted instrument binds no one (execute
 * follows only a sealed instrument); both parties need a live passport before anything executes
 * or activates (checked by the operation, passed in as `passports`).
 *
 * status                      command               condition                                              event                         next
 * --------------------------  --------------------  -----------------------------------------------------  ----------------------------  ----------------
 * (none)                      open                  facts whole (classified at once: there is no status    engagement.opened,            classified
 *                                                   before classified)                                     engagement.classified
 * classified                  classify              facts whole                                            engagement.classified         classified
 * classified, lapsed*         paper                 instrument drafted for this engagement; its template   engagement.papered            papered
 *                                                   may paper the classification (*no instrument in force)
 * papered                     paper                 another instrument (the first expired or withdrawn)    engagement.papered            papered
 * papered                     instrument_executed   the papered instrument was sealed (by reaction to      engagement.executed           executed
 *                                                   instrument.executed, or by an operation that reads the
 *                                                   engagement before the reaction ran: reads.ts)
 * disputed (from papered)     instrument_executed   the papered instrument was sealed before the dispute   engagement.executed           disputed (returns
 *                                                   was recorded                                                                         to executed)
 * executed|registered|current instrument_executed   a variation superseding the one in force was sealed    engagement.instrument_replaced (same)
 * any with one in force       instrument_executed   an execution recorded before (a late reaction)          -                             (same)
 * papered                     instrument_expired    the papered instrument expired unexecuted              engagement.lapsed             lapsed
 * executed                    register              attestations the pack requires for the class          engagement.registered         registered
 * executed|registered|lapsed  activate              both passports live; registered if the class needs    engagement.activated          current
 *                                                   it; starts_on reached; ends_on not passed; in force
 * executed|registered|current lapse                 -                                                      engagement.lapsed             lapsed
 * executed|registered|current lapse_for_passport    a party's passport stopped being live                  engagement.lapsed             lapsed
 * executed|registered|current term_ended            reminder at the end of ends_on                         engagement.lapsed             lapsed
 * any but terminated          dispute               -                                                      engagement.disputed           disputed
 * disputed                    resolve_dispute       the dispute is open; last open one returns the status  engagement.dispute_resolved   previous (lapsed
 *                                                   held before (lapsed when a standing one lost a party's                               if a passport
 *                                                   passport meanwhile)                                                                  went)
 * any but terminated          terminate             -                                                      engagement.terminated         terminated
 * any but terminated          attest                -                                                      engagement.attested           (same)
 * anything else               any                   -                                                      409 conflict
 *
 * Every event carries `status` (the status after it) and the parties, so a read model fed by the
 * journal alone (standing.ts, in a cluster) needs nothing else.
 */
import { defineActor, type IndexEntry, sortKeyTime, type TimerWish } from '../../runtime/index.ts';
import { ApiError, assertNever, recordView } from '../../kernel/index.ts';
import type { ClassificationRecord } from './classify.ts';
import { HOW_TO_GET_A_PASSPORT } from '../identity/index.ts';
import { dateOf, endOfDate, ENGAGEMENT_PREFIX, envelopeId } from './ids.ts';
import type { EmployerFacts } from './obligation-lines.ts';
import type { Classification } from './packs.ts';

export const ENGAGEMENT_STATUSES = ['classified', 'papered', 'executed', 'registered', 'current', 'lapsed', 'disputed', 'terminated'] as const;
export type EngagementStatus = (typeof ENGAGEMENT_STATUSES)[number];

/** Statuses in which an engagement has standing that can lapse. */
const STANDING: readonly EngagementStatus[] = ['executed', 'registered', 'current'];

export const LAPSE_REASONS = ['requested', 'passport_not_live', 'term_ended', 'instrument_expired'] as const;
export type LapseReason = (typeof LAPSE_REASONS)[number];

export const ATTESTATION_KINDS = ['labour_officer', 'medical_fitness', 'age_evidence', 'guardian_consent', 'witness', 'other'] as const;
export type AttestationKind = (typeof ATTESTATION_KINDS)[number];

export const DISPUTE_PARTIES = ['worker', 'engaging_party', 'authority'] as const;
/** Who ends an engagement (terminate's terminated_by). */
export const TERMINATING_PARTIES = ['engaging_party', 'worker', 'mutual', 'authority'] as const;
export const DISPUTE_OUTCOMES = ['upheld', 'dismissed', 'withdrawn'] as const;

export interface Attestation {
  id: string;
  object: 'engagement_attestation';
  engagement_id: string;
  kind: AttestationKind;
  reference: string;
  attested_by: string;
  attested_on: string;
  note: string | null;
  recorded_at: string;
}

export interface Dispute {
  id: string;
  object: 'engagement_dispute';
  engagement_id: string;
  status: 'open' | 'resolved';
  raised_by: (typeof DISPUTE_PARTIES)[number];
  reason: string;
  contests_classification: boolean;
  opened_at: string;
  resolution: { outcome: (typeof DISPUTE_OUTCOMES)[number]; note: string; resolved_at: string; resolved_by: string } | null;
}

export interface Lapse {
  reason: LapseReason;
  detail: string;
  at: string;
  subject_ref: string | null;
  passport_id: string | null;
}

export interface EngagementState {
  id: string;
  org: string;
  livemode: boolean;
  status: EngagementStatus;
  engaging_party_ref: string;
  worker_ref: string;
  starts_on: string;
  ends_on: string | null;
  employer: EmployerFacts;
  classification: ClassificationRecord | null;
  classification_count: number;
  classification_contested: boolean;
  papered_instrument_id: string | null;
  instrument_in_force_id: string | null;
  registration_reference: string | null;
  status_before_dispute: EngagementStatus | null;
  lapse: Lapse | null;
  terminated: { reason: string; terminated_by: string; at: string } | null;
  attestations: Attestation[];
  disputes: Dispute[];
  created_at: number;
}

interface Parties {
  status: EngagementStatus;
  livemode: boolean;
  worker_ref: string;
  engaging_party_ref: string;
}

export type EngagementEvent =
  | ({ type: 'engagement.opened'; starts_on: string; ends_on: string | null; employer: EmployerFacts } & Parties)
  | ({ type: 'engagement.classified'; record: ClassificationRecord } & Parties)
  | ({ type: 'engagement.papered'; instrument_id: string; template_code: string } & Parties)
  | ({ type: 'engagement.executed'; instrument_id: string; executed_at: string } & Parties)
  | ({ type: 'engagement.instrument_replaced'; instrument_id: string; replaces: string | null; executed_at: string } & Parties)
  | ({ type: 'engagement.registered'; registration_reference: string | null } & Parties)
  | ({ type: 'engagement.activated'; reinstated: boolean } & Parties)
  | ({ type: 'engagement.lapsed'; lapse: Lapse } & Parties)
  | ({ type: 'engagement.disputed'; dispute: Dispute; before: EngagementStatus } & Parties)
  | ({ type: 'engagement.dispute_resolved'; dispute_id: string; resolution: NonNullable<Dispute['resolution']>; lapse: Lapse | null } & Parties)
  | ({ type: 'engagement.terminated'; reason: string; terminated_by: string } & Parties)
  | ({ type: 'engagement.attested'; attestation: Attestation } & Parties);

/** Whether each party's passport is live at the moment of acting (identity gate, read by the operation). */
export interface Passports {
  worker: { live: boolean; passport_id: string | null };
  engaging_party: { live: boolean; passport_id: string | null };
}

export interface OpenCommand {
  engaging_party_ref: string;
  worker_ref: string;
  starts_on: string;
  ends_on: string | null;
  employer: EmployerFacts;
  record: ClassificationRecord;
  livemode: boolean;
}

const iso = (ms: number) => new Date(ms).toISOString();

function refuseUnless(s: EngagementState, allowed: readonly EngagementStatus[], what: string): void {
  if (!allowed.includes(s.status)) throw new ApiError('conflict', `Engagement ${s.id} is ${s.status}; ${what} needs it ${allowed.join(' or ')}.`);
}

export function missingPassports(p: Passports, s: { worker_ref: string; engaging_party_ref: string }): string | null {
  const missing = [
    !p.worker.live ? `the worker's (${s.worker_ref})` : null,
    !p.engaging_party.live ? `the engaging party's (${s.engaging_party_ref})` : null,
  ].filter(Boolean);
  return missing.length ? `${missing.join(' and ')} passport ${missing.length > 1 ? 'are' : 'is'} not live; both parties need a live passport (spec 3). ${HOW_TO_GET_A_PASSPORT}` : null;
}

export const Engagement = defineActor({
  kind: 'engagements_engagement',
  prefix: ENGAGEMENT_PREFIX,
  creates: ['open'],
  initial: (id: string, org: string): EngagementState => ({
    id,
    org,
    livemode: false,
    status: 'classified',
    engaging_party_ref: '',
    worker_ref: '',
    starts_on: '',
    ends_on: null,
    employer: { headcount: null, annual_turnover_at_least_50m: null, sector: null },
    classification: null,
    classification_count: 0,
    classification_contested: false,
    papered_instrument_id: null,
    instrument_in_force_id: null,
    registration_reference: null,
    status_before_dispute: null,
    lapse: null,
    terminated: null,
    attestations: [],
    disputes: [],
    created_at: 0,
  }),
  decide: {
    open(_s: EngagementState, cmd: OpenCommand, ctx): EngagementEvent[] {
      if (ctx.version > 0) return [];
      const parties = { status: 'classified' as const, livemode: cmd.livemode, worker_ref: cmd.worker_ref, engaging_party_ref: cmd.engaging_party_ref };
      return [
        { type: 'engagement.opened', ...parties, starts_on: cmd.starts_on, ends_on: cmd.ends_on, employer: cmd.employer },
        { type: 'engagement.classified', ...parties, record: cmd.record },
      ];
    },
    classify(s: EngagementState, cmd: { record: ClassificationRecord }): EngagementEvent[] {
      refuseUnless(s, ['classified'], 'classify (after papering, a change of facts is a dispute or a variation)');
      const record = s.classification_contested && !cmd.record.contested ? { ...cmd.record, contested: true, review_required: true, review_reasons: [...new Set([...cmd.record.review_reasons, 'contested'])] } : cmd.record;
      return [{ type: 'engagement.classified', ...parties(s, 'classified'), record }];
    },
    paper(s: EngagementState, cmd: { instrument_id: string; template_code: string }): EngagementEvent[] {
      if (s.status === 'papered' && s.papered_instrument_id === cmd.instrument_id) return [];
      if (s.status === 'lapsed' && s.instrument_in_force_id !== null) throw new ApiError('conflict', `Engagement ${s.id} has an instrument in force; a change is a variation (POST .../instruments/{instrument_id}/supersede).`);
      refuseUnless(s, ['classified', 'papered', 'lapsed'], 'paper');
      return [{ type: 'engagement.papered', ...parties(s, 'papered'), instrument_id: cmd.instrument_id, template_code: cmd.template_code }];
    },
    instrument_executed(s: EngagementState, cmd: { instrument_id: string; executed_at: string; supersedes: string | null }): EngagementEvent[] {
      if (s.instrument_in_force_id === cmd.instrument_id) return [];
      if (s.status === 'papered' && s.papered_instrument_id === cmd.instrument_id) {
        return [{ type: 'engagement.executed', ...parties(s, 'executed'), instrument_id: cmd.instrument_id, executed_at: cmd.executed_at }];
      }
      // executed before the dispute was recorded (the move comes by reaction): the dispute stands and resolving it returns to executed
      if (s.status === 'disputed' && s.status_before_dispute === 'papered' && s.papered_instrument_id === cmd.instrument_id) {
        return [{ type: 'engagement.executed', ...parties(s, 'disputed'), instrument_id: cmd.instrument_id, executed_at: cmd.executed_at }];
      }
      if (cmd.supersedes !== null && cmd.supersedes === s.instrument_in_force_id && s.status !== 'terminated') {
        return [{ type: 'engagement.instrument_replaced', ...parties(s, s.status), instrument_id: cmd.instrument_id, replaces: cmd.supersedes, executed_at: cmd.executed_at }];
      }
      // an execution recorded before and since moved past (a later variation in force): a late reaction, nothing to do
      if (s.instrument_in_force_id !== null) return [];
      throw new ApiError('conflict', `Engagement ${s.id} is ${s.status} and instrument ${cmd.instrument_id} is neither its papered instrument nor a variation of the one in force.`);
    },
    instrument_expired(s: EngagementState, cmd: { instrument_id: string }, ctx): EngagementEvent[] {
      if (s.status !== 'papered' || s.papered_instrument_id !== cmd.instrument_id) return [];
      const lapse: Lapse = { reason: 'instrument_expired', detail: `Instrument ${cmd.instrument_id} passed its expires_at unexecuted.`, at: iso(ctx.now), subject_ref: null, passport_id: null };
      return [{ type: 'engagement.lapsed', ...parties(s, 'lapsed'), lapse }];
    },
    register(s: EngagementState, cmd: { registration_reference: string | null; required_attestations: string[] }): EngagementEvent[] {
      refuseUnless(s, ['executed'], 'register');
      const have = new Set(s.attestations.map((a) => a.kind));
      const missing = cmd.required_attestations.filter((k) => !have.has(k as AttestationKind));
      if (missing.length) throw new ApiError('conflict', `A ${s.classification?.classification} engagement registers only with attestations ${missing.join(', ')} on record (POST .../attestations; Labour Act s.50).`);
      return [{ type: 'engagement.registered', ...parties(s, 'registered'), registration_reference: cmd.registration_reference }];
    },
    activate(s: EngagementState, cmd: { passports: Passports; registration_required: boolean }, ctx): EngagementEvent[] {
      if (s.status === 'current') return [];
      refuseUnless(s, ['executed', 'registered', 'lapsed'], 'activate');
      if (s.instrument_in_force_id === null) throw new ApiError('conflict', `Engagement ${s.id} has no executed instrument; an unexecuted instrument binds no one (spec 3).`);
      if (s.status === 'executed' && cmd.registration_required) throw new ApiError('conflict', `A ${s.classification?.classification} engagement must be registered before it is activated (POST .../register).`);
      if (s.status === 'lapsed' && s.lapse?.reason === 'term_ended') throw new ApiError('conflict', `Engagement ${s.id} ended on ${s.ends_on}; a new term is a new engagement.`);
      const missing = missingPassports(cmd.passports, s);
      if (missing) throw new ApiError('conflict', `Engagement ${s.id} cannot be activated: ${missing}.`);
      const today = dateOf(ctx.now);
      if (today < s.starts_on) throw new ApiError('conflict', `Engagement ${s.id} starts on ${s.starts_on}; it can be activated from that date.`);
      if (s.ends_on !== null && today > s.ends_on) throw new ApiError('conflict', `Engagement ${s.id} ended on ${s.ends_on}.`);
      return [{ type: 'engagement.activated', ...parties(s, 'current'), reinstated: s.status === 'lapsed' }];
    },
    lapse(s: EngagementState, cmd: { reason: string }, ctx): EngagementEvent[] {
      refuseUnless(s, STANDING, 'lapse');
      return [{ type: 'engagement.lapsed', ...parties(s, 'lapsed'), lapse: { reason: 'requested', detail: cmd.reason, at: iso(ctx.now), subject_ref: null, passport_id: null } }];
    },
    lapse_for_passport(s: EngagementState, cmd: { subject_ref: string; passport_id: string; reasons: string[] }, ctx): EngagementEvent[] {
      if (!STANDING.includes(s.status)) return [];
      const who = cmd.subject_ref === s.worker_ref ? 'worker' : 'engaging party';
      const lapse: Lapse = { reason: 'passport_not_live', detail: `The ${who}'s passport ${cmd.passport_id} stopped being live (${cmd.reasons.join(', ') || 'ended'}).`, at: iso(ctx.now), subject_ref: cmd.subject_ref, passport_id: cmd.passport_id };
      return [{ type: 'engagement.lapsed', ...parties(s, 'lapsed'), lapse }];
    },
    term_ended(s: EngagementState, _cmd: unknown, ctx): EngagementEvent[] {
      if (!STANDING.includes(s.status) || s.ends_on === null || ctx.now < endOfDate(s.ends_on)) return [];
      return [{ type: 'engagement.lapsed', ...parties(s, 'lapsed'), lapse: { reason: 'term_ended', detail: `The term ended on ${s.ends_on}.`, at: iso(ctx.now), subject_ref: null, passport_id: null } }];
    },
    dispute(s: EngagementState, cmd: { dispute_id: string; raised_by: Dispute['raised_by']; reason: string; contests_classification: boolean }, ctx): EngagementEvent[] {
      if (s.disputes.some((d) => d.id === cmd.dispute_id)) return [];
      if (s.status === 'terminated') throw new ApiError('conflict', `Engagement ${s.id} is terminated; a terminated engagement is not disputed here (open a remediation case).`);
      const dispute: Dispute = {
        id: cmd.dispute_id,
        object: 'engagement_dispute',
        engagement_id: s.id,
        status: 'open',
        raised_by: cmd.raised_by,
        reason: cmd.reason,
        contests_classification: cmd.contests_classification,
        opened_at: iso(ctx.now),
        resolution: null,
      };
      return [{ type: 'engagement.disputed', ...parties(s, 'disputed'), dispute, before: s.status === 'disputed' ? s.status_before_dispute! : s.status }];
    },
    resolve_dispute(s: EngagementState, cmd: { dispute_id: string; outcome: (typeof DISPUTE_OUTCOMES)[number]; note: string; passports: Passports }, ctx): EngagementEvent[] {
      const d = s.disputes.find((x) => x.id === cmd.dispute_id);
      if (!d) throw new ApiError('not_found', `No dispute with id ${cmd.dispute_id} on engagement ${s.id}.`);
      if (d.status === 'resolved') throw new ApiError('conflict', `Dispute ${d.id} is resolved; its resolution is never edited.`);
      const resolution = { outcome: cmd.outcome, note: cmd.note, resolved_at: iso(ctx.now), resolved_by: ctx.principal ?? 'unknown' };
      const stillOpen = s.disputes.some((x) => x.status === 'open' && x.id !== d.id);
      let next: EngagementStatus = stillOpen || s.status !== 'disputed' ? s.status : s.status_before_dispute ?? 'classified';
      let lapse: Lapse | null = null;
      const missing = STANDING.includes(next) ? missingPassports(cmd.passports, s) : null;
      if (missing) {
        next = 'lapsed';
        lapse = { reason: 'passport_not_live', detail: `On resolving dispute ${d.id}: ${missing}.`, at: iso(ctx.now), subject_ref: null, passport_id: null };
      }
      return [{ type: 'engagement.dispute_resolved', ...parties(s, next), dispute_id: d.id, resolution, lapse }];
    },
    terminate(s: EngagementState, cmd: { reason: string; terminated_by: string }): EngagementEvent[] {
      if (s.status === 'terminated') throw new ApiError('conflict', `Engagement ${s.id} is already terminated.`);
      return [{ type: 'engagement.terminated', ...parties(s, 'terminated'), reason: cmd.reason, terminated_by: cmd.terminated_by }];
    },
    attest(s: EngagementState, cmd: Omit<Attestation, 'object' | 'engagement_id' | 'recorded_at'>, ctx): EngagementEvent[] {
      if (s.attestations.some((a) => a.id === cmd.id)) return [];
      if (s.status === 'terminated') throw new ApiError('conflict', `Engagement ${s.id} is terminated.`);
      const attestation: Attestation = { ...cmd, object: 'engagement_attestation', engagement_id: s.id, recorded_at: iso(ctx.now) };
      return [{ type: 'engagement.attested', ...parties(s, s.status), attestation }];
    },
  },
  evolve(s: EngagementState, e: EngagementEvent, meta): EngagementState {
    const n: EngagementState = { ...s, status: e.status };
    switch (e.type) {
      case 'engagement.opened':
        return { ...n, engaging_party_ref: e.engaging_party_ref, worker_ref: e.worker_ref, starts_on: e.starts_on, ends_on: e.ends_on, employer: e.employer, livemode: e.livemode, created_at: meta.at };
      case 'engagement.classified':
        return { ...n, classification: e.record, classification_count: s.classification_count + 1 };
      case 'engagement.papered':
        return { ...n, papered_instrument_id: e.instrument_id, lapse: null };
      case 'engagement.executed':
        return { ...n, instrument_in_force_id: e.instrument_id, papered_instrument_id: null, status_before_dispute: e.status === 'disputed' ? 'executed' : s.status_before_dispute };
      case 'engagement.instrument_replaced':
        return { ...n, instrument_in_force_id: e.instrument_id };
      case 'engagement.registered':
        return { ...n, registration_reference: e.registration_reference };
      case 'engagement.activated':
        return { ...n, lapse: null };
      case 'engagement.lapsed':
        return { ...n, lapse: e.lapse };
      case 'engagement.disputed': {
        const contests = e.dispute.contests_classification;
        const c = contests && s.classification ? { ...s.classification, contested: true, review_required: true, review_reasons: [...new Set([...s.classification.review_reasons, 'contested'])] } : s.classification;
        return { ...n, disputes: [...s.disputes, e.dispute], status_before_dispute: e.before, classification: c, classification_contested: s.classification_contested || contests };
      }
      case 'engagement.dispute_resolved':
        return {
          ...n,
          disputes: s.disputes.map((d) => (d.id === e.dispute_id ? { ...d, status: 'resolved' as const, resolution: e.resolution } : d)),
          status_before_dispute: e.status === 'disputed' ? s.status_before_dispute : null,
          lapse: e.lapse ?? s.lapse,
        };
      case 'engagement.terminated':
        return { ...n, terminated: { reason: e.reason, terminated_by: e.terminated_by, at: new Date(meta.at).toISOString() } };
      case 'engagement.attested':
        return { ...n, attestations: [...s.attestations, e.attestation] };
      default:
        return assertNever(e);
    }
  },
  view: (s: EngagementState) => engagementView(s, null),
  timers(s: EngagementState): TimerWish[] {
    if (!STANDING.includes(s.status) || s.ends_on === null) return [];
    return [{ name: 'term', dueAt: endOfDate(s.ends_on), command: 'term_ended' }];
  },
  indexes(s: EngagementState): IndexEntry[] {
    const k = sortKeyTime(s.created_at);
    const out: IndexEntry[] = [
      { list: 'all', sortKey: k },
      { list: `status:${s.status}`, sortKey: k },
    ];
    if (s.classification) {
      out.push({ list: `classification:${s.classification.classification}`, sortKey: k });
      out.push({ list: `status:${s.status}:classification:${s.classification.classification}`, sortKey: k });
    }
    return out;
  },
  reactions: [
    {
      from: 'engagements_instrument',
      events: ['instrument.executed'],
      command: 'instrument_executed',
      target: (e) => {
        const d = e.data as { engagement_id: string; supersedes: string | null; seal: { sealed_at: string } };
        return { id: d.engagement_id, payload: { instrument_id: (e.data as { instrument_id: string }).instrument_id, executed_at: d.seal.sealed_at, supersedes: d.supersedes } };
      },
    },
    {
      from: 'engagements_instrument',
      events: ['instrument.expired'],
      command: 'instrument_expired',
      target: (e) => {
        const d = e.data as { engagement_id: string; instrument_id: string };
        return { id: d.engagement_id, payload: { instrument_id: d.instrument_id } };
      },
    },
    {
      from: 'engagements_party',
      events: ['party.lapse_requested'],
      command: 'lapse_for_passport',
      target: (e) => {
        const d = e.data as { engagement_id: string; subject_ref: string; passport_id: string; reasons: string[] };
        return { id: d.engagement_id, payload: { subject_ref: d.subject_ref, passport_id: d.passport_id, reasons: d.reasons } };
      },
    },
  ],
});

function parties(s: EngagementState, status: EngagementStatus): Parties {
  return { status, livemode: s.livemode, worker_ref: s.worker_ref, engaging_party_ref: s.engaging_party_ref };
}

/** The Engagement record of spec 2.6; `asOf` set when answered as at a past date. */
export function engagementView(s: EngagementState, asOf: string | null) {
  const k: Classification | null = s.classification?.classification ?? null;
  return recordView('engagement', s.id, s.livemode, false, {
    status: s.status,
    engaging_party_ref: s.engaging_party_ref,
    worker_ref: s.worker_ref,
    classification: k,
    classification_review_required: s.classification?.review_required ?? false,
    instrument_in_force_id: s.instrument_in_force_id,
    // the instrument awaiting assents and execution, so whoever papered knows what to assent to
    // (a gap: docs/gaps.md#engagements)
    papered_instrument_id: s.papered_instrument_id,
    envelope_id: s.classification_count > 0 ? envelopeId(s.id, s.classification_count) : null,
    starts_on: s.starts_on,
    ends_on: s.ends_on,
    as_of: asOf,
    created_at: new Date(s.created_at).toISOString(),
  });
}
