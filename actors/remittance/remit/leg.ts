/**
 * A remittance leg (spec 3 "Remittance instruction set": "each authority leg of a remittance runs
 * independently; a leg is complete when its receipt is vaulted"). One leg per authority of a
 * remittance; it pays through the payouts module by a signed instruction (source remit), one
 * instruction per payment attempt. The I/O (signing, submitting, planning, executing, asking the
 * authority's sandbox for its receipt) is the remit service's (service.ts); the outcome of a
 * payment comes back by reaction to the payouts module's instruction events, never by polling.
 *
 * status     command              condition                                      events                              next
 * ---------  -------------------  ---------------------------------------------  ----------------------------------  ---------
 * (none)     create               remittance executing                           leg.created, leg.attempt_started    pending
 * pending    drive_due            (timer) the service has not moved it yet       leg.drive_due                       pending
 * pending    payment_started      the attempt's instruction is executing         leg.payment_started                 paying
 * pending,   attempt_failed       the attempt could not be submitted/executed    leg.failed (final or not)           failed
 *   paying
 * pending,   payment_outcome      (reaction) instruction.settled                 leg.paid                            paid
 *   paying   payment_outcome      (reaction) instruction.failed                  leg.failed (final)                  failed
 * failed     retry                the attempt's instruction is final-failed      leg.attempt_started (n + 1,         pending
 *                                                                                  a new instruction_ref)
 * failed     retry                the instruction is not final (never executed)  leg.attempt_resumed (same n)        pending
 * paid       receipt_due          (timer) no receipt yet; asked < 12 times      leg.receipt_due                     paid
 * paid       receipt_vaulted      a receipt agreeing with the leg was vaulted    leg.completed                       completed
 * any        receipt_quarantined  a receipt disagreed with the leg               leg.receipt_quarantined             (same)
 * others     retry                -                                              refused (409 conflict)
 * completed  receipt_vaulted      the same receipt again                         - (nothing)
 * others     receipt_vaulted      -                                              refused (409 conflict)
 * others     receipt_due          -                                              - (nothing)
 *
 * An outcome of an earlier attempt than the leg's current one changes nothing.
 */
import { ApiError, factsOf, nextAction, type NextAction, recordView } from '../../../kernel/index.ts';
import { defineActor, type IndexEntry, iso, type Reaction, sortKeyTime, type TimerWish } from '../../../runtime/index.ts';
import { attemptInstructionId, attemptRef, LEG_PREFIX, legOfInstruction } from './ids.ts';

export type LegStatus = 'pending' | 'paying' | 'paid' | 'failed' | 'completed';
export const LEG_STATUSES: readonly LegStatus[] = ['pending', 'paying', 'paid', 'failed', 'completed'];
export type LegLevy = 'paye' | 'pension' | 'nhf' | 'nsitf' | 'itf' | 'nhia';

export interface CollectionAccount {
  bank_code: string;
  account_number: string;
  account_name: string;
}

/** One instruction-set line a leg pays (a PFC leg pays one line per PFA). */
export interface LegLine {
  reconciliation_reference: string;
  /** The line's own authority: the State IRS, the PFA, or the levy collector. */
  authority_id: string;
  authority_name: string;
  amount: number;
  employee_amount?: number;
  employer_amount?: number;
  payee_count?: number | null;
}

export interface LegPlan {
  authority_id: string;
  authority_name: string;
  authority_kind: string;
  authority_code: string;
  jurisdiction: string;
  levy: LegLevy;
  collection_account: CollectionAccount;
  amount: number;
  lines: LegLine[];
}

export interface CreateLeg extends LegPlan {
  remittance_id: string;
  instruction_set_id: string;
  run_id: string | null;
  period: string;
  currency: string;
  livemode: boolean;
  return_id: string;
  drive_ms: number;
  /** Whether the authority's gateway is asked for its receipt once the leg is paid (else receipts arrive by POST only). */
  ask_receipt: boolean;
}

export interface LegAttempt {
  n: number;
  instruction_id: string;
  instruction_ref: string;
  status: 'submitting' | 'executing' | 'settled' | 'failed';
  /** True when the instruction can never pay (failed or quarantined): only then may a new attempt start. */
  final: boolean;
  failure_reason: string | null;
  started_at: number;
  finished_at: number | null;
}

