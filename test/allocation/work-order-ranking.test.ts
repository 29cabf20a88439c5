/**
 * The ranking a work order keeps (actors/allocation/work-order.ts CandidateList): ids and scores
 * side by side, a candidate's rank its position; the cascade offers them in order (spec 3 "Work
 * orders, offers, assignments, exceptions", 6 cascade rule). A work order opened before, whose
 * journal holds Candidate objects, still cascades the same.
 */
import { describe, expect, it } from 'vitest';
import { ACTIVE_WEIGHTS, WorkOrder, type WorkOrderState } from '../../actors/allocation/index.ts';
import { ActorSystem, ManualClock } from '../../runtime/index.ts';
import { createMemoryStores } from '../../stores/index.ts';

const org = 'org_rank';
const facts = (now: number) => ({
  location: { latitude: 6.45, longitude: 3.39, radius_metres: 300 },
  search_radius_metres: 5000,
  occupation_code: null,
  claim_codes: [],
  licence_required: false,
  window: { starts_at: now, ends_at: now + 3_600_000 },
  headcount: 1,
  offer_timeout_seconds: 600,
  cascade_width: 1,
  weight_set: { version: ACTIVE_WEIGHTS.set.version, content_hash: ACTIVE_WEIGHTS.hash },
  livemode: false,
});

async function start() {
  const clock = new ManualClock();
  const stores = createMemoryStores({ now: () => clock.now() });
  const system = new ActorSystem({ stores, clock, kinds: [WorkOrder] });
  await system.start();
  return { clock, stores, system };
}

const offers = (s: WorkOrderState) => s.offers.map((o) => ({ worker_id: o.worker_id, rank: o.rank, score: o.score, status: o.status }));

describe('a work order keeps its ranking as ids and scores, rank by position (spec 6 cascade rule)', () => {
  it('offers the candidates in order with their rank and score, the next on a decline', async () => {
    const { clock, system } = await start();
    const id = 'match_work_order_AAAAAAAAAAAAAAAAAAAAAA';
    await system.ask(WorkOrder, id, 'open', { ...facts(clock.now()), candidate_ids: ['w1', 'w2', 'w3'], candidate_scores: [0.9, 0.75, 0.5], excluded_count: 4 }, { org });
    let s = await system.state<WorkOrderState>(WorkOrder, id, org);
    expect(s.candidate_ids).toEqual(['w1', 'w2', 'w3']);
    expect(s.candidate_scores).toEqual([0.9, 0.75, 0.5]);
    expect(offers(s)).toEqual([{ worker_id: 'w1', rank: 1, score: 0.9, status: 'pending' }]);
    await system.ask(WorkOrder, id, 'decline', { offer_id: s.offers[0].id }, { org });
    s = await system.state<WorkOrderState>(WorkOrder, id, org);
    expect(offers(s)[1]).toEqual({ worker_id: 'w2', rank: 2, score: 0.75, status: 'pending' });
    expect(await system.get(WorkOrder, id, org)).toMatchObject({ cascade: { candidates: 3, excluded_near: 4, offered: 2 } });
    await system.stop();
  });

  it('takes the ranking as Candidate objects in rank order too, and keeps it as ids and scores', async () => {
    const { clock, system } = await start();
    const id = 'match_work_order_BBBBBBBBBBBBBBBBBBBBBB';
    const candidates = [{ worker_id: 'w1', rank: 1, score: 0.8 }, { worker_id: 'w2', rank: 2, score: 0.6 }];
    await system.ask(WorkOrder, id, 'open', { ...facts(clock.now()), candidates, excluded_count: 0 }, { org });
    const s = await system.state<WorkOrderState>(WorkOrder, id, org);
    expect(s).toMatchObject({ candidate_ids: ['w1', 'w2'], candidate_scores: [0.8, 0.6] });
    expect(s.candidates).toBeUndefined();
    expect(offers(s)).toEqual([{ worker_id: 'w1', rank: 1, score: 0.8, status: 'pending' }]);
    await system.stop();
  });

  it('a work order whose journal holds Candidate objects (opened before) still cascades with their ranks and scores', async () => {
    const { clock, stores, system } = await start();
    const id = 'match_work_order_CCCCCCCCCCCCCCCCCCCCCC';
    const at = clock.now();
    const opened = { type: 'work_order.opened', ...facts(at), candidates: [{ worker_id: 'w1', rank: 1, score: 0.7 }, { worker_id: 'w2', rank: 2, score: 0.4 }], excluded_count: 1 };
    const made = { type: 'offer.made', offer_id: 'match_offer_CCCCCCCCCCCCCCCCCCCCCC0', worker_id: 'w1', rank: 1, score: 0.7, expires_at: at + 600_000 };
    await stores.journal.append(`${WorkOrder.kind}.${id}`, 0, [
      { version: 1, id: 'evt_legacy1', type: opened.type, data: opened, at, org },
      { version: 2, id: 'evt_legacy2', type: made.type, data: made, at, org },
    ]);
    let s = await system.state<WorkOrderState>(WorkOrder, id, org);
    expect(s.candidates).toHaveLength(2);
    await system.ask(WorkOrder, id, 'decline', { offer_id: made.offer_id }, { org });
    s = await system.state<WorkOrderState>(WorkOrder, id, org);
    expect(offers(s)).toEqual([
      { worker_id: 'w1', rank: 1, score: 0.7, status: 'declined' },
      { worker_id: 'w2', rank: 2, score: 0.4, status: 'pending' },
    ]);
    expect(await system.get(WorkOrder, id, org)).toMatchObject({ cascade: { candidates: 2, excluded_near: 1, offered: 2 } });
    await system.stop();
  });

  it("a work order's modes, read from its state for its audit entries, are its view's livemode and mocked", async () => {
    const { clock, system } = await start();
    for (const [id, livemode] of [['match_work_order_DDDDDDDDDDDDDDDDDDDDDD', true], ['match_work_order_EEEEEEEEEEEEEEEEEEEEEE', false]] as const) {
      await system.ask(WorkOrder, id, 'open', { ...facts(clock.now()), livemode, candidate_ids: ['w1'], candidate_scores: [0.5], excluded_count: 0 }, { org });
      const state = await system.state<WorkOrderState>(WorkOrder, id, org);
      const view = WorkOrder.view(state) as { livemode: boolean; mocked: boolean };
      expect(WorkOrder.modes!(state)).toEqual({ livemode: view.livemode, mocked: view.mocked });
      expect(view.livemode).toBe(livemode);
    }
    await system.stop();
  });
});
