/**
 * The sandbox funding account of an organisation in a realm (spec 2.11 FundingCheck; how a sandbox
 * account is funded is not shown: docs/gaps.md#payouts). Deposits add to the balance; executing an
 * instruction reserves its total; when the instruction is final the reservation closes: what
 * settled leaves the balance, the rest is available again. available = balance - reserved.
 *
 * command             condition                               events                                next
 * ------------------  --------------------------------------  ------------------------------------  -------
 * deposit             sandbox realm, amount > 0               funding.deposited                     balance + amount
 * reserve             available >= amount; not reserved yet   funding.reserved                      reserved + amount
 * reserve             short                                   refused (409, names the shortfall)    -
 * close_reservation   (reaction) instruction final            funding.reservation_closed            balance - settled
 */
import { defineActor, iso, type Reaction } from '../../runtime/index.ts';
import { ApiError, recordView } from '../../kernel/index.ts';
import { FUNDING_ACCOUNT_PREFIX, fundingAccountIdOf } from './ids.ts';

export interface FundingState {
  id: string;
  org: string;
  livemode: boolean;
  currency: string;
  balance: number;
  reservations: Record<string, number>;
  deposits: number;
  updated_at: number;
}

type FundingEvent =
  | { type: 'funding.deposited'; amount: number; livemode: boolean; reference: string }
  | { type: 'funding.reserved'; instruction_id: string; amount: number }
  | { type: 'funding.reservation_closed'; instruction_id: string; reserved: number; spent: number };

export const reservedOf = (s: FundingState): number => Object.values(s.reservations).reduce((a, b) => a + b, 0);
export const availableOf = (s: FundingState): number => s.balance - reservedOf(s);

const FINAL_EVENTS = ['instruction.settled', 'instruction.partially_settled', 'instruction.failed'];

const closeReaction: Reaction = {
  from: 'payout_instruction',
  events: FINAL_EVENTS,
  command: 'close_reservation',
  target(event, source) {
    const d = event.data as { livemode: boolean; settled_amount: number; before_execution?: boolean };
    if (d.before_execution) return undefined;
    return { id: fundingAccountIdOf(event.org, d.livemode), payload: { instruction_id: source.id, spent: d.settled_amount } };
  },
};

export const FundingAccount = defineActor({
  kind: 'payout_funding_account',
  prefix: FUNDING_ACCOUNT_PREFIX,
  creates: ['deposit', 'reserve', 'close_reservation'],
  initial: (id: string, org: string): FundingState => ({ id, org, livemode: false, currency: 'NGN', balance: 0, reservations: {}, deposits: 0, updated_at: 0 }),
  decide: {
    deposit(_s: FundingState, cmd: { amount: number; livemode: boolean; reference: string }): FundingEvent[] {
      if (cmd.livemode) throw new ApiError('conflict', 'A live funding account is funded by a bank transfer to it, not through the API; deposits exist in the sandbox realm only.');
      if (!Number.isSafeInteger(cmd.amount) || cmd.amount <= 0) throw new ApiError('invalid_money_amount', 'A deposit is a positive whole number of kobo.');
      return [{ type: 'funding.deposited', amount: cmd.amount, livemode: cmd.livemode, reference: cmd.reference }];
    },
    reserve(s: FundingState, cmd: { instruction_id: string; amount: number }): FundingEvent[] {
      if (s.reservations[cmd.instruction_id] !== undefined) return [];
      const available = availableOf(s);
      if (available < cmd.amount) throw new ApiError('conflict', `The funding account is short by ${cmd.amount - available} kobo: ${cmd.amount} required, ${available} available.`, { shortfall: cmd.amount - available });
      return [{ type: 'funding.reserved', instruction_id: cmd.instruction_id, amount: cmd.amount }];
    },
    close_reservation(s: FundingState, cmd: { instruction_id: string; spent: number }): FundingEvent[] {
      const reserved = s.reservations[cmd.instruction_id];
      if (reserved === undefined) return [];
      return [{ type: 'funding.reservation_closed', instruction_id: cmd.instruction_id, reserved, spent: Math.min(cmd.spent, reserved) }];
    },
  },
  evolve(s: FundingState, e: FundingEvent, meta): FundingState {
    switch (e.type) {
      case 'funding.deposited':
        return { ...s, livemode: e.livemode, balance: s.balance + e.amount, deposits: s.deposits + 1, updated_at: meta.at };
      case 'funding.reserved':
        return { ...s, reservations: { ...s.reservations, [e.instruction_id]: e.amount }, updated_at: meta.at };
      case 'funding.reservation_closed': {
        const { [e.instruction_id]: _gone, ...rest } = s.reservations;
        return { ...s, balance: s.balance - e.spent, reservations: rest, updated_at: meta.at };
      }
    }
  },
  reactions: [closeReaction],
  view: (s: FundingState) => (recordView('funding_account', s.id, s.livemode, true, {
    balance: { amount: s.balance, currency: s.currency },
    reserved: { amount: reservedOf(s), currency: s.currency },
    available: { amount: availableOf(s), currency: s.currency },
    deposit_count: s.deposits,
    updated_at: s.updated_at ? iso(s.updated_at) : null,
  })),
});
