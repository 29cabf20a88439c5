/**
 * The supply replica (DESIGN "The supply map"; docs/architecture.md "One supply map for the
 * cluster"): every node applies the same updates, in whatever order they arrive, and holds the same
 * map. Each part of a record is taken only when newer: the committed part by the actor's version,
 * the report by its time. Presence is computed from the record by the node's own clock.
 */
import { describe, expect, it } from 'vitest';
import { activePolicy } from '../../actors/allocation/index.ts';
import { SupplyReplica, type CommittedFacts, type SupplyUpdate } from '../../actors/allocation/supply/supply-replica.ts';
import { ManualClock } from '../../runtime/index.ts';
import { SubjectNumbers } from '../../kernel/index.ts';
import { rng } from '../../support/rng.ts';

const policy = activePolicy().pack;
const STALE = policy.presence.stale_after_seconds * 1000;
const GHOST = policy.presence.ghost_after_seconds * 1000;

const committed = (version: number, over: Partial<CommittedFacts> = {}): CommittedFacts => ({
  version, available: true, since: 0, onAssignment: false, openFlag: null, suspended: false, external: [], completed: 0, failed: 0, ...over,
});
const at = (org: string, workerId: string, c: CommittedFacts | null, report: SupplyUpdate['report']): SupplyUpdate => ({ org, workerId, committed: c, report });

function replica(clock: ManualClock) {
  const r = new SupplyReplica(policy, clock, new SubjectNumbers(), () => {});
  r.start();
  return r;
}

const view = (r: SupplyReplica, org: string) => r.map.nearest(org, 6.5, 3.4, 50_000, 100).map((n) => [n.worker_id, n.latitude]);

describe('the supply replica converges whatever the order (DESIGN "The supply map")', () => {
  it('two nodes given the same updates in different orders, with repeats, hold the same map and records', () => {
    const clock = new ManualClock();
    const t = clock.now();
    const rnd = rng(5);
    const updates: SupplyUpdate[] = [];
    for (let w = 0; w < 40; w++) {
      // a worker's commits (versions 1..4: available, on assignment, back, maybe excluded) and reports (moving north)
      for (let v = 1; v <= 4; v++) updates.push(at('org_a', `w${w}`, committed(v, { since: t - 60_000, onAssignment: v === 2, external: v === 4 && w % 5 === 0 ? ['identity_revoked'] : [] }), null));
      // a report travels with the committed facts its node held (here: the first version, or none)
      for (let k = 1; k <= 4; k++) updates.push(at('org_a', `w${w}`, k % 2 ? committed(1, { since: t - 60_000 }) : null, { at: t - 5000 + k * 1000, latitude: 6.5 + w * 1e-3 + k * 1e-5, longitude: 3.4 }));
    }
    const shuffled = updates.map((u) => [rnd(), u] as const).sort((a, b) => a[0] - b[0]).map(([, u]) => u);
    const one = replica(clock);
    const two = replica(clock);
    for (const u of updates) one.apply(u);
    for (const u of [...shuffled, ...shuffled.slice(0, 50)]) two.apply(u);
    expect(view(two, 'org_a')).toEqual(view(one, 'org_a'));
    // every worker at their latest report; the excluded ones (version 4 with identity_revoked) absent
    expect(view(one, 'org_a')).toHaveLength(32);
    expect(two.get('org_a', 'w0')).toMatchObject({ excludedBecause: 'identity_revoked', committed: { version: 4 } });
    expect(two.get('org_a', 'w1')).toMatchObject({ excludedBecause: null, presence: 'reporting', report: { at: t - 1000 } });
  });

  it('an older part never replaces a newer one; an update that brings nothing newer changes nothing', () => {
    const clock = new ManualClock();
    const r = replica(clock);
    const t = clock.now();
    expect(r.apply(at('org_a', 'w', committed(3), { at: t, latitude: 6.5, longitude: 3.4 })).newer).toBe(true);
    const stale = r.apply(at('org_a', 'w', committed(2, { available: false }), { at: t - 1000, latitude: 6.6, longitude: 3.5 }));
    expect(stale.newer).toBe(false);
    expect(r.get('org_a', 'w')).toMatchObject({ committed: { version: 3, available: true }, report: { at: t, latitude: 6.5 } });
    expect(r.map.position('org_a', 'w')).toMatchObject({ latitude: 6.5 });
    // the committed part alone, newer: out of the map at once, the report kept
    expect(r.apply(at('org_a', 'w', committed(4, { available: false }), null)).record.excludedBecause).toBe('not_available');
    expect(r.map.has('org_a', 'w')).toBe(false);
  });

  it('each organisation has its own map: one worker_id in two organisations is two records', () => {
    const clock = new ManualClock();
    const r = replica(clock);
    const t = clock.now();
    r.apply(at('org_a', 'w', committed(1), { at: t, latitude: 6.5, longitude: 3.4 }));
    r.apply(at('org_b', 'w', committed(1, { available: false }), { at: t, latitude: 6.6, longitude: 3.4 }));
    expect(view(r, 'org_a')).toEqual([['w', 6.5]]);
    expect(view(r, 'org_b')).toEqual([]);
  });

  it('presence by this node\u2019s clock: the worker leaves at stale, and the record goes once nothing is left to time', async () => {
    const clock = new ManualClock();
    const r = replica(clock);
    const t = clock.now();
    r.apply(at('org_a', 'w', committed(1, { since: t - 10_000 }), { at: t, latitude: 6.5, longitude: 3.4 }));
    expect(r.map.has('org_a', 'w')).toBe(true);
    await clock.advance(STALE);
    expect(r.get('org_a', 'w')).toMatchObject({ presence: 'stale', excludedBecause: 'presence_stale' });
    expect(r.map.has('org_a', 'w')).toBe(false);
    await clock.advance(GHOST - STALE);
    expect(r.get('org_a', 'w')).toBeUndefined();
    expect(r.size).toBe(0);
    // the next report brings the worker back
    r.apply(at('org_a', 'w', committed(1, { since: t - 10_000 }), { at: clock.now(), latitude: 6.5, longitude: 3.4 }));
    expect(r.map.has('org_a', 'w')).toBe(true);
  });
});