export interface LegState extends CreateLeg {
  id: string;
  org: string;
  status: LegStatus;
  attempts: LegAttempt[];
  failure_reason: string | null;
  receipt_id: string | null;
  quarantined_receipt_ids: string[];
  created_at: number;
  paid_at: number | null;
  completed_at: number | null;
  due_at: number | null;
  /** Times the authority was asked for its receipt; it is asked at most RECEIPT_ASKS times. */
  receipt_asks: number;
}

type Ev =
  | ({ type: 'leg.created' } & CreateLeg)
  | { type: 'leg.attempt_started'; n: number; instruction_id: string; instruction_ref: string }
  | { type: 'leg.attempt_resumed'; n: number }
  | { type: 'leg.drive_due' }
  | { type: 'leg.payment_started'; n: number }
  | { type: 'leg.failed'; n: number; reason: string; final: boolean; remittance_id: string }
  | { type: 'leg.paid'; n: number; instruction_id: string; remittance_id: string; amount: number }
  | { type: 'leg.receipt_due' }
  | { type: 'leg.completed'; receipt_id: string; remittance_id: string; authority_id: string; levy: LegLevy; period: string; amount: number }
  | { type: 'leg.receipt_quarantined'; receipt_id: string };

export type LegEvent = Ev;

/** How long a paid leg waits before asking the authority for its receipt again, and how often it asks before waiting for a POSTed one. */
const RECEIPT_RETRY_MS = 300_000;
const RECEIPT_ASKS = 12;

const refuse = (s: LegState, why: string) => new ApiError('conflict', `Remittance leg ${s.id} is ${s.status}: ${why}.`, { status: s.status });
const current = (s: LegState): LegAttempt | undefined => s.attempts[s.attempts.length - 1];

function startAttempt(s: Pick<LegState, 'id'>, n: number): Ev {
  return { type: 'leg.attempt_started', n, instruction_id: attemptInstructionId(s.id, n), instruction_ref: attemptRef(s.id, n) };
}

function withAttempt(s: LegState, n: number, f: (a: LegAttempt) => LegAttempt): LegAttempt[] {
  return s.attempts.map((a) => (a.n === n ? f(a) : a));
}

/** A payouts instruction reached its end: the leg of a remit instruction hears it (spec 3; never by polling). */
const fromInstruction: Reaction = {
  from: 'payout_instruction',
  events: ['instruction.settled', 'instruction.partially_settled', 'instruction.failed'],
  command: 'payment_outcome',
  target(event, source) {
    const d = event.data as { source?: string; reason?: string };
    if (d.source !== 'remit') return undefined;
    const of = legOfInstruction(source.id);
    if (!of) return undefined;
    const outcome = event.type === 'instruction.failed' ? 'failed' : 'settled';
    return { id: of.leg_id, payload: { attempt: of.attempt, outcome, reason: d.reason ?? null } };
  },
};

