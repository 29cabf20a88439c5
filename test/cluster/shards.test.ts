/**
 * Shard placement (DESIGN "Sharding"): a fixed hash per actor, and rendezvous hashing over the live
 * nodes, so a node leaving moves only its own shards and a node joining takes only a share.
 */
import { describe, expect, it } from 'vitest';
import { DEFAULT_SHARDS, preferredOwner, shardOf, shardOfStream } from '../../runtime/cluster/index.ts';

const all = Array.from({ length: DEFAULT_SHARDS }, (_, s) => s);
const placement = (nodes: string[]) => new Map(all.map((s) => [s, preferredOwner(s, nodes)!]));

describe('shard placement (DESIGN "Sharding")', () => {
  it('an actor always maps to the same shard, the same from its journal stream name', () => {
    expect(shardOf('payroll_run', 'run_enterprise_abc')).toBe(shardOf('payroll_run', 'run_enterprise_abc'));
    expect(shardOfStream('payroll_run.run_enterprise_abc')).toBe(shardOf('payroll_run', 'run_enterprise_abc'));
    const used = new Set(Array.from({ length: 5000 }, (_, i) => shardOf('k', `id_${i}`)));
    expect(used.size).toBe(DEFAULT_SHARDS);
  });

  it("an actor's shard is FNV-1a of `kind:id` mod the shard count, fixed across versions (nodes of two versions agree during a rolling restart)", () => {
    expect(shardOf('payroll_run', 'run_enterprise_abc')).toBe(184);
    expect(shardOf('bench_meter', 'mtr_1')).toBe(148);
    expect(shardOf('webhook_delivery', 'webhook_delivery_x9')).toBe(29);
  });

  it('three nodes each get a fair share; every node computes the same owner', () => {
    const p = placement(['node1', 'node2', 'node3']);
    const counts = ['node1', 'node2', 'node3'].map((n) => [...p.values()].filter((o) => o === n).length);
    for (const c of counts) expect(c).toBeGreaterThan(DEFAULT_SHARDS * 0.2);
    expect(placement(['node3', 'node1', 'node2'])).toEqual(p);
  });

  it('a node leaving moves only its shards; a node joining takes shards only for itself', () => {
    const three = placement(['node1', 'node2', 'node3']);
    const two = placement(['node1', 'node2']);
    for (const s of all) if (three.get(s) !== 'node3') expect(two.get(s)).toBe(three.get(s));
    const four = placement(['node1', 'node2', 'node3', 'node4']);
    for (const s of all) if (four.get(s) !== 'node4') expect(four.get(s)).toBe(three.get(s));
    expect([...four.values()].filter((o) => o === 'node4').length).toBeGreaterThan(DEFAULT_SHARDS * 0.15);
  });

  it('no live nodes: no owner', () => {
    expect(preferredOwner(3, [])).toBeUndefined();
  });
});
