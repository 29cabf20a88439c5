/** Worker and integrity flag actors: snapshot round trip, events in the catalogue (spec 3, 6). */
import { describe, expect, it } from 'vitest';
import { area, IntegrityFlag, Worker, workerActorId, type WorkerState } from '../../actors/allocation/index.ts';
import { ActorSystem, ManualClock } from '../../runtime/index.ts';
import { createMemoryStores } from '../../stores/index.ts';
import { startHarness } from '../../support/http.ts';
import { heartbeats, makeAvailable, reading, workerId } from './support.ts';

describe('snapshots of the allocation actors', () => {
  it('run commands, passivate (snapshot), restore, replay the rest: the state equals the live one', async () => {
    const clock = new ManualClock();
    const stores = createMemoryStores({ now: () => clock.now() });
    const system = new ActorSystem({ stores, clock, kinds: [Worker, IntegrityFlag], limits: { snapshotEvery: 2 } });
    await system.start();
    const org = 'org_snap';
    const w1 = workerActorId(org, 'w1');
    await system.ask(Worker, w1, 'set_availability', { worker_id: 'w1', availability: 'available', livemode: false }, { org });
    await clock.advance(1000);
    await system.ask(Worker, w1, 'report_signals', { worker_id: 'w1', signals: [{ source: 'mock_location', fired_at: '2026-01-05T08:00:01.000Z', detail: 'd' }], livemode: false, mocked: false }, { org });
    await system.ask(Worker, w1, 'record_presence', { presence: 'reporting' }, { org });
    await system.settle();
    const live = await system.state<WorkerState>(Worker, w1, org);
    expect(live).toMatchObject({ id: w1, worker_id: 'w1', livemode: false });
    await system.passivateIdle(0);
    expect(await system.state<WorkerState>(Worker, w1, org)).toEqual(live);
    const flagId = live.open_flag_id!;
    const flag = await system.get(IntegrityFlag, flagId, org);
    await system.passivateIdle(0);
    expect(await system.get(IntegrityFlag, flagId, org)).toEqual(flag);
    expect(flag).toMatchObject({ worker_id: 'w1' });
    await system.stop();
  });
});

describe('allocation events in the event catalogue (spec 6)', () => {
  it('declares its ten public types (spec 6) with source match, each on a journal event its actors emit', () => {
    const types = area.events!.map((e) => e.type);
    expect(types).toEqual([
      'match.worker.availability_changed',
      'match.worker.presence_changed',
      'match.integrity_flag.raised',
      'match.integrity_flag.upheld',
      'match.integrity_flag.dismissed',
      'match.offer.made',
      'match.offer.accepted',
      'match.offer.withdrawn',
      'match.supply_gap.declared',
      'match.exception.raised',
    ]);
    // spec 6: allocation has ten event types
    expect(types).toHaveLength(10);
    expect(area.events!.every((e) => e.source === 'match' && [Worker.kind, IntegrityFlag.kind, 'allocation_work_order', 'allocation_assignment'].includes(e.kind))).toBe(true);
  });

  it('availability, presence and flag transitions appear on GET /v1/allocation/events', async () => {
    const h = await startHarness();
    try {
      const w = workerId();
      await makeAvailable(h, w);
      await h.clock.advance(1000);
      await heartbeats(h, { worker_id: w, readings: [reading(h.clock.now(), { mock_location_detected: true })] });
      await h.platform.system.settle();
      const r = await h.request('GET', '/v1/allocation/events?limit=100');
      expect(r.status, r.text).toBe(200);
      const types = new Set((r.body.data as { type: string }[]).map((e) => e.type));
      for (const t of ['match.worker.availability_changed', 'match.worker.presence_changed', 'match.integrity_flag.raised']) expect(types).toContain(t);
    } finally {
      await h.close();
    }
  });
});
