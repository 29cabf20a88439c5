/** The H3 supply map query (DESIGN "The supply map"): exact nearest-N within R, identical to a brute-force scan. */
import { describe, expect, it } from 'vitest';
import { NearestBuffer, SupplyIndex } from '../../actors/allocation/index.ts';
import { SupplyMap, excludedBecause, type SupplyFacts } from '../../actors/allocation/supply/supply-map.ts';
import { rng } from '../../support/rng.ts';
import { bruteForce, idsOf, placedIn } from './oracle.ts';

describe('supply map query: exact nearest N within R by ring expansion', () => {
  it('identical to a brute-force scan on 10,000 random workers and 1,000 random queries (Lagos, resolution 9)', () => {
    const rnd = rng(20260105);
    const ix = new SupplyIndex(9, 5);
    for (let i = 0; i < 10_000; i++) ix.upsert(`wrk_${i}`, 6.4 + rnd() * 0.3, 3.2 + rnd() * 0.4);
    // movement and departures too: the index must stay exact as workers move between cells
    for (let i = 0; i < 2_000; i++) ix.upsert(`wrk_${Math.floor(rnd() * 10_000)}`, 6.4 + rnd() * 0.3, 3.2 + rnd() * 0.4);
    for (let i = 0; i < 500; i++) ix.remove(`wrk_${Math.floor(rnd() * 10_000)}`);
    const placed = placedIn(ix, idsOf('wrk_', 10_000));
    expect(placed).toHaveLength(ix.size); // the oracle scans every worker the index holds
    let nonEmpty = 0;
    let mismatches = 0;
    for (let q = 0; q < 1_000; q++) {
      const lat = 6.38 + rnd() * 0.34;
      const lng = 3.18 + rnd() * 0.44;
      const radius = [250, 1000, 2500, 5000][q % 4];
      const limit = [1, 10, 50, 100][(q >> 2) % 4];
      const got = ix.nearest(lat, lng, radius, limit);
      const want = bruteForce(placed, lat, lng, radius, limit);
      if (JSON.stringify(got) !== JSON.stringify(want)) mismatches++;
      if (want.length) nonEmpty++;
    }
    expect(mismatches).toBe(0);
    expect(nonEmpty).toBeGreaterThan(700); // the comparison is not vacuous
  });

  it('identical to brute force where the map is dense (ring expansion finishes) and where it is sparse (full-scan path)', () => {
    const rnd = rng(5);
    const ix = new SupplyIndex(9, 5);
    for (let i = 0; i < 10_000; i++) ix.upsert(`d${i}`, 6.5 + rnd() * 0.03, 3.35 + rnd() * 0.03); // ~3 km square
    for (let i = 0; i < 200; i++) ix.upsert(`s${i}`, 6.0 + rnd() * 2, 3.0 + rnd() * 2); // thin spread around it
    const placed = placedIn(ix, [...idsOf('d', 10_000), ...idsOf('s', 200)]);
    expect(placed).toHaveLength(ix.size);
    for (let q = 0; q < 500; q++) {
      const dense = q % 2 === 0;
      const lat = dense ? 6.5 + rnd() * 0.03 : 6.0 + rnd() * 2;
      const lng = dense ? 3.35 + rnd() * 0.03 : 3.0 + rnd() * 2;
      const radius = dense ? 2000 : 40_000;
      const limit = [5, 50][q % 4 >> 1];
      expect(ix.nearest(lat, lng, radius, limit)).toEqual(bruteForce(placed, lat, lng, radius, limit));
    }
  });

  it('identical to brute force at another resolution (7) and with small moves inside a cell', () => {
    const rnd = rng(7);
    const ix = new SupplyIndex(7, 4);
    for (let i = 0; i < 3_000; i++) ix.upsert(`w${i}`, 6.4 + rnd() * 0.3, 3.2 + rnd() * 0.4);
    for (let i = 0; i < 3_000; i++) {
      const p = ix.position(`w${i}`)!;
      ix.upsert(`w${i}`, p.latitude + (rnd() - 0.5) * 0.002, p.longitude + (rnd() - 0.5) * 0.002);
    }
    const placed = placedIn(ix, idsOf('w', 3_000));
    expect(placed).toHaveLength(ix.size);
    for (let q = 0; q < 200; q++) {
      const lat = 6.4 + rnd() * 0.3;
      const lng = 3.2 + rnd() * 0.4;
      expect(ix.nearest(lat, lng, 3000, 20)).toEqual(bruteForce(placed, lat, lng, 3000, 20));
    }
  });

  it('identical to brute force where the map holds few workers for the limit (one pass over them)', () => {
    const rnd = rng(11);
    const ix = new SupplyIndex(9, 5);
    for (let i = 0; i < 600; i++) ix.upsert(`f${i}`, 6.45 + rnd() * 0.01, 3.39 + rnd() * 0.01);
    for (let i = 0; i < 100; i++) ix.remove(`f${Math.floor(rnd() * 600)}`);
    const placed = placedIn(ix, idsOf('f', 600));
    expect(placed).toHaveLength(ix.size);
    for (let q = 0; q < 200; q++) {
      const lat = 6.44 + rnd() * 0.03;
      const lng = 3.38 + rnd() * 0.03;
      // limits at which the map is small (>= size / 4) and at which the rings run
      const limit = [200, 150, 20, 1][q % 4];
      const radius = [300, 1000, 5000][q % 3];
      expect(ix.nearest(lat, lng, radius, limit)).toEqual(bruteForce(placed, lat, lng, radius, limit));
    }
  });

  it('nearestInto answers what nearest answers, with the subject number each worker was given, into one reused buffer (dense, sparse and small maps)', () => {
    const rnd = rng(11);
    const ix = new SupplyIndex(9, 5);
    const numberOf = new Map<string, number>();
    const put = (id: string, lat: number, lng: number) => {
      if (!numberOf.has(id)) numberOf.set(id, numberOf.size * 3 + 1);
      ix.upsert(id, lat, lng, numberOf.get(id)!);
    };
    for (let i = 0; i < 6_000; i++) put(`d${i}`, 6.5 + rnd() * 0.03, 3.35 + rnd() * 0.03);
    for (let i = 0; i < 300; i++) put(`s${i}`, 6.0 + rnd() * 2, 3.0 + rnd() * 2);
    for (let i = 0; i < 1_000; i++) put(`d${Math.floor(rnd() * 6_000)}`, 6.5 + rnd() * 0.03, 3.35 + rnd() * 0.03); // moves keep the number
    for (let i = 0; i < 300; i++) ix.remove(`d${Math.floor(rnd() * 6_000)}`);
    const small = new SupplyIndex(9, 5);
    for (let i = 0; i < 40; i++) small.upsert(`m${i}`, 6.5 + rnd() * 0.01, 3.35 + rnd() * 0.01, 1000 + i);
    const buf = new NearestBuffer();
    const loose = new NearestBuffer(false);
    let compared = 0;
    for (let q = 0; q < 400; q++) {
      const index = q % 5 === 0 ? small : ix;
      const lat = 6.49 + rnd() * 0.05;
      const lng = 3.34 + rnd() * 0.05;
      const radius = [200, 1000, 5000, 60_000][q % 4];
      const limit = [1, 20, 200][q % 3];
      const want = index.nearest(lat, lng, radius, limit);
      expect(index.nearestInto(lat, lng, radius, limit, buf)).toBe(want.length);
      expect(buf.count).toBe(want.length);
      expect(buf.ids).toEqual(want.map((w) => w.worker_id));
      expect(buf.ids.map((_, i) => buf.metres(i))).toEqual(want.map((w) => w.distance_metres));
      expect(buf.subjects).toEqual(want.map((w) => (index === small ? 1000 + Number(w.worker_id.slice(1)) : numberOf.get(w.worker_id))));
      compared += want.length;
      // unsorted: the same workers with the same numbers and distances, in no particular order
      index.nearestInto(lat, lng, radius, limit, loose);
      const rows = (b: NearestBuffer) => b.ids.map((id, i) => `${id} ${b.subjects[i]} ${b.metres(i)}`).sort();
      expect(rows(loose)).toEqual(rows(buf));
    }
    expect(compared).toBeGreaterThan(10_000);
  });

  it('ties are broken by worker id, nearest first', () => {
    const ix = new SupplyIndex(9, 5);
    ix.upsert('b', 6.5, 3.4);
    ix.upsert('a', 6.5, 3.4);
    ix.upsert('c', 6.5001, 3.4);
    expect(ix.nearest(6.5, 3.4, 100, 3).map((n) => n.worker_id)).toEqual(['a', 'b', 'c']);
    expect(ix.nearest(6.5, 3.4, 5, 3).map((n) => n.worker_id)).toEqual(['a', 'b']);
  });

  it('regions partition the cells by a coarse parent cell', () => {
    const ix = new SupplyIndex(9, 5);
    ix.upsert('lagos', 6.5, 3.4);
    ix.upsert('ibadan', 7.38, 3.9);
    expect(ix.regionList()).toHaveLength(2);
    ix.remove('ibadan');
    expect(ix.regionList().map((r) => r.workers)).toEqual([1]);
  });
});

