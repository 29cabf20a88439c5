/**
 * The engagements operations the routes call (spec 4.5), each a few asks of the area's actors:
 * the checks that need more than one record (the identity gate, the engagement beside its
 * instrument, the clause library) happen here; the rules of one record stay in its actor file.
 */
import { ApiError, type Caller, errorEntry, fieldError, type Platform, type ValidationEntry, validationError } from '../../kernel/index.ts';
import { identityGate } from '../identity/index.ts';
import { checkFacts, classify, type ClassificationRecord, isEmploymentClass } from './classify.ts';
import { type Attestation, type Dispute, Engagement, type EngagementState, engagementView, type OpenCommand, type Passports } from './engagement.ts';
import { dateOf, sealChainId } from './ids.ts';
import { Instrument, type AssentParty, type InstrumentState, instrumentView } from './instrument.ts';
import type { EmployerFacts } from './obligations.ts';
import { clauseLibrary, type Classification, rulePack, type Template } from './packs.ts';
import { type Seal, sealedDocument } from './seal.ts';
import { SealChain } from './seal-chain.ts';

const DAY = 86_400_000;

type InstrumentView = ReturnType<typeof instrumentView>;

/** Both parties' passports at this moment (spec 3: both parties need a live passport). */
export function passportsOf(platform: Platform, org: string, s: { worker_ref: string; engaging_party_ref: string }): Passports {
  const gate = identityGate(platform);
  const w = gate.livePassport(org, s.worker_ref);
  const e = gate.livePassport(org, s.engaging_party_ref);
  return { worker: { live: w !== null, passport_id: w }, engaging_party: { live: e !== null, passport_id: e } };
}

export const engagementState = (p: Platform, org: string, id: string) => p.system.state<EngagementState>(Engagement, id, org);
export const instrumentState = (p: Platform, org: string, id: string) => p.system.state<InstrumentState>(Instrument, id, org);

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

// ------------------------------------------------------------------------------------------------
// Opening and classification

export function classificationOf(facts: unknown, contested: boolean): ClassificationRecord {
  const pack = rulePack()!;
  const bad = checkFacts(pack, facts);
  if (bad.length) throw validationError(bad, pack.classification.factors.length);
  return classify(pack, facts as Record<string, string | boolean>, contested);
}

export interface OpenBody {
  engaging_party_ref: string;
  worker_ref: string;
  starts_on: string;
  ends_on: string | null;
  facts: Record<string, string | boolean>;
  employer_facts?: { headcount?: number; annual_turnover_at_least_50m?: boolean; sector?: 'private' | 'public' };
}

/** open: classified at once under the active rule pack (spec 3: there is no status before classified). */
export async function openEngagement(p: Platform, c: Caller, id: string, dedupeId: string | undefined, body: OpenBody) {
  if (body.ends_on !== null && body.ends_on < body.starts_on) throw fieldError('/ends_on', 'before_start', 'ends_on must not be before starts_on.');
  if (body.engaging_party_ref === body.worker_ref) throw fieldError('/worker_ref', 'same_party', 'The engaging party and the worker must be different subjects.');
  const record = classificationOf(body.facts, false);
  const f = body.employer_facts;
  const employer: EmployerFacts = { headcount: f?.headcount ?? null, annual_turnover_at_least_50m: f?.annual_turnover_at_least_50m ?? null, sector: f?.sector ?? null };
  const cmd: OpenCommand = { engaging_party_ref: body.engaging_party_ref, worker_ref: body.worker_ref, starts_on: body.starts_on, ends_on: body.ends_on, employer, record, livemode: c.livemode };
  return p.system.ask(Engagement, id, 'open', cmd, { ...c, dedupeId });
}

export function classifyEngagement(p: Platform, c: Caller, engagementId: string, body: { facts: unknown; contested?: boolean }) {
  return p.system.ask(Engagement, engagementId, 'classify', { record: classificationOf(body.facts, body.contested ?? false) }, c);
}

// ------------------------------------------------------------------------------------------------
// Drafting

