/**
 * The rail reads the routes call (spec 2.11, 4.10 GET /v1/payouts/rails; the record is not shown:
 * docs/gaps.md#payouts): each rail's limits and reach from the policy pack, its status-query timing
 * as this node runs it, its recent health on this node and (sandbox) its documented test accounts.
 */
import { ApiError, listEnvelope, type ListEnvelope } from '../../kernel/index.ts';
import type { Platform } from '../../kernel/index.ts';
import { ACTIVE_POLICY } from './policy.ts';
import { payoutsService } from './service.ts';

export function railOf(platform: Platform, livemode: boolean, id: string) {
  const svc = payoutsService(platform);
  const p = ACTIVE_POLICY.pack.rails.find((r) => r.id === id);
  const rail = svc.calls.rail(id);
  if (!p || !rail) throw new ApiError('not_found', `No rail with id ${id}.`);
  const h = svc.calls.failureRatio(id);
  return {
    id, object: 'rail' as const, livemode, mocked: rail.mocked, name: p.name, kind: p.kind, currency: ACTIVE_POLICY.pack.currency,
    limits: { per_transfer_max: { amount: p.per_transfer_max, currency: ACTIVE_POLICY.pack.currency }, reach: p.reach, answer_timeout_ms: svc.timing.answerTimeout(id) },
    status_query: { first_after_ms: svc.timing.queryDelay(1), interval_ms: svc.timing.queryDelay(2), not_found_is_failed_after_ms: svc.timing.notFoundFailedAfter },
    recent_health: { attempts_seen: h.seen, failure_ratio: Math.round(h.ratio * 1000) / 1000 },
    test_accounts: rail.testAccounts,
    policy_version: ACTIVE_POLICY.pack.version,
    basis: p.basis,
  };
}

export function listRails(platform: Platform, livemode: boolean): ListEnvelope<unknown> {
  return listEnvelope(ACTIVE_POLICY.pack.rails.map((r) => railOf(platform, livemode, r.id)), false);
}
