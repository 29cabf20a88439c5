/**
 * Ingested instruction set. Spec 2.10 (IngestedInstructionSet, InstructionSet), 3 "Remittance
 * instruction set", 4.9. Nothing is committed until accepted: obligations are recorded only
 * after accept (service.ts), and a remittance reads only an accepted set.
 *
 * A run's set arrives by reaction to the run's execution (source run); the API and CSV imports
 * submit the others (external_api, external_file). Validation needs the run's facts, gathered by
 * the intake service, so it is two commands: begin (every line being checked) and complete (the
 * report, its discrepancies and each line's authority and due date). A timer asks again while a
 * set waits in received or validating, or an accepted set's obligations are not yet recorded.
 *
 * status              command               condition                                        event                       next
 * ------------------  --------------------  -----------------------------------------------  --------------------------  ------------------
 * (none)              receive               -                                                set.received                received
 * received|validating retry (timer)         not yet validated                                set.retry_due               (same)
 * received            begin_validation      -                                                set.validating              validating
 * validating          complete_validation   -                                                set.validated               pending_acceptance
 * pending_acceptance  override              discrepancy open; reason code published;        set.discrepancy_overridden  pending_acceptance
 *                                           note given for `other`
 * pending_acceptance  accept                no open discrepancy                              set.accepted                accepted
 * pending_acceptance  reject                -                                                set.rejected                rejected
 * accepted            retry (timer)         obligations not recorded                         set.retry_due               accepted
 * accepted            obligations_recorded  -                                                set.obligations_recorded    accepted
 * otherwise           any                   -                                                409 conflict
 */
import { defineActor, iso, sortKeyTime, type IndexEntry, type Reaction, type TimerWish } from '../../../runtime/index.ts';
import { ApiError, assertNever, conflict, derivedId, fieldError, filterLists, type MoneyValue, nextAction, type NextAction, recordView } from '../../../kernel/index.ts';
import type { InstructionSetData } from '../../payroll/index.ts';
import { calendarEntryId, type Levy } from '../authorities/index.ts';
import { type OverrideReasonCode, REASON_CODES } from './reason-codes.ts';
import type { Discrepancy, Lines, Resolved, Source, Validation } from './validate.ts';

export const SET_PREFIX = 'remit_authority_rail_instruction_';
export const DISCREPANCY_PREFIX = 'remit_authority_rail_discrepancy_';
export type SetStatus = 'received' | 'validating' | 'pending_acceptance' | 'accepted' | 'rejected';
export const SET_STATUSES: readonly SetStatus[] = ['received', 'validating', 'pending_acceptance', 'accepted', 'rejected'];

/** How long a set waits before the timer asks the service again (a node that died mid-way loses nothing). */
export const RETRY_MS = 30_000;

/** The set a run's execution makes (one per run, so a repeated reaction lands on the same set). */
export const runSetIdOf = (org: string, runId: string): string => derivedId(SET_PREFIX, [org, 'run', runId]);
export const discrepancyIdOf = (setId: string, n: number): string => `${DISCREPANCY_PREFIX}${setId.slice(SET_PREFIX.length)}d${n}`;
export const setIdOfDiscrepancy = (id: string): string => `${SET_PREFIX}${id.slice(DISCREPANCY_PREFIX.length).replace(/d\d+$/, '')}`;

/** What a set is received with (from a run, the API or a file). */
export interface Receive {
  source: Source;
  livemode: boolean;
  period: string;
  run_id: string | null;
  /** The pay date due dates count from: the run's, or given with an external set (null until known). */
  pay_date: string | null;
  /** The import a CSV set came from. */
  import_id: string | null;
  lines: Lines;
  /** The InstructionSet's own id: payroll's for a run's set (instruction_set_...); the ingested set's otherwise. */
  instructions_id?: string | null;
}

export interface SetState extends Receive {
  id: string;
  org: string;
  status: SetStatus;
  report: Validation['report'] | null;
  resolved: Resolved | null;
  discrepancies: Discrepancy[];
  created_at: number;
  validated_at: number | null;
  decided_at: number | null;
  decided_by: string | null;
  rejection_reason: string | null;
  obligations_recorded: boolean;
  due_at: number | null;
}

