/**
 * The ranking (spec 4.7), one thing read two ways: the order a work order opens with
 * (rankForOpen) and the same order explained (rankWith, GET .../ranking). Both are held to an
 * oracle that does the rule the plain way on seeded random workers: the nearest candidate_pool,
 * the gates in order (passport, engagement, credentials), the weighted score, higher first, ties
 * by the nearer, then worker_id.
 */
import { describe, expect, it } from 'vitest';
import { rankForOpen, rankWith, type RankingSources, ACTIVE_WEIGHTS } from '../../actors/allocation/index.ts';
import type { WeightSet } from '../../actors/allocation/work-orders/weights.ts';
import { metresToA } from '../../actors/allocation/geo.ts';
import { rng } from '../../support/rng.ts';

type Worker = ReturnType<typeof workersOf>[number];

function workersOf(seed: number, n: number) {
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
  return workers;
}

function sources(workers: Worker[]): RankingSources {
  const by = new Map(workers.map((w) => [w.worker_id, w]));
  // subject numbers: the worker's index; the nearest first, ties by worker id, as the supply map answers
  const nearest = (limit: number) => [...workers].sort((a, b) => a.distance_metres - b.distance_metres || (a.worker_id < b.worker_id ? -1 : 1)).slice(0, limit);
  return {
    nearestInto: (_o, _la, _ln, _r, limit, out) => {
      const near = nearest(limit).reverse(); // the ranking orders candidates itself: the buffer may be in any order
      near.forEach((w, i) => ((out.ids[i] = w.worker_id), (out.a[i] = metresToA(w.distance_metres)), (out.subjects[i] = workers.indexOf(w))));
      return (out.count = near.length);
    },
    reportAt: (n) => workers[n].last ?? -Infinity,
    completedAt: (n) => workers[n].settled.completed,
    failedAt: (n) => workers[n].settled.failed,
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

const NOW = 1_000_000;
const round = (x: number) => Math.round(x * 1e6) / 1e6;
const clamp = (x: number) => Math.min(1, Math.max(0, x));
const mean = (xs: number[]) => (xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : 1);

/** The rule the plain way, by worker id: what the ranking must answer. */
function oracle(workers: Worker[], f: { search_radius_metres: number; occupation_code: string | null; claim_codes: readonly string[] }, w: WeightSet) {
  const near = [...workers].sort((a, b) => a.distance_metres - b.distance_metres || (a.worker_id < b.worker_id ? -1 : 1)).slice(0, w.candidate_pool);
  const asks = f.occupation_code !== null || f.claim_codes.length > 0;
  const gate = (x: Worker) => (!x.live ? 'passport_not_live' : !x.current ? 'engagement_not_current' : asks && !x.eligible ? 'licence_missing' : null);
  const kept = near.filter((x) => !gate(x));
  const scoreOf = (x: Worker) => {
    const claims = asks ? x.claims : [];
    const v: Record<string, number> = {
      distance: clamp(1 - x.distance_metres / f.search_radius_metres),
      evidence: mean(claims.map((c) => (c.evidence_class ? (w.evidence_class_scores[c.evidence_class] ?? 0) : 0))),
      freshness: mean(claims.map((c) => clamp(c.freshness))),
      reliability: clamp((x.settled.completed + w.reliability_prior * w.reliability_prior_weight) / (x.settled.completed + x.settled.failed + w.reliability_prior_weight)),
      presence: x.last === undefined ? 0 : clamp((NOW - x.last) / 1000 <= w.presence_full_within_seconds ? 1 : w.presence_full_within_seconds / ((NOW - x.last) / 1000)),
    };
    return round(Object.keys(w.factors).reduce((a, k) => a + v[k] * w.factors[k as keyof typeof w.factors], 0));
  };
  const ranked = kept.map((x) => ({ id: x.worker_id, score: scoreOf(x), d: round(x.distance_metres) })).sort((a, b) => b.score - a.score || a.d - b.d || (a.id < b.id ? -1 : 1));
  return { ranked, excluded: near.filter((x) => gate(x)).map((x) => ({ id: x.worker_id, because: gate(x)! })) };
}

describe('the ranking (spec 4.7)', () => {
  for (const [name, ask] of [
    ['with an occupation (every gate)', { occupation_code: 'ng-8322', claim_codes: [] as string[] }],
    ['with claims only', { occupation_code: null, claim_codes: ['c0', 'c1'] as string[] }],
    ['with no credential requirement', { occupation_code: null, claim_codes: [] as string[] }],
  ] as const) {
    it(`the work order opens with the oracle's candidates, scores and order, and GET .../ranking explains the same, ${name}`, () => {
      for (let seed = 1; seed <= 25; seed++) {
        const workers = workersOf(seed, 260);
        const src = sources(workers);
        const f = { location: { latitude: 6.5, longitude: 3.4, radius_metres: 300 }, search_radius_metres: 5000, ...ask };
        const want = oracle(workers, f, ACTIVE_WEIGHTS.set);
        const lean = rankForOpen(src, NOW, 'org_x', f, ACTIVE_WEIGHTS.set);
        const explained = rankWith(src, NOW, 'org_x', f, ACTIVE_WEIGHTS.set);
        // a candidate's rank is its position
        expect(lean.candidate_ids).toEqual(want.ranked.map((c) => c.id));
        expect(lean.candidate_scores).toEqual(want.ranked.map((c) => c.score));
        expect(lean.excluded).toBe(want.excluded.length);
        expect(explained.ranked.map((c) => [c.worker_id, c.rank, c.score])).toEqual(want.ranked.map((c, i) => [c.id, i + 1, c.score]));
        // each ranked candidate's contributions make its score; excluded ones come nearest first, each with its gate
        for (const c of explained.ranked) expect(Object.values(c.factors).reduce((a, x) => a + x.contribution, 0)).toBeCloseTo(c.score, 5);
        expect(explained.excluded.map((c) => [c.worker_id, c.excluded_because])).toEqual(want.excluded.map((c) => [c.id, c.because]));
        expect(lean.candidate_ids.length).toBeGreaterThan(0);
        expect(lean.excluded).toBeGreaterThan(0);
      }
    });
  }
});
