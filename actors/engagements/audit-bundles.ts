/**
 * The operations of an audit bundle (audit-bundle.ts): its assembly (spec 4.5 POST
 * .../audit_bundles). Every record, journal event and seal of one engagement, and the
 * organisation's seal chain from GENESIS to the engagement's latest seal, so that anyone can verify
 * it offline: recompute each seal from its document (seal.ts) and walk the chain's links. The
 * bundle's own hash covers its contents.
 */
import { actorEvents, type Caller, contentHash, type Platform } from '../../kernel/index.ts';
import type { StoredEvent } from '../../stores/index.ts';
import { AuditBundle } from './audit-bundle.ts';
import { Engagement } from './engagement.ts';
import { sealChainId } from './ids.ts';
import { Instrument, type InstrumentState, instrumentView } from './instrument.ts';
import { engagementNow, engagementState, storedInstrument } from './reads.ts';
import { RemediationCase } from './remediation-case.ts';
import { GENESIS, SEAL_ALGORITHM, sealedDocument } from './seal.ts';
import { SealChain, type SealChainEvent } from './seal-chain.ts';

const eventView = (e: StoredEvent) => ({ id: e.id, version: e.version, type: e.type, occurred_at: new Date(e.at).toISOString(), principal: e.principal ?? null, request_id: e.requestId ?? null, data: e.data });

async function idsOf(p: Platform, kind: typeof Instrument | typeof RemediationCase, org: string, list: string): Promise<string[]> {
  const out: string[] = [];
  for await (const ids of p.system.eachIds(kind, org, list, 'asc')) out.push(...ids);
  return out;
}

export async function bundleContents(p: Platform, org: string, engagementId: string) {
  const e = await engagementState(p, org, engagementId);
  const engagementEvents = await actorEvents(p, Engagement, engagementId);
  const instruments = [];
  const seals: Array<{ instrument_id: string; document: ReturnType<typeof sealedDocument>; seal: NonNullable<InstrumentState['seal']> }> = [];
  for (const id of await idsOf(p, Instrument, org, `engagement:${engagementId}`)) {
    const s = (await storedInstrument(p, org, id))!;
    const events = await actorEvents(p, Instrument, id);
    instruments.push({ record: instrumentView(s), assents: s.assents, events: events.map(eventView) });
    if (s.seal) seals.push({ instrument_id: s.id, document: sealedDocument(s), seal: s.seal });
  }
  const cases = [];
  for (const id of await idsOf(p, RemediationCase, org, `engagement:${engagementId}`)) cases.push(await p.system.get(RemediationCase, id, org));
  const chainEvents = (await actorEvents(p, SealChain, sealChainId(org))).map((x) => x.data as SealChainEvent);
  const last = Math.max(0, ...chainEvents.filter((x) => seals.some((s) => s.instrument_id === x.instrument_id)).map((x) => x.position));
  const chain = chainEvents
    .filter((x) => x.position <= last)
    .map((x) => ({ position: x.position, instrument_id: x.instrument_id, hash: x.hash, previous_hash: x.previous_hash, sealed_at: x.sealed_at, algorithm: x.algorithm }));
  return {
    engagement: { record: Engagement.view(e), classification: e.classification, attestations: e.attestations, disputes: e.disputes, events: engagementEvents.map(eventView) },
    instruments,
    seals,
    chain,
    remediation_cases: cases,
    verification: {
      algorithm: SEAL_ALGORITHM,
      genesis_previous_hash: GENESIS,
      canonical_json: 'Object keys sorted by code unit at every depth, no whitespace, arrays in order, members whose value is undefined left out (JSON.stringify for strings and numbers).',
      seal: 'hash = "sha256:" + hex(SHA-256(canonical_json({ algorithm, instrument: document, previous_hash, sealed_at })))',
      chain: 'chain[0].previous_hash = genesis_previous_hash; chain[i].previous_hash = chain[i-1].hash; each seal of this bundle appears in the chain with the same hash.',
      bundle_hash: 'bundle_hash = "sha256:" + hex(SHA-256(canonical_json(the bundle without id, object, livemode, mocked, assembled_at and bundle_hash)))',
    },
  };
}

export async function assembleBundle(p: Platform, c: Caller, engagementId: string, bundleId: string, dedupeId: string | undefined) {
  const e = await engagementNow(p, c.org, engagementId); // the bundle's journal holds every execution already answered
  const contents = await bundleContents(p, c.org, engagementId);
  await p.system.ask(AuditBundle, bundleId, 'assemble', { engagement_id: engagementId, livemode: e.livemode, bundle_hash: contentHash({ engagement_id: engagementId, ...contents }), contents }, { ...c, dedupeId });
  return p.system.get(AuditBundle, bundleId, c.org);
}
