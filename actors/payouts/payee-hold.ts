/**
 * The held payouts of one payee (docs/gaps.md#payouts "Held payouts"; internal, no route): a payout
 * held because its payee had no live passport or no bank account is never lost. This actor keeps
 * which payouts wait and for what, and learns by durable reactions when a cause clears: the
 * identity area's passport.issued / passport.restored for the payee (spec 4.3 gating), payroll's
 * pay_profile.updated setting a bank_account. Releasing needs I/O (the gate, the pay profile, a
 * name enquiry), so the actor records what is due and the process does it (holds.ts); a reminder
 * asks again until each due payout is released or found still held.
 *
 * state      command        condition                                   events              next
 * ---------  -------------  ------------------------------------------  ------------------  ------------------------
 * any        hold           (reaction) payout.held / .hold_changed      hold.added          waits (cause); due once,
 *                                                                                           as the cause may be gone
 *                           already waiting for that cause              - (nothing)
 * any        cause_cleared  (reaction) passport live / account set;     hold.release_due    its payouts of that
 *                           payouts wait for that cause                                     cause are due
 *                           none wait for it                            - (nothing)
 * due        retry          (timer) some still due                      hold.retry_due      due (asked again)
 * due        released       the payout left held (sent or failed)       hold.released       no longer waits
 * due        checked        the payout is still held (cause remains)    hold.checked        waits, not due
 * otherwise  any            -                                           - (nothing)
 */
import { defineActor, iso, type Reaction, type TimerWish } from '../../runtime/index.ts';
import { PASSPORT_ISSUED, PASSPORT_KIND, PASSPORT_RESTORED } from '../identity/index.ts';
import { PayProfile } from '../payroll/index.ts';
import { PAYEE_HOLD_PREFIX, payeeHoldIdOf } from './ids.ts';
import type { HeldReason } from './payout-state.ts';

const RETRY_MS = 60_000;

export interface PayeeHoldState {
  id: string;
  org: string;
  payee_ref: string;
  /** Held payouts by id, with what each waits for. */
  held: Record<string, HeldReason>;
  /** Payouts whose cause cleared, to release. */
  due: string[];
  due_at: number | null;
  updated_at: number;
}

type HoldEvent =
  | { type: 'hold.added'; payout_id: string; reason: HeldReason; payee_ref: string }
  | { type: 'hold.release_due'; payout_ids: string[]; cause: HeldReason }
  | { type: 'hold.retry_due' }
  | { type: 'hold.released'; payout_id: string }
  | { type: 'hold.checked'; payout_id: string };

const fromPayout: Reaction = {
  from: 'payout',
  events: ['payout.held', 'payout.hold_changed'],
  command: 'hold',
  target(event, source) {
    const d = event.data as { payee_ref: string; held_reason: HeldReason };
    return { id: payeeHoldIdOf(event.org, d.payee_ref), payload: { payout_id: source.id, reason: d.held_reason, payee_ref: d.payee_ref } };
  },
};

const fromPassport: Reaction = {
  from: PASSPORT_KIND,
  events: [PASSPORT_ISSUED, PASSPORT_RESTORED],
  command: 'cause_cleared',
  target: (event) => ({ id: payeeHoldIdOf(event.org, (event.data as { subject_ref: string }).subject_ref), payload: { cause: 'passport_not_live' } }),
};

const fromPayProfile: Reaction = {
  from: PayProfile.kind,
  events: ['pay_profile.updated'],
  command: 'cause_cleared',
  target(event) {
    const d = event.data as { payee_ref?: string; changes: { bank_account?: unknown } };
    if (!d.payee_ref || !d.changes.bank_account) return undefined;
    return { id: payeeHoldIdOf(event.org, d.payee_ref), payload: { cause: 'no_bank_account' } };
  },
};

export const PayeeHold = defineActor({
  kind: 'payout_payee_hold',
  prefix: PAYEE_HOLD_PREFIX,
  creates: ['hold', 'cause_cleared'],
  initial: (id: string, org: string): PayeeHoldState => ({ id, org, payee_ref: '', held: {}, due: [], due_at: null, updated_at: 0 }),
  decide: {
    hold(s: PayeeHoldState, cmd: { payout_id: string; reason: HeldReason; payee_ref: string }): HoldEvent[] {
      if (s.held[cmd.payout_id] === cmd.reason && !s.due.includes(cmd.payout_id)) return [];
      return [{ type: 'hold.added', payout_id: cmd.payout_id, reason: cmd.reason, payee_ref: cmd.payee_ref }];
    },
    cause_cleared(s: PayeeHoldState, cmd: { cause: HeldReason }): HoldEvent[] {
      const ids = Object.keys(s.held).filter((id) => s.held[id] === cmd.cause && !s.due.includes(id));
      return ids.length ? [{ type: 'hold.release_due', payout_ids: ids, cause: cmd.cause }] : [];
    },
    retry(s: PayeeHoldState): HoldEvent[] {
      return s.due.length ? [{ type: 'hold.retry_due' }] : [];
    },
    released(s: PayeeHoldState, cmd: { payout_id: string }): HoldEvent[] {
      return s.held[cmd.payout_id] !== undefined ? [{ type: 'hold.released', payout_id: cmd.payout_id }] : [];
    },
    checked(s: PayeeHoldState, cmd: { payout_id: string }): HoldEvent[] {
      return s.due.includes(cmd.payout_id) ? [{ type: 'hold.checked', payout_id: cmd.payout_id }] : [];
    },
  },
  evolve(s: PayeeHoldState, e: HoldEvent, meta): PayeeHoldState {
    const at = meta.at;
    const withDue = (due: string[]) => ({ due, due_at: due.length ? (s.due_at ?? at + RETRY_MS) : null });
    switch (e.type) {
      case 'hold.added':
        // Checked once at once: the cause may have cleared before this reaction arrived (events of two kinds have no order).
        return { ...s, payee_ref: e.payee_ref, held: { ...s.held, [e.payout_id]: e.reason }, due: [...s.due.filter((x) => x !== e.payout_id), e.payout_id], due_at: at + RETRY_MS, updated_at: at };
      case 'hold.release_due':
        return { ...s, due: [...s.due, ...e.payout_ids], due_at: at + RETRY_MS, updated_at: at };
      case 'hold.retry_due':
        return { ...s, due_at: at + RETRY_MS, updated_at: at };
      case 'hold.released': {
        const { [e.payout_id]: _gone, ...held } = s.held;
        return { ...s, held, ...withDue(s.due.filter((x) => x !== e.payout_id)), updated_at: at };
      }
      case 'hold.checked':
        return { ...s, ...withDue(s.due.filter((x) => x !== e.payout_id)), updated_at: at };
    }
  },
  timers: (s: PayeeHoldState): TimerWish[] => (s.due.length && s.due_at !== null ? [{ name: 'retry', dueAt: s.due_at, command: 'retry', payload: {} }] : []),
  reactions: [fromPayout, fromPassport, fromPayProfile],
  view: (s: PayeeHoldState) => ({ id: s.id, object: 'payout_payee_hold' as const, payee_ref: s.payee_ref, held: s.held, due: s.due, updated_at: iso(s.updated_at) }),
});