export interface DraftBody {
  template_code: string;
  optional_clauses?: string[];
  expires_at?: string;
}

/** The template if it may paper this classification; a contract for services over employment facts is refused (spec 3). */
function templateFor(code: string, k: Classification, field = '/template_code'): Template {
  const lib = clauseLibrary()!;
  const t = lib.templates.find((x) => x.code === code);
  if (!t) {
    throw fieldError(field, 'unknown_template', `template_code must be one of the approved templates of clause library ${lib.version}: ${lib.templates.map((x) => x.code).join(', ')}.`);
  }
  if (!t.classifications.includes(k)) {
    const contractor = t.classifications.every((c) => !isEmploymentClass(c));
    throw new ApiError('conflict', contractor && isEmploymentClass(k)
      ? `The facts of this engagement classify as ${k}; a contractor agreement (${t.code}) cannot be issued over facts that classify as employment (spec 3). Use one of: ${lib.templates.filter((x) => x.classifications.includes(k)).map((x) => x.code).join(', ')}.`
      : `Template ${t.code} papers ${t.classifications.join(', ')}, not ${k}.`);
  }
  return t;
}

/** The draft command of an instrument for an engagement (checked: template, clauses, expiry). */
export function draftFor(e: EngagementState, body: DraftBody, now: number, supersedes: string | null) {
  if (!e.classification) throw new ApiError('conflict', `Engagement ${e.id} is not classified.`);
  const lib = clauseLibrary()!;
  const pack = rulePack(e.classification.rule_pack.version) ?? rulePack()!;
  const entries: ValidationEntry[] = [];
  const t = templateFor(body.template_code, e.classification.classification);
  const optional = body.optional_clauses ?? [];
  optional.forEach((c, i) => {
    if (!t.optional_clauses.includes(c)) entries.push(errorEntry(`/optional_clauses/${i}`, 'unknown_clause', `${c} is not an optional clause of ${t.code} (${t.optional_clauses.join(', ') || 'none'}).`, i + 1));
  });
  let expires: number;
  if (body.expires_at !== undefined) {
    expires = Date.parse(body.expires_at);
    if (!Number.isFinite(expires) || !/Z$|[+-]\d\d:\d\d$/.test(body.expires_at)) entries.push(errorEntry('/expires_at', 'invalid_date_time', 'expires_at must be an RFC 3339 date-time.'));
    else if (expires <= now) entries.push(errorEntry('/expires_at', 'in_the_past', 'expires_at must be in the future.'));
  } else expires = now + pack.timing.instrument_assent_window_days * DAY;
  if (entries.length) throw validationError(entries, Math.max(1, optional.length));
  const codes = [...t.clauses, ...t.optional_clauses.filter((c) => optional.includes(c))];
  return {
    livemode: e.livemode,
    engagement_id: e.id,
    engaging_party_ref: e.engaging_party_ref,
    worker_ref: e.worker_ref,
    classification: e.classification.classification,
    starts_on: e.starts_on,
    ends_on: e.ends_on,
    template_code: t.code,
    clauses: codes.map((c) => ({ clause_code: c, clause_version: lib.clauses.find((x) => x.code === c)!.version })),
    clause_library_version: lib.version,
    rule_pack_version: e.classification.rule_pack.version,
    legal_approval_reference: lib.legal_approval_reference,
    supersedes,
    expires_at: expires,
  };
}

export async function draftInstrument(p: Platform, c: Caller, engagementId: string, instrumentId: string, dedupeId: string | undefined, body: DraftBody): Promise<InstrumentState> {
  const e = await engagementState(p, c.org, engagementId);
  if (e.status === 'terminated') throw new ApiError('conflict', `Engagement ${e.id} is terminated.`);
  const draft = draftFor(e, body, p.clock.now(), null);
  await p.system.ask(Instrument, instrumentId, 'draft', { ...draft, submit: false }, { ...c, dedupeId });
  return instrumentState(p, c.org, instrumentId);
}