export type SetEvent =
  | ({ type: 'set.received' } & Receive)
  | { type: 'set.retry_due' }
  | { type: 'set.validating' }
  | { type: 'set.validated'; pay_date: string | null; livemode?: boolean; report: Validation['report']; resolved: Resolved; discrepancies: Validation['discrepancies'] }
  | { type: 'set.discrepancy_overridden'; discrepancy_id: string; reason_code: OverrideReasonCode; note: string | null; overridden_by: string | null }
  | { type: 'set.accepted'; accepted_by: string | null }
  | { type: 'set.rejected'; rejected_by: string | null; reason: string | null }
  | { type: 'set.obligations_recorded' };

const ngn = (amount: number): MoneyValue => ({ amount, currency: 'NGN' });

/** The InstructionSet of payroll's run (kobo numbers) as submitted lines (Money). */
export function linesOfRun(s: InstructionSetData): Lines {
  return {
    paye: s.paye.map((p) => ({ authority_id: p.authority_id, jurisdiction: p.jurisdiction, amount: ngn(p.amount), payee_count: p.payee_count, reconciliation_reference: p.reconciliation_reference })),
    pension: s.pension.map((p) => ({ administrator_id: p.administrator_id, administrator_name: null, employee_amount: ngn(p.employee_amount), employer_amount: ngn(p.employer_amount), amount: ngn(p.amount), payee_count: p.payee_count, reconciliation_reference: p.reconciliation_reference })),
    levies: s.levies.map((l) => ({ code: l.code, amount: ngn(l.amount), reconciliation_reference: l.reconciliation_reference })),
    totals: { total: ngn(s.total) },
  };
}

/** Payroll's run executing makes its remittance instruction set (spec 2.10 source run). */
const fromRun: Reaction = {
  from: 'payroll_run',
  events: ['run.executing'],
  command: 'receive',
  target(event, source) {
    const d = event.data as { instruction_set?: InstructionSetData | null };
    if (!d.instruction_set) return undefined;
    const set = d.instruction_set;
    const payload: Receive & { from_run: true } = { source: 'run', livemode: false, period: set.period, run_id: source.id, pay_date: null, import_id: null, lines: linesOfRun(set), instructions_id: set.id, from_run: true };
    return { id: runSetIdOf(event.org, source.id), payload };
  },
};

const refuse = (s: SetState, what: string) => conflict(`Instruction set ${s.id} is ${s.status}; ${what}.`);