export const Leg = defineActor({
  kind: 'remittance_leg',
  prefix: LEG_PREFIX,
  creates: ['create'],
  initial: (id: string, org: string): LegState => ({
    id, org, remittance_id: '', instruction_set_id: '', run_id: null, period: '', currency: 'NGN', livemode: false, return_id: '', drive_ms: 60_000, ask_receipt: true, receipt_asks: 0,
    authority_id: '', authority_name: '', authority_kind: '', authority_code: '', jurisdiction: '', levy: 'paye',
    collection_account: { bank_code: '', account_number: '', account_name: '' }, amount: 0, lines: [],
    status: 'pending', attempts: [], failure_reason: null, receipt_id: null, quarantined_receipt_ids: [], created_at: 0, paid_at: null, completed_at: null, due_at: null,
  }),
  decide: {
    create(_s: LegState, cmd: CreateLeg, ctx): Ev[] {
      if (ctx.version > 0) return [];
      return [{ type: 'leg.created', ...cmd }, startAttempt({ id: ctx.id }, 1)];
    },
    drive_due(s: LegState): Ev[] {
      return s.status === 'pending' ? [{ type: 'leg.drive_due' }] : [];
    },
    payment_started(s: LegState, cmd: { attempt: number }): Ev[] {
      return s.status === 'pending' && current(s)?.n === cmd.attempt ? [{ type: 'leg.payment_started', n: cmd.attempt }] : [];
    },
    attempt_failed(s: LegState, cmd: { attempt: number; reason: string; final: boolean }): Ev[] {
      if ((s.status !== 'pending' && s.status !== 'paying') || current(s)?.n !== cmd.attempt) return [];
      return [{ type: 'leg.failed', n: cmd.attempt, reason: cmd.reason, final: cmd.final, remittance_id: s.remittance_id }];
    },
    payment_outcome(s: LegState, cmd: { attempt: number; outcome: 'settled' | 'failed'; reason: string | null }): Ev[] {
      const a = current(s);
      if (!a || a.n !== cmd.attempt) return [];
      if (cmd.outcome === 'settled') {
        // An instruction that settles was executing: whatever the leg last heard, the money went.
        if (s.status === 'paid' || s.status === 'completed') return [];
        return [{ type: 'leg.paid', n: a.n, instruction_id: a.instruction_id, remittance_id: s.remittance_id, amount: s.amount }];
      }
      if (s.status !== 'pending' && s.status !== 'paying' && !(s.status === 'failed' && !a.final)) return [];
      return [{ type: 'leg.failed', n: a.n, reason: cmd.reason ?? 'the payout failed on every rail of its plan', final: true, remittance_id: s.remittance_id }];
    },
    retry(s: LegState): Ev[] {
      if (s.status !== 'failed') throw refuse(s, s.status === 'completed' ? 'its receipt is vaulted' : s.status === 'paid' ? 'it was paid; it waits for its receipt' : 'its payment is in flight; only a failed leg is retried');
      const a = current(s)!;
      // Paying twice is impossible: a new instruction_ref (a new payouts idempotency key) only after the last instruction is final-failed.
      return a.final ? [startAttempt(s, a.n + 1)] : [{ type: 'leg.attempt_resumed', n: a.n }];
    },
    receipt_due(s: LegState): Ev[] {
      return s.status === 'paid' ? [{ type: 'leg.receipt_due' }] : [];
    },
    receipt_vaulted(s: LegState, cmd: { receipt_id: string }): Ev[] {
      if (s.status === 'completed' && s.receipt_id === cmd.receipt_id) return [];
      if (s.status !== 'paid') throw refuse(s, s.status === 'completed' ? `receipt ${s.receipt_id} is already vaulted for it` : 'a receipt is recorded for a paid leg');
      return [{ type: 'leg.completed', receipt_id: cmd.receipt_id, remittance_id: s.remittance_id, authority_id: s.authority_id, levy: s.levy, period: s.period, amount: s.amount }];
    },
    receipt_quarantined(s: LegState, cmd: { receipt_id: string }): Ev[] {
      return s.quarantined_receipt_ids.includes(cmd.receipt_id) ? [] : [{ type: 'leg.receipt_quarantined', receipt_id: cmd.receipt_id }];
    },
  },
  evolve(s: LegState, e: Ev, meta): LegState {
    const at = meta.at;
    switch (e.type) {
      case 'leg.created':
        return { ...s, ...factsOf(e), status: 'pending', created_at: at };
      case 'leg.attempt_started':
        return { ...s, status: 'pending', failure_reason: null, due_at: at + s.drive_ms, attempts: [...s.attempts, { n: e.n, instruction_id: e.instruction_id, instruction_ref: e.instruction_ref, status: 'submitting', final: false, failure_reason: null, started_at: at, finished_at: null }] };
      case 'leg.attempt_resumed':
        return { ...s, status: 'pending', failure_reason: null, due_at: at + s.drive_ms, attempts: withAttempt(s, e.n, (a) => ({ ...a, status: 'submitting', failure_reason: null })) };
      case 'leg.drive_due':
        return { ...s, due_at: at + s.drive_ms };
      case 'leg.payment_started':
        return { ...s, status: 'paying', due_at: null, attempts: withAttempt(s, e.n, (a) => ({ ...a, status: 'executing' })) };
      case 'leg.failed':
        return { ...s, status: 'failed', failure_reason: e.reason, due_at: null, attempts: withAttempt(s, e.n, (a) => ({ ...a, status: e.final ? 'failed' : a.status, final: e.final, failure_reason: e.reason, finished_at: e.final ? at : null })) };
      case 'leg.paid':
        return { ...s, status: 'paid', failure_reason: null, paid_at: at, due_at: s.ask_receipt ? at + RECEIPT_RETRY_MS : null, receipt_asks: 1, attempts: withAttempt(s, e.n, (a) => ({ ...a, status: 'settled', final: true, finished_at: at })) };
      case 'leg.receipt_due':
        return { ...s, receipt_asks: s.receipt_asks + 1, due_at: s.receipt_asks + 1 < RECEIPT_ASKS ? at + RECEIPT_RETRY_MS : null };
      case 'leg.completed':
        return { ...s, status: 'completed', receipt_id: e.receipt_id, completed_at: at, due_at: null };
      case 'leg.receipt_quarantined':
        return { ...s, quarantined_receipt_ids: [...s.quarantined_receipt_ids, e.receipt_id] };
    }
  },
  timers(s: LegState): TimerWish[] {
    if (s.due_at === null) return [];
    if (s.status === 'pending') return [{ name: 'drive', dueAt: s.due_at, command: 'drive_due' }];
    if (s.status === 'paid') return [{ name: 'receipt', dueAt: s.due_at, command: 'receipt_due' }];
    return [];
  },
  indexes(s: LegState): IndexEntry[] {
    const key = sortKeyTime(s.created_at);
    return [
      { list: `remittance:${s.remittance_id}`, sortKey: s.authority_id },
      { list: `remittance:${s.remittance_id}:status:${s.status}`, sortKey: s.authority_id },
      { list: `period:${s.period}`, sortKey: key },
      { list: 'all', sortKey: key },
    ];
  },
  reactions: [fromInstruction],
  view: legView,
});

