/**
 * The ranking weight set (spec 9: weight sets carry a YYYY.MM.N version; an active version never
 * changes): how much each factor counts, how an evidence class scores, the reliability prior
 * (a worker with no completed assignments counts as the prior, pulled towards their record as it
 * grows), when presence counts as fresh, and the work order defaults and limits. Identified by the
 * sha256 of its canonical JSON; a work order keeps the version it was ranked under.
 */
import { readFileSync, readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { contentHash } from '../../../kernel/index.ts';

export const FACTORS = ['distance', 'evidence', 'freshness', 'reliability', 'presence'] as const;
export type Factor = (typeof FACTORS)[number];

export interface WeightSet {
  name: 'allocation_weight_set';
  version: string;
  factors: Record<Factor, number>;
  evidence_class_scores: Record<string, number>;
  reliability_prior: number;
  reliability_prior_weight: number;
  presence_full_within_seconds: number;
  candidate_pool: number;
  excluded_shown: number;
  default_offer_timeout_seconds: number;
  default_cascade_width: number;
  max_headcount: number;
  max_radius_metres: number;
  /** How far from the point candidates are sought when the work order names no search radius (at least its geofence). */
  default_search_radius_metres: number;
}

export interface LoadedWeights {
  set: WeightSet;
  hash: string;
}

const VERSION = /^\d{4}\.(0[1-9]|1[0-2])\.[1-9]\d*$/;
const dir = join(dirname(fileURLToPath(import.meta.url)), 'weights');

export function checkWeights(raw: unknown): LoadedWeights {
  const w = raw as WeightSet;
  const problems: string[] = [];
  if (w?.name !== 'allocation_weight_set') problems.push('name');
  if (typeof w?.version !== 'string' || !VERSION.test(w.version)) problems.push('version');
  const sum = FACTORS.reduce((a, f) => a + (w?.factors?.[f] ?? NaN), 0);
  if (!(Math.abs(sum - 1) < 1e-9) || FACTORS.some((f) => !(w.factors[f] >= 0))) problems.push('factors (non-negative, summing to 1)');
  if (!(w?.reliability_prior >= 0 && w.reliability_prior <= 1) || !(w.reliability_prior_weight >= 0)) problems.push('reliability');
  for (const k of ['candidate_pool', 'excluded_shown', 'default_offer_timeout_seconds', 'default_cascade_width', 'max_headcount', 'max_radius_metres', 'presence_full_within_seconds', 'default_search_radius_metres'] as const) if (!(w?.[k] > 0)) problems.push(k);
  if (problems.length) throw new Error(`allocation weight set is not well formed: ${problems.join(', ')}`);
  return { set: w, hash: contentHash(w) };
}

const sets = new Map<string, LoadedWeights>();
for (const f of readdirSync(dir).filter((n) => n.endsWith('.json'))) {
  const l = checkWeights(JSON.parse(readFileSync(join(dir, f), 'utf8')));
  sets.set(l.set.version, l);
}

export const ACTIVE_WEIGHTS: LoadedWeights = [...sets.values()].sort((a, b) => (a.set.version < b.set.version ? 1 : -1))[0]!;
export const weightsVersion = (v: string): LoadedWeights | undefined => sets.get(v);
