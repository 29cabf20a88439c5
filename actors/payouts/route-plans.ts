/**
 * Making an instruction's route plan (spec 2.11 RoutePlan, 8): the order of rails and the reasoning
 * behind it (limits, bank reach, recent rail health on this node), fixed once made (route-plan.ts).
 * A plan is made only for an instruction not yet executed and never for a quarantined one.
 */
import { ApiError, type Caller, fieldError, type Platform } from '../../kernel/index.ts';
import type { InstructionDocument } from './intake.ts';
import { type InstructionState, PayoutInstruction } from './instruction.ts';
import { ACTIVE_POLICY, railPolicy, type RailPolicy } from './policy.ts';
import { type CreatePlan, RoutePlan } from './route-plan.ts';
import { payoutsService } from './service.ts';

export interface PlanBody {
  primary_rail_id?: string;
  fallback_rail_ids?: string[];
  max_attempts?: number;
}

/** Recent health of a rail on this node (rail-calls.ts). */
export interface RailHealth {
  failureRatio(railId: string): { ratio: number; seen: number };
}

/** POST .../instructions/{id}/plan and POST /v1/payouts/route_plans; the run link plans a run's instruction the same way. */
export async function makePlan(platform: Platform, caller: Caller, instructionId: string, body: PlanBody, planId: string): Promise<unknown> {
  const { system } = platform;
  const svc = payoutsService(platform);
  const s = await system.state(PayoutInstruction, instructionId, caller.org);
  if (s.status === 'quarantined') throw new ApiError('conflict', `Payout instruction ${s.id} is quarantined (${s.quarantine_reason}); it is never planned or executed.`);
  if (s.route_plan_id) throw new ApiError('conflict', `Payout instruction ${s.id} already has route plan ${s.route_plan_id}; a plan is fixed when it is made.`);
  if (s.status !== 'received' && s.status !== 'funding_pending') throw new ApiError('conflict', `Payout instruction ${s.id} is ${s.status}; only an instruction not yet executed can be planned.`);
  const p = plan(svc.calls, s, await svc.documents.get(caller.org, s.id), body);
  const view = await system.ask(RoutePlan, planId, 'create', p, caller);
  await system.ask(PayoutInstruction, s.id, 'plan', { route_plan_id: planId }, { ...caller, dedupeId: `plan:${planId}` });
  return view;
}

/** The order of rails and why (spec 2.11 RoutePlan.reasoning): limits, bank reach, recent health. */
export function plan(health: RailHealth, s: InstructionState, doc: InstructionDocument, body: PlanBody): CreatePlan {
  const pack = ACTIVE_POLICY.pack;
  let largest = 0;
  let ofi = 0;
  for (const l of doc.lines) {
    largest = Math.max(largest, l.amount);
    if (typeof l.bank_code === 'string' && l.bank_code.length === 5) ofi++;
  }
  const reasoning: string[] = [];
  const facts = (r: RailPolicy) => {
    const h = health.failureRatio(r.id);
    const over = doc.lines.filter((l) => l.amount > r.per_transfer_max).length;
    const unreachable = r.reach === 'dmb_only' ? ofi : 0;
    return { r, h, over, unreachable, degraded: h.seen > 0 && h.ratio >= pack.health.degraded_failure_ratio };
  };
  let order: string[];
  if (body.primary_rail_id !== undefined || body.fallback_rail_ids !== undefined) {
    const chosen = [body.primary_rail_id ?? pack.default_order[0], ...(body.fallback_rail_ids ?? pack.default_order.filter((x) => x !== (body.primary_rail_id ?? pack.default_order[0])))];
    const unknown = chosen.filter((x) => !railPolicy(x));
    if (unknown.length) throw fieldError('/fallback_rail_ids', 'unknown_rail', `Unknown rail ${unknown[0]}.`, `Unknown rail ${unknown.join(', ')}; GET /v1/payouts/rails lists them.`);
    order = chosen;
    reasoning.push('Order chosen by the caller.');
  } else {
    const all = pack.default_order.map((id) => facts(railPolicy(id)!));
    // Healthy rails first in the pack's order; a degraded rail moves behind them.
    order = [...all.filter((f) => !f.degraded), ...all.filter((f) => f.degraded)].map((f) => f.r.id);
    reasoning.push(`Default order of payouts policy ${pack.version} (${pack.default_order.join(', ')}): instant interbank first (credited within 60 s), batch transfer next, wallet provider last.`);
  }
  for (const id of order) {
    const f = facts(railPolicy(id)!);
    const parts = [`${f.r.name} (${id}): per-transfer limit ${f.r.per_transfer_max} kobo`];
    if (f.over) parts.push(`${f.over} line(s) above it skip this rail`);
    parts.push(f.r.reach === 'dmb_only' ? `reaches deposit money banks only${f.unreachable ? ` (${f.unreachable} line(s) at other institutions skip it)` : ''}` : 'reaches every NUBAN institution');
    parts.push(f.h.seen ? `recent health: ${Math.round(f.h.ratio * 100)}% refused or timed out over the last ${f.h.seen} attempts${f.degraded ? ' (degraded: moved behind healthy rails)' : ''}` : 'recent health: no attempts seen yet on this node');
    reasoning.push(`${parts.join('; ')}.`);
  }
  const max_attempts = body.max_attempts ?? order.length;
  reasoning.push(`Largest line ${largest} kobo; at most ${max_attempts} attempt(s) per payout; a time-out is never failed over until the status query says failed.`);
  return { livemode: s.livemode, instruction_id: s.id, primary_rail_id: order[0], fallback_rail_ids: order.slice(1), reasoning, max_attempts, policy_version: pack.version };
}
