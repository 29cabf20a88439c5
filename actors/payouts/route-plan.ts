/**
 * Route plan (spec 2.11 RoutePlan, 8 payout failover): for one instruction, a primary rail fixed
 * when the plan is made, ordered fallback rails (at least one), the reasoning behind the order
 * (limits, bank reach, recent rail health) and max_attempts. Made once; never edited.
 *
 * command  condition                          events              next
 * -------  ---------------------------------  ------------------  ----
 * create   >= 1 fallback, rails distinct      route_plan.created  made
 * create   already made                       - (the same plan)   made
 */
import { defineActor, iso } from '../../runtime/index.ts';
import { fieldError, oneShotRecord, type OneShotState, recordView } from '../../kernel/index.ts';
import { ROUTE_PLAN_PREFIX } from './ids.ts';

export interface CreatePlan {
  livemode: boolean;
  instruction_id: string;
  primary_rail_id: string;
  fallback_rail_ids: string[];
  reasoning: string[];
  max_attempts: number;
  policy_version: string;
}

export type RoutePlanState = OneShotState & CreatePlan;

export const RoutePlan = defineActor({
  kind: 'route_plan',
  prefix: ROUTE_PLAN_PREFIX,
  ...oneShotRecord('route_plan.created', (): CreatePlan => ({ livemode: false, instruction_id: '', primary_rail_id: '', fallback_rail_ids: [], reasoning: [], max_attempts: 1, policy_version: '' }), {
    command: 'create',
    check: (cmd) => {
      const rails = [cmd.primary_rail_id, ...cmd.fallback_rail_ids];
      if (cmd.fallback_rail_ids.length < 1 || new Set(rails).size !== rails.length || cmd.max_attempts < 1) {
        throw fieldError('/fallback_rail_ids', 'invalid_plan', 'A plan has a primary rail and at least one fallback rail, all distinct, and max_attempts >= 1.');
      }
    },
    lists: (s) => [`instruction:${s.instruction_id}`],
  }),
  view: (s: RoutePlanState) => (recordView('route_plan', s.id, s.livemode, false, {
    instruction_id: s.instruction_id,
    primary_rail_id: s.primary_rail_id,
    fallback_rail_ids: s.fallback_rail_ids,
    reasoning: s.reasoning,
    max_attempts: s.max_attempts,
    policy_version: s.policy_version,
    created_at: iso(s.created_at),
  })),
});
