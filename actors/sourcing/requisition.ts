/**
 * Requisition. Spec 2.7 (Requisition, QuarantineFinding), 3 (Requisition), 4.6, 9 (versions).
 *
 * The operations (requisitions.ts) infer the fields a caller leaves out and screen every text with
 * the fair-hiring pack before they ask; this file holds only the rules. "rest" below is where a
 * requisition settles once nothing holds it: quarantined when its screening has a blocking
 * finding, else pending_confirmation while a field that blocks publish (compensation, headcount,
 * location, start date) is inferred and unconfirmed, else draft (published when it already was,
 * for an edit).
 *
 * status                command              condition                                  event                              next
 * --------------------  -------------------  -----------------------------------------  ---------------------------------  ---------------------
 * (none)                create               -                                          requisition.created                rest
 * not closed, not       edit                 current version not yet broadcast          requisition.updated                rest
 *   under_review        edit                 current version broadcast                  requisition.versioned (version+1)  rest
 * not closed            confirm_inferences   every field named is in inferred_fields    requisition.inferences_confirmed   rest (ready to publish)
 * draft                 publish              -                                          requisition.published              published
 * pending_confirmation  publish              -                                          409 conflict (names the fields)    -
 * quarantined,          publish              -                                          409 conflict                       -
 *   under_review,
 *   published, closed
 * not closed,           quarantine           a person's finding                         requisition.quarantined            quarantined
 *   not quarantined,
 *   not under_review
 * quarantined           contest              finding not yet contested                  requisition.contested              under_review
 * under_review          adjudicate           upheld                                     requisition.quarantine_upheld      quarantined
 * under_review          adjudicate           released                                   requisition.quarantine_released    rest (never published)
 * any                   record_broadcast     broadcast not yet recorded                 requisition.broadcast_recorded     unchanged
 * not closed            close                -                                          requisition.closed                 closed
 * otherwise             any                  -                                          409 conflict
 *
 * Versions (spec 3, 9): before the first broadcast an edit changes the current version in place;
 * once a version has been broadcast, an edit makes a new version and the old one stays readable
 * (GET ?version=). Leads keep the version of the broadcast they answered.
 */
import { defineActor, type IndexEntry, iso, sortKeyTime } from '../../runtime/index.ts';
import { ApiError, assertNever, conflict, errorEntry, recordView } from '../../kernel/index.ts';
import type { ScreeningFinding } from './fair-hiring.ts';
import { REQUISITION_PREFIX } from './ids.ts';
import { blocksPublish, type Compensation, type EmploymentType, type Location } from './taxonomy.ts';

export const REQUISITION_STATUSES = ['pending_confirmation', 'draft', 'under_review', 'quarantined', 'published', 'closed'] as const;
export type RequisitionStatus = (typeof REQUISITION_STATUSES)[number];

/** Versions kept per requisition (each edit after a broadcast adds one). */
export const MAX_VERSIONS = 200;

/** What a lead is screened against (docs/gaps.md#sourcing). */
export interface Requirements {
  min_experience_years: number | null;
  skills: string[];
  licences: string[];
  within_state: boolean;
  notes: string | null;
}

/** Caller-edited artefact texts; absent ones are generated from the requisition (artefacts.ts). */
export interface ArtefactOverrides {
  advert: string | null;
  variants: Record<string, string>;
}

/** The content of one version. */
export interface Content {
  job_title: string;
  occupation_code: string | null;
  /** How sure the inference of occupation_code was (kept once it is accepted); null when the caller gave or corrected the code (absent in versions made before it was kept). */
  occupation_confidence?: number | null;
  employment_type: EmploymentType | null;
  headcount: number;
  compensation: Compensation | null;
  location: Location | null;
  starts_on: string | null;
  description: string | null;
  requirements: Requirements;
  artefacts: ArtefactOverrides;
}

export interface Screening {
  rule_pack_version: string;
  rule_pack_hash: string;
  findings: ScreeningFinding[];
}

