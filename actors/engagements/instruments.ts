/**
 * The operations of an instrument (instrument.ts) the routes call (spec 3 Instrument, 4.5):
 * drafting from an approved template of the clause library, assent, execution under the
 * organisation's seal chain, variation, and verification of a seal.
 */
import { ApiError, type Caller, errorEntry, fieldError, type Platform, type ValidationEntry, validationError } from '../../kernel/index.ts';
import { HOW_TO_GET_A_PASSPORT, identityGate } from '../identity/index.ts';
import { isEmploymentClass } from './classify.ts';
import type { EngagementState } from './engagement.ts';
import { sealChainId } from './ids.ts';
import { type AssentParty, Instrument, type InstrumentState, instrumentView } from './instrument.ts';
import { clauseLibrary, type Classification, rulePack, type Template } from './packs.ts';
import { engagementNow, engagementState, instrumentOf, instrumentState, passportsOf, storedInstrument } from './reads.ts';
import { GENESIS, type Seal, sealedDocument, sealHash } from './seal.ts';
import { SealChain } from './seal-chain.ts';

const DAY = 86_400_000;

type InstrumentView = ReturnType<typeof instrumentView>;

// ------------------------------------------------------------------------------------------------
// Drafting

export interface DraftBody {
  template_code: string;
  optional_clauses?: string[];
  expires_at?: string;
}

/** The template if it may paper this classification; a contract for services over employment facts is refused (spec 3). */
export function templateFor(code: string, k: Classification, field = '/template_code'): Template {
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
  if (missing.length) throw new ApiError('conflict', `Instrument ${s.id} cannot execute: ${missing.join(' and ')} passport ${missing.length > 1 ? 'are' : 'is'} not live; both parties need a live passport before anything executes (spec 3). ${HOW_TO_GET_A_PASSPORT}`);
  const seal = (await p.system.ask(SealChain, sealChainId(c.org), 'seal', { instrument_id: s.id, engagement_id: s.engagement_id, document: sealedDocument(s), expires_at: s.expires_at }, c)) as Seal;
  // The instrument's answer is its view after the commit (nothing is read again); the engagement
  // moves by reaction to instrument.executed, or sooner through engagementNow.
  return await p.system.ask(Instrument, s.id, 'execute', { seal }, c);
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
// Verification

/**
 * Instrument verification (spec 2.6 InstrumentVerification; 4.5 POST /v1/rail/instruments/verify:
 * no engagement needed; an unknown hash is valid false, not an error). Everything is recomputed
 * from the journal as stored, never from a cached actor, so an instrument altered underneath is
 * caught:
 * - valid: the hash is the seal of a sealed instrument of the caller's organisation and recomputes
 *   from that instrument as stored;
 * - chain_intact: valid, and the links around it recompute too: its previous_hash is the seal of
 *   the instrument sealed before it (recomputed from that one as stored; GENESIS for the first),
 *   and the instrument sealed after it (if any) names its hash as previous_hash and recomputes.
 *   Each seal covers its previous_hash, so intact links on every instrument make the whole chain
 *   intact; an audit bundle carries the whole chain for an offline walk from GENESIS.
 */
export const HASH_FORM = /^sha256:[0-9a-f]{64}$/;

export interface InstrumentVerification {
  object: 'instrument_verification';
  valid: boolean;
  chain_intact: boolean;
  instrument_id: string | null;
  executed_at: string | null;
  superseded_by: string | null;
}

async function bySeal(p: Platform, org: string, list: string): Promise<string | undefined> {
  return (await p.system.listIds(Instrument, org, list, { limit: 1, order: 'asc' })).ids[0];
}

/** True when the stored instrument's seal recomputes from its content. */
export const sealHolds = (s: InstrumentState): boolean => s.seal !== null && sealHash(sealedDocument(s), s.seal.previous_hash, s.seal.sealed_at) === s.seal.hash;

async function linkBack(p: Platform, org: string, s: InstrumentState): Promise<boolean> {
  const prev = s.seal!.previous_hash;
  if (prev === GENESIS) return true;
  const id = await bySeal(p, org, `seal:${prev}`);
  const before = id === undefined ? undefined : await storedInstrument(p, org, id);
  return before !== undefined && before.seal?.hash === prev && sealHolds(before);
}

async function linkForward(p: Platform, org: string, s: InstrumentState): Promise<boolean> {
  const id = await bySeal(p, org, `prev:${s.seal!.hash}`);
  if (id === undefined) return true;
  const after = await storedInstrument(p, org, id);
  return after !== undefined && after.seal?.previous_hash === s.seal!.hash && sealHolds(after);
}

export async function verifyInstrument(p: Platform, org: string, hash: string, instrumentId?: string): Promise<InstrumentVerification> {
  const none = (id: string | null, s?: InstrumentState): InstrumentVerification => ({
    object: 'instrument_verification', valid: false, chain_intact: false, instrument_id: id, executed_at: s?.executed_at ?? null, superseded_by: s?.superseded_by ?? null,
  });
  if (instrumentId !== undefined) await instrumentState(p, org, instrumentId); // 404 for an unknown id, 403 for another organisation's
  const id = instrumentId ?? (HASH_FORM.test(hash) ? await bySeal(p, org, `seal:${hash}`) : undefined);
  if (id === undefined) return none(null);
  const s = await storedInstrument(p, org, id);
  if (!s || !s.seal || s.seal.hash !== hash || !sealHolds(s)) return none(id, s);
  const chain = (await linkBack(p, org, s)) && (await linkForward(p, org, s));
  return { object: 'instrument_verification', valid: true, chain_intact: chain, instrument_id: id, executed_at: s.executed_at, superseded_by: s.superseded_by };
}
