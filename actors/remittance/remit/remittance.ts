/**
 * A remittance (spec 2.10, 3 "Remittance instruction set", 4.9): the payment of one accepted
 * instruction set to its authorities, one leg per authority (leg.ts). Made from an accepted set
 * only ("nothing is committed until accepted"), approved under maker-checker as a payroll run is
 * (spec 8: the preparer cannot approve above the organisation's threshold; people are compared,
 * not credentials), then executed: its legs start and run independently. It completes when every
 * leg's receipt is vaulted.
 *
 * status            command           condition                                               events                  next
 * ----------------  ----------------  ------------------------------------------------------  ----------------------  ----------------
 * (none)            create            the set is accepted and has no remittance yet           remittance.created      pending_approval
 * (exists)          create            -                                                       refused (409): one remittance per set
 * pending_approval  approve           approving person != preparing person when the total    remittance.approved     approved
 *                                     is above the organisation's maker-checker threshold
 * approved          execute           -                                                       remittance.executing    executing
 * executing         execute           (again: the handler makes any leg still missing)        - (nothing)             executing
 * executing         leg_completed     (reaction) leg.completed; the last one                  remittance.leg_completed executing
 *                                                                                             [+ remittance.completed] [completed]
 * others            approve, execute  -                                                       refused (409 conflict)
 */
import { ApiError, factsOf, recordView } from '../../../kernel/index.ts';
import { defineActor, type IndexEntry, iso, type Reaction, sortKeyTime } from '../../../runtime/index.ts';
import { REMITTANCE_PREFIX } from './ids.ts';
import type { LegPlan } from './leg.ts';

export type RemittanceStatus = 'pending_approval' | 'approved' | 'executing' | 'completed';
export const REMITTANCE_STATUSES: readonly RemittanceStatus[] = ['pending_approval', 'approved', 'executing', 'completed'];

export interface PlannedLeg extends LegPlan {
  leg_id: string;
  return_id: string;
}

export interface CreateRemittance {
  instruction_set_id: string;
  run_id: string | null;
  period: string;
  currency: string;
  livemode: boolean;
  total: number;
  legs: PlannedLeg[];
  prepared_by: string | null;
}

export interface RemittanceState extends CreateRemittance {
  id: string;
  org: string;
  status: RemittanceStatus;
  prepared_with: string | null;
  approved_by: string | null;
  approved_with: string | null;
  maker_checker_threshold: number | null;
  completed_leg_ids: string[];
  created_at: number;
  approved_at: number | null;
  executed_at: number | null;
  completed_at: number | null;
}

type Ev =
  | ({ type: 'remittance.created'; prepared_with: string | null } & CreateRemittance)
  | { type: 'remittance.approved'; approved_by: string | null; approved_with: string | null; threshold: number }
  | { type: 'remittance.executing'; leg_ids: string[] }
  | { type: 'remittance.leg_completed'; leg_id: string }
  | { type: 'remittance.completed'; period: string; instruction_set_id: string };

const refuse = (s: RemittanceState, why: string) => new ApiError('conflict', `Remittance ${s.id} is ${s.status}: ${why}.`, { status: s.status });

const fromLeg: Reaction = {
  from: 'remittance_leg',
  events: ['leg.completed'],
  command: 'leg_completed',
  target: (event, source) => ({ id: (event.data as { remittance_id: string }).remittance_id, payload: { leg_id: source.id } }),
};