/** Spec 2.7 QuarantineFinding. */
export interface QuarantineFinding {
  rule_code: string;
  rule_pack_version: string;
  detail: string;
  contested: boolean;
  offending_text: string;
}

export interface QuarantineReview {
  finding: QuarantineFinding;
  contested_by: string;
  contested_at: string;
  contest_reason: string;
  outcome: 'upheld' | 'released' | null;
  decided_by: string | null;
  decided_at: string | null;
  reason: string | null;
}

export interface VersionRecord {
  version: number;
  content: Content;
  /** Inferred and not yet confirmed (spec 2.7 inferred_fields). */
  inferred_fields: string[];
  screening: Screening;
  broadcast: boolean;
  created_at: number;
}

export interface RequisitionState {
  id: string;
  org: string;
  livemode: boolean;
  status: RequisitionStatus;
  versions: VersionRecord[];
  quarantine: QuarantineFinding | null;
  reviews: QuarantineReview[];
  broadcast_ids: string[];
  published_at: number | null;
  closed_at: number | null;
  created_at: number;
  updated_at: number;
}

/** What the operations hand the actor for a create or an edit. */
export interface Prepared {
  content: Content;
  inferred_fields: string[];
  screening: Screening;
}

export interface Confirmation {
  field: string;
  accepted: boolean;
  /** The corrected value, already parsed (requisitions.ts); undefined when accepted. */
  value?: unknown;
}

export type RequisitionEvent =
  | ({ type: 'requisition.created'; livemode: boolean; status: RequisitionStatus; quarantine: QuarantineFinding | null } & Prepared)
  | ({ type: 'requisition.updated'; status: RequisitionStatus; quarantine: QuarantineFinding | null } & Prepared)
  | ({ type: 'requisition.versioned'; version: number; status: RequisitionStatus; quarantine: QuarantineFinding | null } & Prepared)
  | { type: 'requisition.inferences_confirmed'; confirmations: Array<{ field: string; accepted: boolean; value: unknown }>; content: Content; inferred_fields: string[]; new_version: boolean; status: RequisitionStatus }
  | { type: 'requisition.published'; version: number }
  | { type: 'requisition.quarantined'; finding: QuarantineFinding; by: string }
  | { type: 'requisition.contested'; review: QuarantineReview }
  | { type: 'requisition.quarantine_upheld'; review: QuarantineReview }
  | { type: 'requisition.quarantine_released'; review: QuarantineReview; status: RequisitionStatus }
  | { type: 'requisition.broadcast_recorded'; broadcast_id: string; version: number }
  | { type: 'requisition.closed'; reason: string | null };

export const current = (s: RequisitionState): VersionRecord => s.versions[s.versions.length - 1];

/** The first blocking finding, in the pack's precedence order, as spec 2.7's QuarantineFinding. */
export function quarantineOf(screening: Screening): QuarantineFinding | null {
  const f = screening.findings.find((x) => x.severity === 'block');
  return f ? { rule_code: f.rule_code, rule_pack_version: screening.rule_pack_version, detail: f.detail, contested: false, offending_text: f.offending_text } : null;
}

const unconfirmedBlocking = (inferred: readonly string[]) => inferred.filter(blocksPublish);

/** Where a requisition settles once nothing holds it (see the table). */
function rest(quarantine: QuarantineFinding | null, inferred: readonly string[], published: boolean): RequisitionStatus {
  if (quarantine) return 'quarantined';
  if (unconfirmedBlocking(inferred).length) return 'pending_confirmation';
  return published ? 'published' : 'draft';
}

const refuse = (s: RequisitionState, what: string) => conflict(`Requisition ${s.id} is ${s.status}; it cannot ${what}.`);

