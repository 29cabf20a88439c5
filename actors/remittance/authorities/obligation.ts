/**
 * Statutory obligation: what an organisation owes one authority for one levy and one period
 * (spec 4.9 POST /v1/remittance/obligations and GET /{obligation_id}; the record is not shown by
 * the spec: docs/gaps.md, "Remittance: intake, authorities, obligations"). One per authority, levy
 * and period: its id is derived from them. Lines come from accepted instruction sets (nothing is
 * committed before accept) and from POST obligations; the due date comes from the calendar rules
 * (calendar.ts) for the earliest pay date of its lines. A reminder at the end of the due date in
 * Lagos time makes an unremitted obligation late.
 *
 * status     command     condition                                   event                   next
 * ---------  ----------  ------------------------------------------  ----------------------  --------
 * (none)     add_line    authority collects the levy                 obligation.created,     due
 *                                                                    obligation.line_added
 * due|late   add_line    line reference not already on it            obligation.line_added   (same)
 * remitted   add_line    line reference not already on it (a later   obligation.line_added   due, or late once
 *                        set of the period, e.g. a correction run)                           its due date passed
 * due        mark_late   (timer) due date passed, not remitted       obligation.late         late
 * due|late   remit       receipt not already recorded                obligation.remitted     remitted
 * any        remit       receipt already recorded                    - (nothing)
 * remitted   remit       another receipt                             409 conflict
 */
import { defineActor, iso, sortKeyTime, type IndexEntry, type TimerWish } from '../../../runtime/index.ts';
import { assertNever, conflict, derivedId, type MoneyValue, recordView } from '../../../kernel/index.ts';
import { authorityById, type Levy } from './authorities.ts';
import { calendarEntryId, dueDateOf, lateAt } from './calendar.ts';

export const OBLIGATION_PREFIX = 'remit_authority_rail_statutory_obligation_';
export type ObligationStatus = 'due' | 'remitted' | 'late';
export const OBLIGATION_STATUSES: readonly ObligationStatus[] = ['due', 'remitted', 'late'];

/** One obligation per organisation, authority, levy and period. */
export const obligationIdOf = (org: string, authorityId: string, levy: Levy, period: string): string => derivedId(OBLIGATION_PREFIX, [org, authorityId, levy, period]);

export interface ObligationLine {
  /** The instruction set line's reconciliation reference, or `manual:<key>` for POST obligations. */
  reference: string;
  instruction_set_id: string | null;
  amount: number;
  pay_date: string;
  added_at: number;
}

export interface ObligationState {
  id: string;
  org: string;
  livemode: boolean;
  authority_id: string;
  levy: Levy;
  period: string;
  currency: string;
  status: ObligationStatus;
  lines: ObligationLine[];
  amount: number;
  pay_date: string;
  due_date: string | null;
  was_late: boolean;
  /** The latest remittance; `remittances` keeps every one (a line added after a remittance reopens the obligation). */
  remitted: { leg_id: string; receipt_id: string; remitted_at: number } | null;
  remittances: Array<{ leg_id: string; receipt_id: string; remitted_at: number; amount_then: number }>;
  created_at: number;
}

export interface AddLine {
  authority_id: string;
  levy: Levy;
  period: string;
  livemode: boolean;
  reference: string;
  instruction_set_id: string | null;
  amount: number;
  pay_date: string;
}

type ObligationEvent =
  | { type: 'obligation.created'; authority_id: string; levy: Levy; period: string; livemode: boolean }
  | { type: 'obligation.line_added'; reference: string; instruction_set_id: string | null; amount: number; pay_date: string; due_date: string | null }
  | { type: 'obligation.late' }
  | { type: 'obligation.remitted'; leg_id: string; receipt_id: string };