/** paper: the engagement is papered with an instrument (drafted here from a template, or one drafted before) that awaits assent. */
export async function paper(p: Platform, c: Caller, engagementId: string, body: { instrument_id?: string } & Partial<DraftBody>, newInstrumentId: string, dedupeId: string | undefined) {
  if ((body.instrument_id === undefined) === (body.template_code === undefined)) {
    throw fieldError('/instrument_id', 'one_of', 'Give exactly one of instrument_id (an instrument drafted for this engagement) or template_code (draft one now).');
  }
  const e = await engagementNow(p, c.org, engagementId);
  if (!['classified', 'papered', 'lapsed'].includes(e.status)) throw new ApiError('conflict', `Engagement ${e.id} is ${e.status}; paper needs it classified, papered or lapsed.`);
  let instrument: InstrumentState;
  if (body.instrument_id !== undefined) {
    instrument = await instrumentOf(p, c.org, engagementId, body.instrument_id);
    if (instrument.supersedes !== null) throw new ApiError('conflict', `Instrument ${instrument.id} is a variation; it is executed through its own execute.`);
    // the classification may have changed since it was drafted
    templateFor(instrument.template_code, e.classification!.classification, '/instrument_id');
  } else {
    instrument = await draftInstrument(p, c, engagementId, newInstrumentId, dedupeId, body as DraftBody);
  }
  await p.system.ask(Instrument, instrument.id, 'submit', undefined, c);
  return p.system.ask(Engagement, engagementId, 'paper', { instrument_id: instrument.id, template_code: instrument.template_code }, c);
}

// ------------------------------------------------------------------------------------------------
// Assent, execute, supersede

export async function assent(p: Platform, c: Caller, engagementId: string, instrumentId: string, assentId: string, body: { party: AssentParty; subject_ref: string; channel?: string }) {
  const s = await instrumentOf(p, c.org, engagementId, instrumentId);
  const passport = identityGate(p).livePassport(c.org, body.subject_ref);
  await p.system.ask(Instrument, s.id, 'assent', { id: assentId, party: body.party, subject_ref: body.subject_ref, passport_id: passport, channel: body.channel ?? 'api' }, c);
  const after = await instrumentState(p, c.org, s.id);
  return after.assents.find((a) => a.id === assentId)!;
}

/**
 * Execute an instrument (spec 3 Instrument: awaiting_assent -> executed when the assent of both
 * parties is complete, seal applied, executed_at set; spec 3 Engagement: both parties need a live
 * passport before anything executes). The organisation's chain seals it, the instrument records
 * the seal, and the engagement moves (a reaction does the same if this request dies in between).
 */
export async function executeInstrument(p: Platform, c: Caller, engagementId: string, instrumentId: string): Promise<InstrumentView> {
  const s = await instrumentOf(p, c.org, engagementId, instrumentId);
  if (s.status === 'executed') return instrumentView(s);
  if (s.status !== 'awaiting_assent') throw new ApiError('conflict', `Instrument ${s.id} is ${s.status}; execute needs it awaiting_assent.`);
  if (!s.assents.some((a) => a.party === 'worker') || !s.assents.some((a) => a.party === 'engaging_party')) {
    const missing = (['engaging_party', 'worker'] as const).filter((x) => !s.assents.some((a) => a.party === x));
    throw new ApiError('conflict', `Instrument ${s.id} cannot execute: the assent of both parties is not complete (missing: ${missing.join(', ')}; spec 3).`);
  }
  const variation = s.supersedes !== null;
  // a variation needs the engagement's instrument in force as of now; a first instrument needs it papered, which no execution moves past unseen
  const e = variation ? await engagementNow(p, c.org, engagementId) : await engagementState(p, c.org, engagementId);
  if (!variation && (e.status !== 'papered' || e.papered_instrument_id !== s.id)) throw new ApiError('conflict', `Engagement ${e.id} is ${e.status} and not papered with instrument ${s.id}.`);
  if (variation && (e.instrument_in_force_id !== s.supersedes || e.status === 'terminated' || e.status === 'disputed')) throw new ApiError('conflict', `Variation ${s.id} supersedes ${s.supersedes}, which is not the instrument in force of engagement ${e.id} (${e.status}).`);
  const passports = passportsOf(p, c.org, s);
  const missing = [!passports.engaging_party.live ? `the engaging party's (${s.engaging_party_ref})` : null, !passports.worker.live ? `the worker's (${s.worker_ref})` : null].filter(Boolean);
  if (missing.length) throw new ApiError('conflict', `Instrument ${s.id} cannot execute: ${missing.join(' and ')} passport ${missing.length > 1 ? 'are' : 'is'} not live; both parties need a live passport before anything executes (spec 3).`);
  const seal = (await p.system.ask(SealChain, sealChainId(c.org), 'seal', { instrument_id: s.id, engagement_id: s.engagement_id, document: sealedDocument(s), expires_at: s.expires_at }, c)) as Seal;
  // The instrument's answer is its view after the commit (nothing is read again); the engagement
  // moves by reaction to instrument.executed, or sooner through engagementNow.
  return (await p.system.ask(Instrument, s.id, 'execute', { seal }, c)) as InstrumentView;
}