/** Applies confirmations to content; each value has been parsed for its field. */
function applyConfirmation(c: Content, field: string, value: unknown): Content {
  switch (field) {
    case 'occupation_code':
      return { ...c, occupation_code: value as string | null, occupation_confidence: null };
    case 'employment_type':
      return { ...c, employment_type: value as EmploymentType };
    case 'headcount':
      return { ...c, headcount: value as number };
    case 'starts_on':
      return { ...c, starts_on: value as string | null };
    case 'compensation.period':
      return c.compensation ? { ...c, compensation: { ...c.compensation, period: value as Compensation['period'] } } : c;
    case 'location.state':
      return c.location ? { ...c, location: { ...c.location, state: value as string | null } } : c;
    default:
      throw new ApiError('validation_failed', `${field} cannot be confirmed.`);
  }
}

const review = (s: RequisitionState): QuarantineReview | undefined => s.reviews[s.reviews.length - 1];

export const Requisition = defineActor({
  kind: 'sourcing_requisition',
  prefix: REQUISITION_PREFIX,
  creates: ['create'],
  initial: (id: string, org: string): RequisitionState => ({
    id, org, livemode: false, status: 'draft', versions: [], quarantine: null, reviews: [], broadcast_ids: [], published_at: null, closed_at: null, created_at: 0, updated_at: 0,
  }),
  decide: {
    create(_s: RequisitionState, cmd: Prepared & { livemode: boolean }, ctx): RequisitionEvent[] {
      if (ctx.version > 0) return [];
      const quarantine = quarantineOf(cmd.screening);
      return [{ type: 'requisition.created', livemode: cmd.livemode, content: cmd.content, inferred_fields: cmd.inferred_fields, screening: cmd.screening, quarantine, status: rest(quarantine, cmd.inferred_fields, false) }];
    },
    edit(s: RequisitionState, cmd: Prepared): RequisitionEvent[] {
      if (s.status === 'closed') throw refuse(s, 'be edited');
      if (s.status === 'under_review') throw refuse(s, 'be edited while its quarantine is being reviewed');
      const quarantine = quarantineOf(cmd.screening);
      const status = rest(quarantine, cmd.inferred_fields, s.status === 'published');
      const cur = current(s);
      if (!cur.broadcast) return [{ type: 'requisition.updated', ...cmd, quarantine, status }];
      if (s.versions.length >= MAX_VERSIONS) throw conflict(`Requisition ${s.id} has ${MAX_VERSIONS} versions; open a new requisition.`);
      return [{ type: 'requisition.versioned', version: cur.version + 1, ...cmd, quarantine, status }];
    },
    confirm_inferences(s: RequisitionState, cmd: { confirmations: Confirmation[] }): RequisitionEvent[] {
      if (s.status === 'closed') throw refuse(s, 'confirm inferences');
      const cur = current(s);
      const entries = cmd.confirmations.flatMap((c, i) =>
        cur.inferred_fields.includes(c.field)
          ? []
          : [errorEntry(`/confirmations/${i}/field`, 'not_inferred', `${c.field} is not in inferred_fields (${cur.inferred_fields.join(', ') || 'none'}).`, i + 1)],
      );
      if (entries.length) throw new ApiError('validation_failed', entries[0].detail, { validation: { entry_count: cmd.confirmations.length, error_count: entries.length, warning_count: 0, entries } });
      let content = cur.content;
      let changed = false;
      for (const c of cmd.confirmations) {
        if (c.accepted) continue;
        content = applyConfirmation(content, c.field, c.value);
        changed = true;
      }
      const named = new Set(cmd.confirmations.map((c) => c.field));
      const inferred_fields = cur.inferred_fields.filter((f) => !named.has(f));
      const new_version = changed && cur.broadcast;
      if (new_version && s.versions.length >= MAX_VERSIONS) throw conflict(`Requisition ${s.id} has ${MAX_VERSIONS} versions; open a new requisition.`);
      return [{
        type: 'requisition.inferences_confirmed',
        confirmations: cmd.confirmations.map((c) => ({ field: c.field, accepted: c.accepted, value: c.accepted ? null : (c.value ?? null) })),
        content, inferred_fields, new_version,
        status: s.status === 'quarantined' || s.status === 'under_review' ? s.status : rest(null, inferred_fields, s.status === 'published'),
      }];
    },
    publish(s: RequisitionState): RequisitionEvent[] {
      switch (s.status) {
        case 'draft':
          return [{ type: 'requisition.published', version: current(s).version }];
        case 'pending_confirmation': {
          const fields = unconfirmedBlocking(current(s).inferred_fields);
          throw conflict(`Requisition ${s.id} is pending_confirmation: ${fields.join(', ')} ${fields.length === 1 ? 'is' : 'are'} inferred and unconfirmed; confirm them with confirm_inferences first.`);
        }
        case 'quarantined':
          throw conflict(`Requisition ${s.id} is quarantined (${s.quarantine?.rule_code}); edit the text or contest the finding.`);
        case 'under_review':
        case 'published':
        case 'closed':
          throw refuse(s, 'be published');
        default:
          return assertNever(s.status);
      }
    },
    quarantine(s: RequisitionState, cmd: { finding: QuarantineFinding }, ctx): RequisitionEvent[] {
      if (s.status === 'closed' || s.status === 'quarantined' || s.status === 'under_review') throw refuse(s, 'be quarantined');
      return [{ type: 'requisition.quarantined', finding: cmd.finding, by: ctx.principal ?? 'unknown' }];
    },
    contest(s: RequisitionState, cmd: { reason: string }, ctx): RequisitionEvent[] {
      if (s.status !== 'quarantined' || !s.quarantine) throw refuse(s, 'be contested');
      if (s.quarantine.contested) throw conflict(`The quarantine of ${s.id} (${s.quarantine.rule_code}) was contested and upheld; edit the text to clear it.`);
      const finding = { ...s.quarantine, contested: true };
      return [{
        type: 'requisition.contested',
        review: { finding, contested_by: ctx.principal ?? 'unknown', contested_at: iso(ctx.now), contest_reason: cmd.reason, outcome: null, decided_by: null, decided_at: null, reason: null },
      }];
    },
    adjudicate(s: RequisitionState, cmd: { outcome: 'upheld' | 'released'; reason: string }, ctx): RequisitionEvent[] {
      const r = review(s);
      if (s.status !== 'under_review' || !r) throw refuse(s, 'be adjudicated');
      const decided = { ...r, outcome: cmd.outcome, decided_by: ctx.principal ?? 'unknown', decided_at: iso(ctx.now), reason: cmd.reason };
      if (cmd.outcome === 'upheld') return [{ type: 'requisition.quarantine_upheld', review: decided }];
      return [{ type: 'requisition.quarantine_released', review: decided, status: rest(null, current(s).inferred_fields, false) }];
    },
    record_broadcast(s: RequisitionState, cmd: { broadcast_id: string; version: number }): RequisitionEvent[] {
      if (s.broadcast_ids.includes(cmd.broadcast_id)) return [];
      return [{ type: 'requisition.broadcast_recorded', broadcast_id: cmd.broadcast_id, version: cmd.version }];
    },
    close(s: RequisitionState, cmd: { reason?: string | null }): RequisitionEvent[] {
      if (s.status === 'closed') throw refuse(s, 'be closed');
      return [{ type: 'requisition.closed', reason: cmd.reason ?? null }];
    },
  },
  evolve(s: RequisitionState, e: RequisitionEvent, meta): RequisitionState {
    const at = meta.at;
    switch (e.type) {
      case 'requisition.created':
        return {
          ...s, livemode: e.livemode, status: e.status, quarantine: e.quarantine, created_at: at, updated_at: at,
          versions: [{ version: 1, content: e.content, inferred_fields: e.inferred_fields, screening: e.screening, broadcast: false, created_at: at }],
        };
      case 'requisition.updated': {
        const cur = current(s);
        return { ...s, status: e.status, quarantine: e.quarantine, updated_at: at, versions: [...s.versions.slice(0, -1), { ...cur, content: e.content, inferred_fields: e.inferred_fields, screening: e.screening }] };
      }
      case 'requisition.versioned':
        return { ...s, status: e.status, quarantine: e.quarantine, updated_at: at, versions: [...s.versions, { version: e.version, content: e.content, inferred_fields: e.inferred_fields, screening: e.screening, broadcast: false, created_at: at }] };
      case 'requisition.inferences_confirmed': {
        const cur = current(s);
        const next: VersionRecord = e.new_version
          ? { ...cur, version: cur.version + 1, content: e.content, inferred_fields: e.inferred_fields, broadcast: false, created_at: at }
          : { ...cur, content: e.content, inferred_fields: e.inferred_fields };
        return { ...s, status: e.status, updated_at: at, versions: e.new_version ? [...s.versions, next] : [...s.versions.slice(0, -1), next] };
      }
      case 'requisition.published':
        return { ...s, status: 'published', published_at: s.published_at ?? at, updated_at: at };
      case 'requisition.quarantined':
        return { ...s, status: 'quarantined', quarantine: e.finding, updated_at: at };
      case 'requisition.contested':
        return { ...s, status: 'under_review', quarantine: e.review.finding, reviews: [...s.reviews, e.review], updated_at: at };
      case 'requisition.quarantine_upheld':
        return { ...s, status: 'quarantined', reviews: [...s.reviews.slice(0, -1), e.review], updated_at: at };
      case 'requisition.quarantine_released':
        return { ...s, status: e.status, quarantine: null, reviews: [...s.reviews.slice(0, -1), e.review], updated_at: at };
      case 'requisition.broadcast_recorded':
        return {
          ...s,
          broadcast_ids: [...s.broadcast_ids, e.broadcast_id],
          versions: s.versions.map((v) => (v.version === e.version && !v.broadcast ? { ...v, broadcast: true } : v)),
        };
      case 'requisition.closed':
        return { ...s, status: 'closed', closed_at: at, updated_at: at };
      default:
        return assertNever(e);
    }
  },
  view: (s: RequisitionState) => requisitionView(s),
  indexes(s: RequisitionState): IndexEntry[] {
    const k = sortKeyTime(s.created_at);
    return [
      { list: 'all', sortKey: k },
      { list: `status:${s.status}`, sortKey: k },
    ];
  },
});