describe('supply map membership and exclusions (spec 2.8 excluded_because)', () => {
  const base: SupplyFacts = { available: true, onAssignment: false, presence: 'reporting', latitude: 6.5, longitude: 3.4, suspended: false, flagOpen: false, external: [] };

  it('excluded_because names the first reason that applies, integrity_flag_upheld first', () => {
    expect(excludedBecause(base)).toBeNull();
    expect(excludedBecause({ ...base, external: ['identity_revoked'], suspended: true })).toBe('identity_revoked');
    expect(excludedBecause({ ...base, suspended: true, available: false })).toBe('integrity_flag_upheld');
    expect(excludedBecause({ ...base, flagOpen: true })).toBe('integrity_flag_open');
    expect(excludedBecause({ ...base, available: false })).toBe('not_available');
    expect(excludedBecause({ ...base, onAssignment: true })).toBe('on_assignment');
    expect(excludedBecause({ ...base, presence: 'ghost' })).toBe('presence_ghost');
    expect(excludedBecause({ ...base, presence: 'stale' })).toBe('presence_stale');
    expect(excludedBecause({ ...base, latitude: undefined })).toBe('no_position');
  });

  it('enters, moves, leaves immediately, and writes nothing when nothing that matters changed', () => {
    const m = new SupplyMap(9, 5);
    expect(m.apply('org_a', 'w', base).change).toBe('entered');
    expect(m.apply('org_a', 'w', base).change).toBe('unchanged');
    expect(m.apply('org_a', 'w', { ...base, latitude: 6.51 }).change).toBe('moved');
    expect(m.apply('org_a', 'w', { ...base, suspended: true })).toEqual({ change: 'left', excluded_because: 'integrity_flag_upheld' });
    expect(m.nearest('org_a', 6.5, 3.4, 5000, 10)).toEqual([]);
  });

  it('organisations never see each other\u2019s workers (spec 5.5)', () => {
    const m = new SupplyMap(9, 5);
    m.apply('org_a', 'w', base);
    expect(m.nearest('org_b', 6.5, 3.4, 5000, 10)).toEqual([]);
    expect(m.nearest('org_a', 6.5, 3.4, 5000, 10).map((n) => n.worker_id)).toEqual(['w']);
  });
});