export const IngestedInstructionSet = defineActor({
  kind: 'remittance_instruction_set',
  prefix: SET_PREFIX,
  creates: ['receive'],
  initial: (id: string, org: string): SetState => ({
    id, org, livemode: false, status: 'received', source: 'external_api', period: '', run_id: null, pay_date: null, import_id: null,
    lines: { paye: [], pension: [], levies: [], totals: { total: ngn(0) } },
    report: null, resolved: null, discrepancies: [], created_at: 0, validated_at: null, decided_at: null, decided_by: null, rejection_reason: null, obligations_recorded: false, due_at: null,
  }),
  decide: {
    receive(_s: SetState, cmd: Receive & { from_run?: boolean }, ctx): SetEvent[] {
      if (ctx.version > 0) return [];
      const { from_run: _f, ...rest } = cmd;
      return [{ type: 'set.received', ...rest }];
    },
    retry(s: SetState): SetEvent[] {
      const waiting = s.status === 'received' || s.status === 'validating' || (s.status === 'accepted' && !s.obligations_recorded);
      return waiting ? [{ type: 'set.retry_due' }] : [];
    },
    begin_validation(s: SetState): SetEvent[] {
      return s.status === 'received' ? [{ type: 'set.validating' }] : [];
    },
    complete_validation(s: SetState, cmd: { pay_date: string | null; livemode?: boolean; validation: Validation }): SetEvent[] {
      if (s.status !== 'validating') return [];
      const v = cmd.validation;
      return [{ type: 'set.validated', pay_date: cmd.pay_date, ...(cmd.livemode === undefined ? {} : { livemode: cmd.livemode }), report: v.report, resolved: v.resolved, discrepancies: v.discrepancies }];
    },
    override(s: SetState, cmd: { discrepancy_id: string; reason_code: string; note?: string | null }, ctx): { events: SetEvent[]; reply: unknown } {
      const d = s.discrepancies.find((x) => x.id === cmd.discrepancy_id);
      if (!d) throw new ApiError('not_found', `No discrepancy with id ${cmd.discrepancy_id} on instruction set ${s.id}.`);
      if (s.status !== 'pending_acceptance') throw refuse(s, 'discrepancies are overridden only while it is pending acceptance');
      if (d.status !== 'open') throw conflict(`Discrepancy ${d.id} is already overridden.`);
      if (!Object.hasOwn(REASON_CODES.override, cmd.reason_code)) {
        throw fieldError('/reason_code', 'unknown_reason_code', `Use one of: ${Object.keys(REASON_CODES.override).join(', ')}.`, `reason_code ${cmd.reason_code} is not a published override reason code (GET /v1/remittance/reason_codes).`);
      }
      const note = cmd.note?.trim() ? cmd.note.trim() : null;
      if (cmd.reason_code === 'other' && note === null) {
        throw fieldError('/note', 'note_required', 'note is required with reason_code other.', 'reason_code other needs a note saying why.');
      }
      const reason_code = cmd.reason_code as OverrideReasonCode;
      const overridden: Discrepancy = { ...d, status: 'overridden', override: { reason_code, note, overridden_by: ctx.principal ?? null, overridden_at: ctx.now } };
      return { events: [{ type: 'set.discrepancy_overridden', discrepancy_id: d.id, reason_code, note, overridden_by: ctx.principal ?? null }], reply: discrepancyView(s, overridden) };
    },
    accept(s: SetState, _cmd: unknown, ctx): SetEvent[] {
      if (s.status !== 'pending_acceptance') throw refuse(s, 'only a set pending acceptance can be accepted');
      const open = s.discrepancies.filter((d) => d.status === 'open');
      if (open.length > 0) {
        const named = open.slice(0, 10).map((d) => `${d.id} (${d.code})`).join(', ') + (open.length > 10 ? ` and ${open.length - 10} more` : '');
        throw new ApiError('conflict', `Instruction set ${s.id} has ${open.length} unresolved discrepanc${open.length === 1 ? 'y' : 'ies'}: ${named}; override each with a reason code before accepting.`, { reason: 'discrepancy_unresolved', discrepancy_ids: open.map((d) => d.id) });
      }
      return [{ type: 'set.accepted', accepted_by: ctx.principal ?? null }];
    },
    reject(s: SetState, cmd: { reason?: string | null }, ctx): SetEvent[] {
      if (s.status !== 'pending_acceptance') throw refuse(s, 'only a set pending acceptance can be rejected');
      return [{ type: 'set.rejected', rejected_by: ctx.principal ?? null, reason: cmd?.reason ?? null }];
    },
    obligations_recorded(s: SetState): SetEvent[] {
      return s.status === 'accepted' && !s.obligations_recorded ? [{ type: 'set.obligations_recorded' }] : [];
    },
  },
  evolve(s: SetState, e: SetEvent, meta): SetState {
    switch (e.type) {
      case 'set.received': {
        const { type: _t, ...r } = e;
        return { ...s, ...r, status: 'received', created_at: meta.at, due_at: meta.at + RETRY_MS };
      }
      case 'set.retry_due':
        return { ...s, due_at: meta.at + RETRY_MS };
      case 'set.validating':
        return { ...s, status: 'validating', due_at: meta.at + RETRY_MS };
      case 'set.validated':
        return {
          ...s, status: 'pending_acceptance', pay_date: e.pay_date, livemode: e.livemode ?? s.livemode, report: e.report, resolved: e.resolved, validated_at: meta.at, due_at: null,
          discrepancies: e.discrepancies.map((d, i) => ({ ...d, id: discrepancyIdOf(s.id, i + 1), status: 'open', override: null })),
        };
      case 'set.discrepancy_overridden':
        return {
          ...s,
          discrepancies: s.discrepancies.map((d) => (d.id === e.discrepancy_id ? { ...d, status: 'overridden', override: { reason_code: e.reason_code, note: e.note, overridden_by: e.overridden_by, overridden_at: meta.at } } : d)),
        };
      case 'set.accepted':
        return { ...s, status: 'accepted', decided_at: meta.at, decided_by: e.accepted_by, due_at: meta.at + RETRY_MS };
      case 'set.rejected':
        return { ...s, status: 'rejected', decided_at: meta.at, decided_by: e.rejected_by, rejection_reason: e.reason, due_at: null };
      case 'set.obligations_recorded':
        return { ...s, obligations_recorded: true, due_at: null };
      default:
        return assertNever(e);
    }
  },
  timers: (s: SetState): TimerWish[] => (s.due_at !== null ? [{ name: 'retry', dueAt: s.due_at, command: 'retry', payload: {} }] : []),
  reactions: [fromRun],
  view: (s: SetState) => setView(s),
  indexes: (s: SetState): IndexEntry[] => {
    const k = sortKeyTime(s.created_at);
    return [...filterLists({ period: s.period, status: s.status }, k), ...(s.run_id ? [{ list: `run:${s.run_id}`, sortKey: k }] : [])];
  },
});

