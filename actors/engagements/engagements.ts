/**
 * The operations of an engagement (engagement.ts) the routes call (spec 3 Engagement, 4.5): each
 * takes the engagement with its executions recorded (reads.ts engagementNow) and asks it, with what
 * only more than one record can tell (the identity gate's passports, the rule pack, the instrument
 * that papers it: instruments.ts).
 */
import { ApiError, type Caller, fieldError, type Platform, validationError } from '../../kernel/index.ts';
import { checkFacts, classify, type ClassificationRecord } from './classify.ts';
import { type Attestation, type Dispute, Engagement, engagementView, type OpenCommand } from './engagement.ts';
import { Instrument, type InstrumentState, instrumentView } from './instrument.ts';
import { type DraftBody, draftInstrument, executeInstrument, templateFor } from './instruments.ts';
import type { EmployerFacts } from './obligation-lines.ts';
import { rulePack, type Sector } from './packs.ts';
import { engagementNow, engagementState, instrumentOf, instrumentState, passportsOf } from './reads.ts';

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
  employer_facts?: { headcount?: number; annual_turnover_at_least_50m?: boolean; sector?: Sector };
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
// Papering and execution, through the engagement's instrument

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
  const view = await p.system.ask(Engagement, engagementId, 'paper', { instrument_id: instrument.id, template_code: instrument.template_code }, c);
  // the answer carries the instrument papered (drafted by this call or given), as it now awaits assent
  return { ...view, papered_instrument: instrumentView(await instrumentState(p, c.org, instrument.id)) };
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