/** Spec 2.7 Requisition at a version (the current one by default), plus our documented fields. */
export function requisitionView(s: RequisitionState, version?: number) {
  const v = version === undefined ? current(s) : s.versions.find((x) => x.version === version);
  if (!v) throw new ApiError('not_found', `Requisition ${s.id} has no version ${version}; versions 1 to ${current(s).version}.`);
  const c = v.content;
  const latest = v === current(s);
  return recordView('requisition', s.id, s.livemode, false, {
    status: s.status,
    version: v.version,
    latest_version: current(s).version,
    job_title: c.job_title,
    occupation_code: c.occupation_code,
    occupation_confidence: c.occupation_confidence ?? null,
    employment_type: c.employment_type,
    headcount: c.headcount,
    compensation: c.compensation,
    location: c.location,
    starts_on: c.starts_on,
    description: c.description,
    requirements: c.requirements,
    inferred_fields: v.inferred_fields,
    quarantine: latest ? s.quarantine : quarantineOf(v.screening),
    warnings: v.screening.findings.filter((f) => f.severity === 'warn'),
    screening: { rule_pack_version: v.screening.rule_pack_version, rule_pack_hash: v.screening.rule_pack_hash, finding_count: v.screening.findings.length, findings: v.screening.findings },
    quarantine_reviews: s.reviews,
    broadcast: v.broadcast,
    version_created_at: iso(v.created_at),
    published_at: s.published_at === null ? null : iso(s.published_at),
    closed_at: s.closed_at === null ? null : iso(s.closed_at),
    created_at: iso(s.created_at),
  });
}
