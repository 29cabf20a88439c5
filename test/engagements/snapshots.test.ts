/**
 * Snapshots of the engagements kinds (STYLE "Snapshots are a versioned codec"): after a scenario
 * through the API (a real socket), each actor's state survives the snapshot codec, and a second
 * actor system on the same stores restores it from a snapshot plus the journal after it, equal to
 * the live state and answering the same views.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { area } from '../../actors/engagements/index.ts';
import { AuditBundle } from '../../actors/engagements/audit-bundle.ts';
import { Engagement, type EngagementState } from '../../actors/engagements/engagement.ts';
import { partyId, sealChainId } from '../../actors/engagements/ids.ts';
import { Instrument, type InstrumentState } from '../../actors/engagements/instrument.ts';
import { Party } from '../../actors/engagements/party.ts';
import { RemediationCase } from '../../actors/engagements/remediation-case.ts';
import { SealChain } from '../../actors/engagements/seal-chain.ts';
import { ActorSystem, type AnyActorDef, decodeSnapshot, encodeSnapshot, roundTrip } from '../../runtime/index.ts';
import { startHarness, type Harness } from '../../support/http.ts';
import { current, parties, post } from './support.ts';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(async () => {
  await h?.close();
});

const E = (id: string) => `/v1/rail/engagements/${id}`;

describe('snapshots of the engagements kinds (STYLE: snapshots are a versioned codec)', () => {
  it('engagement, instrument, seal chain, party, remediation case and audit bundle: snapshot, restore, replay the rest; the state equals the live one and answers the same views', async () => {
    const p = await parties(h);
    const { engagement, instrument } = await current(h, p);
    const dispute = await post(h, `${E(engagement.id)}/disputes`, { raised_by: 'worker', reason: 'Hours not as agreed.', contests_classification: true });
    expect(dispute.status, dispute.text).toBe(201);
    expect((await post(h, `${E(engagement.id)}/attestations`, { kind: 'witness', reference: 'W-7', attested_by: 'Ada Obi', attested_on: '2026-01-05' })).status).toBe(201);
    const bundle = await post(h, `${E(engagement.id)}/audit_bundles`);
    expect(bundle.status, bundle.text).toBe(201);
    const variation = await post(h, `${E(engagement.id)}/instruments/${instrument.id}/supersede`, { optional_clauses: ['confidentiality'] });
    expect(variation.status, variation.text).toBe(201);
    await h.platform.system.settle();
    const kase = (await h.request('GET', `/v1/rail/remediation_cases?engagement_id=${engagement.id}`)).body.data[0];

    const targets: Array<[AnyActorDef, string]> = [
      [Engagement, engagement.id],
      [Instrument, instrument.id],
      [Instrument, variation.body.id],
      [SealChain, sealChainId(h.org)],
      [Party, partyId(h.org, p.worker)],
      [Party, partyId(h.org, p.employer)],
      [RemediationCase, kase.id],
      [AuditBundle, bundle.body.id],
    ];
    const stateOf = (system: ActorSystem, [def, id]: [AnyActorDef, string]) => system.state(def, id, h.org);

    // the codec: every state comes back equal, and answers the same view
    const before = await Promise.all(targets.map((t) => stateOf(h.platform.system, t)));
    targets.forEach(([def], i) => {
      expect(roundTrip(before[i]), def.kind).toEqual(before[i]);
      expect(def.view(roundTrip(before[i])), def.kind).toEqual(def.view(before[i]));
    });

    // snapshots at the versions of now, written as the runtime writes them
    for (const [[def, id], state] of targets.map((t, i) => [t, before[i]] as const)) {
      const key = `${def.kind}.${id}`;
      const events = await h.platform.stores.journal.read(key, 0);
      const version = events.at(-1)!.version;
      const blob = encodeSnapshot({ schema: def.schema ?? 1, kind: def.kind, id, version, org: h.org, state, dedupe: events.map((e) => e.dedupe).filter((d): d is string => d !== undefined) });
      expect(decodeSnapshot(blob)).toMatchObject({ kind: def.kind, id, version, org: h.org, state });
      await h.platform.stores.snapshots.save(key, version, blob);
    }

    // the rest happens after the snapshots: the dispute resolves, the variation is assented, executed and sealed
    expect((await post(h, `${E(engagement.id)}/disputes/${dispute.body.id}/resolve`, { outcome: 'dismissed', note: 'Hours confirmed.' })).status).toBe(200);
    for (const [party, ref] of [['engaging_party', p.employer], ['worker', p.worker]]) {
      expect((await post(h, `${E(engagement.id)}/instruments/${variation.body.id}/assents`, { party, subject_ref: ref })).status).toBe(201);
    }
    expect((await post(h, `${E(engagement.id)}/instruments/${variation.body.id}/execute`)).status).toBe(200);
    expect((await post(h, `/v1/rail/remediation_cases/${kase.id}/resolve`, { note: 'Dismissed with the dispute.' })).status).toBe(200);
    await h.platform.system.settle();
    const live = await Promise.all(targets.map((t) => stateOf(h.platform.system, t)));
    expect(live[0]).toMatchObject({ status: 'current', instrument_in_force_id: variation.body.id });

    // a second system on the same stores: each snapshot, then the journal after it
    const restored = new ActorSystem({ stores: h.platform.stores, clock: h.clock, kinds: area.kinds, log: () => {} });
    const again = await Promise.all(targets.map((t) => stateOf(restored, t)));
    expect(again).toEqual(live);
    targets.forEach(([def], i) => expect(def.view(again[i]), def.kind).toEqual(def.view(live[i])));

    // and the API's reads agree with what the restored states answer
    // the read adds what the engagement waits for (docs/gaps.md "next_action"), computed at the read, not stored
    const { next_action: _waits, ...read } = (await h.request('GET', E(engagement.id))).body;
    expect(read).toEqual(Engagement.view(again[0] as EngagementState));
    expect((await h.request('GET', `/v1/rail/instruments/${variation.body.id}`)).body).toEqual(Instrument.view(again[2] as InstrumentState));
  });
});
