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
import type { Platform } from '../../kernel/index.ts';
import { Instrument, type InstrumentState } from './instrument.ts';
import { instrumentState, storedInstrument } from './operations.ts';
import { GENESIS, sealedDocument, sealHash } from './seal.ts';

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