export const Remittance = defineActor({
  kind: 'remittance',
  prefix: REMITTANCE_PREFIX,
  creates: ['create'],
  initial: (id: string, org: string): RemittanceState => ({
    id, org, instruction_set_id: '', run_id: null, period: '', currency: 'NGN', livemode: false, total: 0, legs: [], prepared_by: null,
    status: 'pending_approval', prepared_with: null, approved_by: null, approved_with: null, maker_checker_threshold: null, completed_leg_ids: [],
    created_at: 0, approved_at: null, executed_at: null, completed_at: null,
  }),
  decide: {
    create(s: RemittanceState, cmd: CreateRemittance, ctx): Ev[] {
      if (ctx.version > 0) throw new ApiError('conflict', `Instruction set ${s.instruction_set_id} already has remittance ${s.id} (${s.status}); a set is remitted once.`, { remittance_id: s.id, status: s.status });
      return [{ type: 'remittance.created', ...cmd, prepared_by: cmd.prepared_by ?? ctx.principal ?? null, prepared_with: ctx.principal ?? null }];
    },
    approve(s: RemittanceState, cmd: { threshold: number; person?: string | null }, ctx): Ev[] {
      if (s.status !== 'pending_approval') throw refuse(s, 'only a remittance pending approval can be approved');
      // People, not credentials (spec 8; as a payroll run): a second key of the preparer is still the preparer.
      const approver = cmd.person ?? ctx.principal ?? null;
      if (approver !== null && approver === s.prepared_by && s.total > cmd.threshold) {
        throw new ApiError('conflict', `The preparer of remittance ${s.id} (${approver}) cannot approve it with any of their credentials: its total (${s.total} kobo) is above the organisation's maker-checker threshold (${cmd.threshold} kobo).`, { reason: 'maker_checker' });
      }
      return [{ type: 'remittance.approved', approved_by: approver, approved_with: ctx.principal ?? null, threshold: cmd.threshold }];
    },
    execute(s: RemittanceState): Ev[] {
      if (s.status === 'executing') return [];
      if (s.status !== 'approved') throw refuse(s, s.status === 'pending_approval' ? 'a remittance that has not been approved cannot be executed' : 'it was executed before');
      return [{ type: 'remittance.executing', leg_ids: s.legs.map((l) => l.leg_id) }];
    },
    leg_completed(s: RemittanceState, cmd: { leg_id: string }): Ev[] {
      if (s.status !== 'executing' || s.completed_leg_ids.includes(cmd.leg_id) || !s.legs.some((l) => l.leg_id === cmd.leg_id)) return [];
      const out: Ev[] = [{ type: 'remittance.leg_completed', leg_id: cmd.leg_id }];
      if (s.completed_leg_ids.length + 1 === s.legs.length) out.push({ type: 'remittance.completed', period: s.period, instruction_set_id: s.instruction_set_id });
      return out;
    },
  },
  evolve(s: RemittanceState, e: Ev, meta): RemittanceState {
    switch (e.type) {
      case 'remittance.created':
        return { ...s, ...factsOf(e), status: 'pending_approval', created_at: meta.at };
      case 'remittance.approved':
        return { ...s, status: 'approved', approved_by: e.approved_by, approved_with: e.approved_with, maker_checker_threshold: e.threshold, approved_at: meta.at };
      case 'remittance.executing':
        return { ...s, status: 'executing', executed_at: meta.at };
      case 'remittance.leg_completed':
        return { ...s, completed_leg_ids: [...s.completed_leg_ids, e.leg_id] };
      case 'remittance.completed':
        return { ...s, status: 'completed', completed_at: meta.at };
    }
  },
  indexes(s: RemittanceState): IndexEntry[] {
    const key = sortKeyTime(s.created_at);
    return [{ list: 'all', sortKey: key }, { list: `status:${s.status}`, sortKey: key }, { list: `period:${s.period}`, sortKey: key }];
  },
  reactions: [fromLeg],
  view: remittanceView,
});

const money = (amount: number, currency: string) => ({ amount, currency });

export function remittanceView(s: RemittanceState) {
  return recordView('remittance', s.id, s.livemode, false, {
    status: s.status,
    instruction_set_id: s.instruction_set_id,
    run_id: s.run_id,
    period: s.period,
    total: money(s.total, s.currency),
    leg_count: s.legs.length,
    legs_completed: s.completed_leg_ids.length,
    legs: s.legs.map((l) => ({ leg_id: l.leg_id, authority_id: l.authority_id, authority_name: l.authority_name, levy: l.levy, amount: money(l.amount, s.currency), return_id: l.return_id })),
    prepared_by: s.prepared_by,
    approved_by: s.approved_by,
    maker_checker_threshold: s.maker_checker_threshold === null ? null : money(s.maker_checker_threshold, s.currency),
    created_at: iso(s.created_at),
    approved_at: s.approved_at === null ? null : iso(s.approved_at),
    executed_at: s.executed_at === null ? null : iso(s.executed_at),
    completed_at: s.completed_at === null ? null : iso(s.completed_at),
  });
}