/** execute on the engagement: executes its papered instrument (or the one named). */
export async function executeEngagement(p: Platform, c: Caller, engagementId: string, body: { instrument_id?: string }) {
  const e = await engagementNow(p, c.org, engagementId);
  const id = body.instrument_id ?? e.papered_instrument_id;
  if (id === null) throw new ApiError('conflict', `Engagement ${e.id} is ${e.status} with no instrument awaiting assent; paper it first (an unexecuted instrument binds no one, spec 3).`);
  await executeInstrument(p, c, engagementId, id);
  // this answer is the engagement: its move is made now rather than left to the reaction
  return engagementView(await engagementNow(p, c.org, engagementId), null);
}

/** supersede: draft a variation of an executed instrument; both records are kept and linked (spec 1 rule 4, 3 Instrument). */
export async function supersede(p: Platform, c: Caller, engagementId: string, instrumentId: string, newId: string, dedupeId: string | undefined, body: Partial<DraftBody>) {
  const old = await instrumentOf(p, c.org, engagementId, instrumentId);
  if (old.superseded_by !== null && old.superseded_by !== newId) throw new ApiError('conflict', `Instrument ${old.id} is already superseded by ${old.superseded_by}.`);
  if (old.status !== 'executed' && old.superseded_by !== newId) throw new ApiError('conflict', `Instrument ${old.id} is ${old.status}; only an executed instrument is varied.`);
  const e = await engagementState(p, c.org, engagementId);
  if (e.status === 'terminated') throw new ApiError('conflict', `Engagement ${e.id} is terminated.`);
  const draft = draftFor(e, { template_code: body.template_code ?? old.template_code, optional_clauses: body.optional_clauses, expires_at: body.expires_at }, p.clock.now(), old.id);
  await p.system.ask(Instrument, old.id, 'mark_superseded', { superseded_by: newId }, c);
  await p.system.ask(Instrument, newId, 'draft', { ...draft, submit: true }, { ...c, dedupeId });
  return p.system.get(Instrument, newId, c.org);
}

// ------------------------------------------------------------------------------------------------
// Engagement moves that need the gate or the pack

export async function register(p: Platform, c: Caller, engagementId: string, body: { registration_reference?: string }) {
  const e = await engagementNow(p, c.org, engagementId);
  const pack = rulePack(e.classification?.rule_pack.version) ?? rulePack()!;
  const k = e.classification?.classification;
  const required = (k && pack.registration.attestations_required[k]) || [];
  return p.system.ask(Engagement, engagementId, 'register', { registration_reference: body.registration_reference ?? null, required_attestations: required }, c);
}

export async function activate(p: Platform, c: Caller, engagementId: string) {
  const e = await engagementNow(p, c.org, engagementId);
  const pack = rulePack(e.classification?.rule_pack.version) ?? rulePack()!;
  const k = e.classification?.classification;
  return p.system.ask(Engagement, engagementId, 'activate', { passports: passportsOf(p, c.org, e), registration_required: k !== undefined && pack.registration.required_before_activation.includes(k) }, c);
}