export const Obligation = defineActor({
  kind: 'remittance_obligation',
  prefix: OBLIGATION_PREFIX,
  creates: ['add_line'],
  initial: (id: string, org: string): ObligationState => ({
    id, org, livemode: false, authority_id: '', levy: 'paye', period: '', currency: 'NGN', status: 'due', lines: [], amount: 0, pay_date: '', due_date: null, was_late: false, remitted: null, remittances: [], created_at: 0,
  }),
  decide: {
    add_line(s: ObligationState, cmd: AddLine, ctx): ObligationEvent[] {
      const a = authorityById(cmd.authority_id);
      if (!a || !a.levies.includes(cmd.levy)) throw conflict(`Authority ${cmd.authority_id} does not collect ${cmd.levy}.`);
      if (s.lines.some((l) => l.reference === cmd.reference)) return [];
      const events: ObligationEvent[] = [];
      if (ctx.version === 0) events.push({ type: 'obligation.created', authority_id: cmd.authority_id, levy: cmd.levy, period: cmd.period, livemode: cmd.livemode });
      // The earliest pay date of the obligation's lines fixes its due date.
      const payDate = s.pay_date && s.pay_date < cmd.pay_date ? s.pay_date : cmd.pay_date;
      events.push({ type: 'obligation.line_added', reference: cmd.reference, instruction_set_id: cmd.instruction_set_id, amount: cmd.amount, pay_date: cmd.pay_date, due_date: dueDateOf(cmd.levy, payDate).due_date });
      return events;
    },
    mark_late(s: ObligationState, _cmd: unknown, ctx): ObligationEvent[] {
      if (s.status !== 'due' || s.due_date === null || ctx.now < lateAt(s.due_date)) return [];
      return [{ type: 'obligation.late' }];
    },
    remit(s: ObligationState, cmd: { leg_id: string; receipt_id: string }): ObligationEvent[] {
      if ((s.remittances ?? []).some((r) => r.receipt_id === cmd.receipt_id)) return [];
      if (s.status === 'remitted') throw conflict(`Obligation ${s.id} is already remitted by receipt ${s.remitted?.receipt_id}.`);
      return [{ type: 'obligation.remitted', leg_id: cmd.leg_id, receipt_id: cmd.receipt_id }];
    },
  },
  evolve(s: ObligationState, e: ObligationEvent, meta): ObligationState {
    switch (e.type) {
      case 'obligation.created':
        return { ...s, authority_id: e.authority_id, levy: e.levy, period: e.period, livemode: e.livemode, created_at: meta.at };
      case 'obligation.line_added': {
        const payDate = s.pay_date && s.pay_date < e.pay_date ? s.pay_date : e.pay_date;
        // A line added after a remittance reopens the obligation for the further amount.
        const status: ObligationStatus = s.status !== 'remitted' ? s.status : e.due_date !== null && meta.at >= lateAt(e.due_date) ? 'late' : 'due';
        return {
          ...s, status, was_late: s.was_late || status === 'late', lines: [...s.lines, { reference: e.reference, instruction_set_id: e.instruction_set_id, amount: e.amount, pay_date: e.pay_date, added_at: meta.at }],
          amount: s.amount + e.amount, pay_date: payDate, due_date: e.due_date,
        };
      }
      case 'obligation.late':
        return { ...s, status: 'late', was_late: true };
      case 'obligation.remitted':
        return {
          ...s, status: 'remitted', remitted: { leg_id: e.leg_id, receipt_id: e.receipt_id, remitted_at: meta.at },
          remittances: [...(s.remittances ?? []), { leg_id: e.leg_id, receipt_id: e.receipt_id, remitted_at: meta.at, amount_then: s.amount }],
        };
      default:
        return assertNever(e);
    }
  },
  timers: (s: ObligationState): TimerWish[] => (s.status === 'due' && s.due_date !== null ? [{ name: 'late', dueAt: lateAt(s.due_date), command: 'mark_late', payload: {} }] : []),
  view: (s: ObligationState) => obligationView(s),
  indexes: (s: ObligationState): IndexEntry[] => {
    const k = sortKeyTime(s.created_at);
    return [
      { list: 'all', sortKey: k },
      { list: `status:${s.status}`, sortKey: k },
      { list: `period:${s.period}`, sortKey: k },
      { list: `levy:${s.levy}`, sortKey: k },
      { list: `authority:${s.authority_id}`, sortKey: k },
    ];
  },
});

export function obligationView(s: ObligationState) {
  const a = authorityById(s.authority_id);
  return recordView('remittance_obligation', s.id, s.livemode, false, {
    authority_id: s.authority_id,
    authority_name: a?.name ?? null,
    levy: s.levy,
    period: s.period,
    amount: { amount: s.amount, currency: s.currency } as MoneyValue,
    status: s.status,
    pay_date: s.pay_date,
    due_date: s.due_date,
    calendar_entry_id: calendarEntryId(s.levy, s.period, s.pay_date),
    late: s.status === 'late' || s.was_late,
    lines: s.lines.map((l) => ({ reference: l.reference, instruction_set_id: l.instruction_set_id, amount: { amount: l.amount, currency: s.currency }, pay_date: l.pay_date, added_at: iso(l.added_at) })),
    remitted: s.remitted && { leg_id: s.remitted.leg_id, receipt_id: s.remitted.receipt_id, remitted_at: iso(s.remitted.remitted_at) },
    remittances: (s.remittances ?? []).map((r) => ({ leg_id: r.leg_id, receipt_id: r.receipt_id, remitted_at: iso(r.remitted_at), amount_covered: { amount: r.amount_then, currency: s.currency } })),
    created_at: iso(s.created_at),
  });
}

export type ObligationView = ReturnType<typeof obligationView>;
