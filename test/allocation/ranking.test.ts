/**
 * The ranking a work order opens with (dispatch rankForOpen) and the explained ranking of GET
 * .../ranking (rankWith) agree (spec 4.7: the ranking is one thing, read two ways): the same
 * candidates pass the same gates, with the same scores in the same order.
 */
import { describe, expect, it } from 'vitest';
import { rankForOpen, rankWith, type RankingSources, ACTIVE_WEIGHTS } from '../../actors/allocation/index.ts';
import { metresToA } from '../../actors/allocation/geo.ts';
import { rng } from '../../support/rng.ts';

function sources(seed: number, n: number): RankingSources {
  const r = rng(seed);
  const workers = Array.from({ length: n }, (_, i) => ({
    worker_id: `w${i}`,
    // ties of distance and of score happen: the order must still agree
    distance_metres: r() < 0.2 ? 1000 : Math.floor(r() * 5000 * 1000) / 1000,
    live: r() < 0.85,
    current: r() < 0.85,
    eligible: r() < 0.8,
    claims: Array.from({ length: Math.floor(r() * 3) }, (_, k) => ({ code: `c${k}`, freshness: r() * 1.2 - 0.1, evidence_class: r() < 0.2 ? null : ['e1_claimed', 'e2_attested', 'e3_documented', 'e4_verified_with_issuer', 'e5_demonstrated'][Math.floor(r() * 5)]! })),
    last: r() < 0.1 ? undefined : 1_000_000 - Math.floor(r() * 120_000),
    settled: { completed: Math.floor(r() * 10), failed: Math.floor(r() * 3) },
  }));
  const by = new Map(workers.map((w) => [w.worker_id, w]));
  // subject numbers: the worker's index (rankForOpen reads by number, rankWith by id)
  const nearest = (limit: number) => [...workers].sort((a, b) => a.distance_metres - b.distance_metres).slice(0, limit);
  return {
    nearest: (_o, _la, _ln, _r, limit) => nearest(limit),
    nearestInto: (_o, _la, _ln, _r, limit, out) => {
      const near = nearest(limit).reverse(); // rankForOpen orders candidates itself: the buffer may be in any order
      near.forEach((w, i) => ((out.ids[i] = w.worker_id), (out.a[i] = metresToA(w.distance_metres)), (out.subjects[i] = workers.indexOf(w))));
      return (out.count = near.length);
    },
    reportAt: (n) => workers[n].last ?? -Infinity,
    completedAt: (n) => workers[n].settled.completed,
    failedAt: (n) => workers[n].settled.failed,
    lastReadingAt: (_o, w) => by.get(w)!.last,
    assignmentsOf: (_o, w) => by.get(w)!.settled,
    gates: {
      isLive: (_o, w) => by.get(w)!.live,
      isCurrent: (_o, w) => by.get(w)!.current,
      eligibility: (_o, w, occupation, claims) => {
        if (!occupation && !claims.length) return null;
        const x = by.get(w)!;
        return { eligible: x.eligible, reasons: x.eligible ? [] : [{ code: 'licence_missing', detail: 'none' }], claims: x.claims };
      },
      liveAt: (n) => workers[n].live,
      currentAt: (n) => workers[n].current,
      credentialsFor: () => (n) => (workers[n].eligible ? workers[n].claims : null),
    },
  };
}

describe('ranking for opening a work order (spec 4.7)', () => {
  for (const [name, ask] of [
    ['with an occupation (every gate)', { occupation_code: 'ng-8322', claim_codes: [] as string[] }],
    ['with claims only', { occupation_code: null, claim_codes: ['c0', 'c1'] as string[] }],
    ['with no credential requirement', { occupation_code: null, claim_codes: [] as string[] }],
  ] as const) {
    it(`the work order opens with the explained ranking's candidates, scores and order, ${name}`, () => {
      for (let seed = 1; seed <= 25; seed++) {
        const src = sources(seed, 260);
        const f = { location: { latitude: 6.5, longitude: 3.4, radius_metres: 300 }, search_radius_metres: 5000, ...ask };
        const explained = rankWith(src, 1_000_000, 'org_x', f, ACTIVE_WEIGHTS.set);
        const lean = rankForOpen(src, 1_000_000, 'org_x', f, ACTIVE_WEIGHTS.set);
        // a candidate's rank is its position
        expect(lean.candidate_ids).toEqual(explained.ranked.map((c) => c.worker_id));
        expect(lean.candidate_scores).toEqual(explained.ranked.map((c) => c.score));
        expect(explained.ranked.map((c) => c.rank)).toEqual(explained.ranked.map((_, i) => i + 1));
        expect(lean.excluded).toBe(explained.excluded.length);
        expect(lean.candidate_ids.length).toBeGreaterThan(0);
        expect(lean.excluded).toBeGreaterThan(0);
      }
    });
  }
});