export async function resolveDispute(p: Platform, c: Caller, engagementId: string, disputeId: string, body: { outcome: 'upheld' | 'dismissed' | 'withdrawn'; note: string }) {
  const e = await engagementNow(p, c.org, engagementId);
  await p.system.ask(Engagement, engagementId, 'resolve_dispute', { dispute_id: disputeId, outcome: body.outcome, note: body.note, passports: passportsOf(p, c.org, e) }, c);
  const after = await engagementState(p, c.org, engagementId);
  return after.disputes.find((d) => d.id === disputeId)!;
}

// ------------------------------------------------------------------------------------------------
// Engagement moves a party asks for, each on the engagement with its executions recorded

export async function lapse(p: Platform, c: Caller, engagementId: string, body: { reason: string }) {
  await engagementNow(p, c.org, engagementId);
  return p.system.ask(Engagement, engagementId, 'lapse', { reason: body.reason }, c);
}

export async function terminate(p: Platform, c: Caller, engagementId: string, body: { reason: string; terminated_by?: string }) {
  await engagementNow(p, c.org, engagementId);
  return p.system.ask(Engagement, engagementId, 'terminate', { reason: body.reason, terminated_by: body.terminated_by ?? 'engaging_party' }, c);
}

type DisputeBody = { raised_by: Dispute['raised_by']; reason: string; contests_classification?: boolean };

async function recordDispute(p: Platform, c: Caller, engagementId: string, disputeId: string, body: DisputeBody): Promise<void> {
  await engagementNow(p, c.org, engagementId);
  await p.system.ask(Engagement, engagementId, 'dispute', { dispute_id: disputeId, raised_by: body.raised_by, reason: body.reason, contests_classification: body.contests_classification ?? false }, c);
}

/** POST .../dispute answers the engagement; POST .../disputes answers the dispute it opened. */
export async function disputeEngagement(p: Platform, c: Caller, engagementId: string, disputeId: string, body: DisputeBody) {
  await recordDispute(p, c, engagementId, disputeId, body);
  return p.system.get(Engagement, engagementId, c.org);
}

export async function openDispute(p: Platform, c: Caller, engagementId: string, disputeId: string, body: DisputeBody) {
  await recordDispute(p, c, engagementId, disputeId, body);
  return (await engagementState(p, c.org, engagementId)).disputes.find((d) => d.id === disputeId);
}

export async function attest(p: Platform, c: Caller, engagementId: string, attestationId: string, body: Omit<Attestation, 'id' | 'object' | 'engagement_id' | 'recorded_at' | 'note'> & { note?: string }) {
  await engagementNow(p, c.org, engagementId);
  await p.system.ask(Engagement, engagementId, 'attest', { id: attestationId, kind: body.kind, reference: body.reference, attested_by: body.attested_by, attested_on: body.attested_on, note: body.note ?? null }, c);
  return (await engagementState(p, c.org, engagementId)).attestations.find((a) => a.id === attestationId);
}

// ------------------------------------------------------------------------------------------------
// Reads from the journal

/** The engagement as it stood at the end of a date (UTC), folded from its journal (spec 2.6 as_of). */
export async function engagementAsOf(p: Platform, org: string, id: string, date: string): Promise<EngagementState> {
  const now = await engagementNow(p, org, id); // 404 / 403 as for a plain read; executions recorded
  const cutoff = Date.parse(`${date}T00:00:00.000Z`) + DAY;
  const events = await p.stores.journal.read(`${Engagement.kind}.${id}`, 0);
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
  const events = await p.stores.journal.read(`${Instrument.kind}.${id}`, 0);
  if (events.length === 0 || events[0].org !== org) return undefined;
  let s = Instrument.initial(id, org);
  for (const ev of events) s = Instrument.evolve(s, ev.data as never, { at: ev.at, version: ev.version, eventId: ev.id, org: ev.org });
  return s;
}
