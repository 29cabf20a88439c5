/**
 * The payouts policy pack (spec 2.11, 8, 9; ../shared/reference/ng-payouts-remittance.md 3.1-3.4):
 * the rails and their limits and reach, the status-query schedule, what counts as degraded rail
 * health, the instruction's tally interval, and whether a run's instruction is paid by reaction. Data, versioned YYYY.MM.N, identified by the sha256 of
 * its canonical JSON; an active version never changes. Every [U] figure is a parameter here.
 *
 * PAYOUTS_TIME_SCALE (platform config, default 1) scales every waiting time of the pack: a test
 * or bench on a real clock shortens them all at once, keeping their proportions.
 */
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { contentHash } from '../../kernel/index.ts';

export type RailKind = 'instant_interbank' | 'batch_transfer' | 'wallet';

export interface RailPolicy {
  id: string;
  name: string;
  kind: RailKind;
  /** Kobo; a payout above it never goes on this rail. */
  per_transfer_max: number;
  /** all_nuban: any 3- or 5-digit CBN institution; dmb_only: 3-digit deposit money banks only. */
  reach: 'all_nuban' | 'dmb_only';
  answer_timeout_ms: number;
  basis: string;
}

export interface PayoutsPolicy {
  name: 'payouts_policy';
  version: string;
  currency: string;
  rails: RailPolicy[];
  default_order: string[];
  status_query: { first_after_ms: number; fast_interval_ms: number; fast_tries: number; slow_interval_ms: number; not_found_is_failed_after_ms: number };
  health: { window: number; degraded_failure_ratio: number };
  instruction: { tally_interval_ms: number; dispatch_chunk: number };
  passport: { required: boolean };
  /** Whether a run's instruction is paid by reaction or waits for a person's execute (a second check). */
  run_instructions: { execution: 'on_run_execution' | 'by_a_person' };
}

export interface LoadedPolicy {
  pack: PayoutsPolicy;
  hash: string;
}

const VERSION = /^\d{4}\.(0[1-9]|1[0-2])\.[1-9]\d*$/;

/** Throws on a pack that is not well formed: a bad pack must never become active. */
export function checkPolicy(raw: unknown): LoadedPolicy {
  const p = raw as PayoutsPolicy;
  const bad = (why: string) => new Error(`payouts policy: ${why}`);
  if (p?.name !== 'payouts_policy' || !VERSION.test(p.version)) throw bad('name or version');
  if (!Array.isArray(p.rails) || p.rails.length < 2) throw bad('at least two rails (a plan needs a fallback)');
  for (const r of p.rails) {
    if (!r.id.startsWith('route_multi_rail_rail_') || !Number.isSafeInteger(r.per_transfer_max) || r.per_transfer_max <= 0 || r.answer_timeout_ms <= 0) throw bad(`rail ${r.id}`);
  }
  if (p.default_order.some((id) => !p.rails.some((r) => r.id === id))) throw bad('default_order names an unknown rail');
  const q = p.status_query;
  if (!(q.first_after_ms > 0 && q.fast_interval_ms > 0 && q.fast_tries >= 1 && q.slow_interval_ms > 0 && q.not_found_is_failed_after_ms > 0)) throw bad('status_query');
  if (p.run_instructions?.execution !== 'on_run_execution' && p.run_instructions?.execution !== 'by_a_person') throw bad('run_instructions.execution');
  if (!(p.health.window >= 1 && p.health.degraded_failure_ratio > 0 && p.health.degraded_failure_ratio <= 1)) throw bad('health');
  return { pack: p, hash: contentHash(p) };
}

const dir = join(dirname(fileURLToPath(import.meta.url)), 'policy');
export const ACTIVE_POLICY: LoadedPolicy = checkPolicy(JSON.parse(readFileSync(join(dir, '2026.12.1.json'), 'utf8')));

export const railPolicy = (id: string): RailPolicy | undefined => ACTIVE_POLICY.pack.rails.find((r) => r.id === id);

/** Waiting times of the pack scaled by PAYOUTS_TIME_SCALE (1 unless a test or bench shortens them). */
export interface Timing {
  answerTimeout(railId: string): number;
  /** Delay before the n-th status query (1-based) of an attempt. */
  queryDelay(n: number): number;
  notFoundFailedAfter: number;
  tallyInterval: number;
}

export function timing(scale = 1): Timing {
  const p = ACTIVE_POLICY.pack;
  const s = (ms: number) => Math.max(1, Math.round(ms * scale));
  return {
    answerTimeout: (railId) => s(railPolicy(railId)?.answer_timeout_ms ?? 60_000),
    queryDelay: (n) => s(n <= 1 ? p.status_query.first_after_ms : n <= p.status_query.fast_tries ? p.status_query.fast_interval_ms : p.status_query.slow_interval_ms),
    notFoundFailedAfter: s(p.status_query.not_found_is_failed_after_ms),
    tallyInterval: s(p.instruction.tally_interval_ms),
  };
}