const due = (s: SetState, levy: Levy, d: string | null) => ({ due_date: d, calendar_entry_id: d !== null && s.pay_date ? calendarEntryId(levy, s.period, s.pay_date) : null });

/** The InstructionSet (spec 2.10) with each line's authority and due date (null where the levy does not apply). */
export function instructionsView(s: SetState) {
  const r = s.resolved;
  return recordView('instruction_set', s.instructions_id ?? s.id, s.livemode, false, {
    run_id: s.run_id,
    period: s.period,
    paye: s.lines.paye.map((p, i) => ({
      // Once validated, the authority the line resolved to (null where it named none: an overridden discrepancy).
      authority_id: r ? (r.paye[i]?.authority_id ?? null) : p.authority_id, jurisdiction: p.jurisdiction, authority_name: r?.paye[i]?.authority_name ?? null,
      amount: p.amount, payee_count: p.payee_count, ...due(s, 'paye', r?.paye[i]?.due_date ?? null), reconciliation_reference: p.reconciliation_reference,
    })),
    pension: s.lines.pension.map((p, i) => ({
      administrator_id: p.administrator_id, administrator_name: r?.pension[i]?.administrator_name ?? p.administrator_name, authority_id: r?.pension[i]?.authority_id ?? null,
      employee_amount: p.employee_amount, employer_amount: p.employer_amount, amount: p.amount, payee_count: p.payee_count, ...due(s, 'pension', r?.pension[i]?.due_date ?? null), reconciliation_reference: p.reconciliation_reference,
    })),
    levies: s.lines.levies.map((l, i) => ({
      code: l.code, authority_id: r?.levies[i]?.authority_id ?? null, authority_name: r?.levies[i]?.authority_name ?? null, amount: l.amount, ...due(s, l.code, r?.levies[i]?.due_date ?? null), reconciliation_reference: l.reconciliation_reference,
    })),
    totals: s.lines.totals,
  });
}

export function setView(s: SetState) {
  const open = s.discrepancies.filter((d) => d.status === 'open').length;
  return recordView('ingested_instruction_set', s.id, s.livemode, false, {
    status: s.status,
    source: s.source,
    period: s.period,
    run_id: s.run_id,
    pay_date: s.pay_date,
    import_id: s.import_id,
    instructions: instructionsView(s),
    created_at: iso(s.created_at),
    // Spec 2.10: required. Until validation completes, an empty report counting the lines received.
    validation_report: s.report ?? { entry_count: 0, error_count: 0, warning_count: 0, entries: [] },
    discrepancy_count: { open, overridden: s.discrepancies.length - open },
    validated_at: s.validated_at === null ? null : iso(s.validated_at),
    accepted_at: s.status === 'accepted' && s.decided_at !== null ? iso(s.decided_at) : null,
    rejected_at: s.status === 'rejected' && s.decided_at !== null ? iso(s.decided_at) : null,
    decided_by: s.decided_by,
    rejection_reason: s.rejection_reason,
    obligations_recorded: s.obligations_recorded,
    next_action: setNextAction(s, open),
  });
}

/** What the set waits for (docs/gaps.md "next_action"; spec 3: nothing is committed until accepted). */
function setNextAction(s: SetState, open: number): NextAction | null {
  if (s.status !== 'pending_acceptance') return null;
  const path = `/v1/remittance/instruction_sets/${s.id}`;
  if (open > 0) return nextAction('resolve_discrepancies', `${open} discrepanc${open === 1 ? 'y is' : 'ies are'} unresolved; override each with a reason code, or reject the set.`, { method: 'POST', path: `${path}/discrepancies/{discrepancy_id}/override` }, { open_discrepancies: open });
  return nextAction('accept_instruction_set', 'The set is validated; accept it to commit its obligations (or reject it).', { method: 'POST', path: `${path}/accept` });
}

export function discrepancyView(s: Pick<SetState, 'id' | 'livemode'>, d: Discrepancy) {
  return recordView('remittance_discrepancy', d.id, s.livemode, false, {
    instruction_set_id: s.id,
    code: d.code,
    line: d.line,
    detail: d.detail,
    expected: d.expected,
    actual: d.actual,
    status: d.status,
    override: d.override && { reason_code: d.override.reason_code, note: d.override.note, overridden_by: d.override.overridden_by, overridden_at: iso(d.override.overridden_at) },
  });
}

export type IngestedInstructionSetView = ReturnType<typeof setView>;