const money = (amount: number, currency: string) => ({ amount, currency });

export function legView(s: LegState) {
  return recordView('remittance_leg', s.id, s.livemode, false, {
    remittance_id: s.remittance_id,
    instruction_set_id: s.instruction_set_id,
    period: s.period,
    levy: s.levy,
    authority_id: s.authority_id,
    authority_name: s.authority_name,
    authority_kind: s.authority_kind,
    jurisdiction: s.jurisdiction,
    amount: money(s.amount, s.currency),
    lines: s.lines.map((l) => ({
      reconciliation_reference: l.reconciliation_reference, authority_id: l.authority_id, authority_name: l.authority_name, amount: money(l.amount, s.currency),
      ...(l.employee_amount !== undefined ? { employee_amount: money(l.employee_amount, s.currency) } : {}),
      ...(l.employer_amount !== undefined ? { employer_amount: money(l.employer_amount, s.currency) } : {}),
      payee_count: l.payee_count ?? null,
    })),
    collection_account: { bank_code: s.collection_account.bank_code, account_number: s.collection_account.account_number, account_name: s.collection_account.account_name },
    status: s.status,
    attempt_count: s.attempts.length,
    payout_instruction_id: s.attempts.length ? s.attempts[s.attempts.length - 1]!.instruction_id : null,
    attempts: s.attempts.map((a) => ({ n: a.n, payout_instruction_id: a.instruction_id, instruction_ref: a.instruction_ref, status: a.status, final: a.final, failure_reason: a.failure_reason, started_at: iso(a.started_at), finished_at: a.finished_at === null ? null : iso(a.finished_at) })),
    failure_reason: s.failure_reason,
    receipt_id: s.receipt_id,
    quarantined_receipt_ids: s.quarantined_receipt_ids,
    return_id: s.return_id,
    created_at: iso(s.created_at),
    paid_at: s.paid_at === null ? null : iso(s.paid_at),
    completed_at: s.completed_at === null ? null : iso(s.completed_at),
    next_action: legNextAction(s),
  });
}

/**
 * What the leg waits for (docs/gaps.md "next_action"): a retry after a failed payment (a funding
 * shortfall first needs a deposit), or its receipt once the authority stopped being asked for it.
 * Null while it moves on by itself.
 */
function legNextAction(s: LegState): NextAction | null {
  if (s.status === 'failed') {
    const short = /short/i.test(s.failure_reason ?? '');
    return nextAction(short ? 'fund_account' : 'retry_leg', `${s.failure_reason ?? 'The payment failed.'}${short ? ' Fund the account, then retry the leg.' : ' Retry the leg.'}`, { method: 'POST', path: `/v1/remittance/remittances/${s.remittance_id}/legs/${s.id}/retry` }, { amount: money(s.amount, s.currency) });
  }
  if (s.status === 'paid' && (!s.ask_receipt || s.receipt_asks >= RECEIPT_ASKS)) {
    return nextAction('submit_receipt', `The authority's receipt for ${s.authority_name} has not arrived; submit it to vault it and complete the leg.`, { method: 'POST', path: '/v1/remittance/receipts' });
  }
  return null;
}
