/**
 * Payroll run. Spec 1 (rules 3-5, 10), 2.9, 3 (Payroll run), 4.8, 8 (maker-checker).
 *
 * Findings are records inside the run: approval must see every open finding. Payslips are written
 * in batches (payslips/batch.ts) before the run records the batch ids in one event, so a
 * 100,000-payee run is one run stream plus 200 batch streams, and no journal message is unbounded.
 *
 * status            command                condition                                         event(s)                                  next
 * ----------------  ---------------------  ------------------------------------------------  ----------------------------------------  -----------------
 * (none)            create                 pack pinned (version + content hash)             run.created                               draft
 * draft|simulated   update (PATCH)         -                                                 run.updated (payslips dropped)            draft
 * draft|simulated   calculate              batches written                                   run.calculated                            simulated
 * simulated         submit                 -                                                 run.submitted (prepared_by = the person   pending_approval
 *                                                                                            behind the caller's credential)
 * pending_approval  approve                approving person != preparing person when gross   run.approved                              approved
 *                                          > threshold (people, not credentials);
 *                                          no open finding of severity p0
 * any but cancelled resolve_finding        finding open                                      run.finding.resolved                      (same)
 * approved          execute                -                                                 [run.correction.reversed] then            executing
 *                                                                                            run.executing (posting, instruction set,
 *                                                                                            signed payout instruction)
 * executing         record_payout_outcome  outcome settled | partially_settled | failed      run.completed | run.partially_settled |   completed | partially_settled | failed
 *                                                                                            run.failed
 * executed (*)      issue_payslip          payslip exists, not yet issued                    run.payslip.issued                        (same)
 * executed (*)      export_gl              -                                                 run.gl_exported                           (same)
 * draft..approved   cancel                 -                                                 run.cancelled                             cancelled
 * otherwise         any                    -                                                 409 conflict
 *
 * (*) executed = executing, completed, partially_settled or failed.
 * [run.correction.reversed]: a correction run first reverses the corrected run's posting (reverses_id).
 */
import { defineActor, type IndexEntry, iso, sortKeyTime } from '../../../runtime/index.ts';
import { ApiError, assertNever, conflict, filterLists, nextAction, type NextAction, recordView } from '../../../kernel/index.ts';
import { postingIdFor, type PostingRequest } from '../../ledger/index.ts';
import type { EmployerInputs, PayComponent, PayItemCode, RulePackReference } from '../engine/index.ts';
import { FINDING_PREFIX, GL_EXPORT_PREFIX, payslipId } from '../payroll-ids.ts';
import { ngn } from '../naira.ts';
import { ZERO_TOTALS, type RunTotalsData } from '../payslips/record.ts';
import type { InstructionSetData } from './instruction-set.ts';

export type RunStatus = 'draft' | 'simulated' | 'pending_approval' | 'approved' | 'executing' | 'completed' | 'partially_settled' | 'failed' | 'cancelled';
export const RUN_STATUSES: readonly RunStatus[] = ['draft', 'simulated', 'pending_approval', 'approved', 'executing', 'completed', 'partially_settled', 'failed', 'cancelled'];
export type RunType = 'regular' | 'off_cycle' | 'bonus' | 'thirteenth_month' | 'correction' | 'final_settlement';
export const RUN_TYPES: readonly RunType[] = ['regular', 'off_cycle', 'bonus', 'thirteenth_month', 'correction', 'final_settlement'];

/** One-off pay for one payee in a run (reference ng-payroll-2026-irregular-pay.md 1.3), kobo. */
export interface RunItem {
  payee_ref: string;
  code: PayItemCode;
  amount: number;
  components?: Record<PayComponent, number>;
}

/** Most items a run holds (they travel in one event); docs/gaps.md#payroll. */
export const MAX_RUN_ITEMS = 5_000;

export type Severity = 'p0' | 'p1' | 'p2' | 'p3';
export interface Finding {
  id: string;
  severity: Severity;
  code: string;
  detail: string;
  payslip_id: string | null;
  payee_ref: string | null;
  status: 'open' | 'resolved';
  raised_at: number;
  resolution: { reason: string; resolved_by: string | null; resolved_at: number } | null;
}
export type NewFinding = Pick<Finding, 'severity' | 'code' | 'detail' | 'payee_ref'> & { n: number | null };

/** What the payouts area receives, signed (payout-instruction.ts); the lines are rebuilt from the payslips. */
export interface PayoutSeal {
  instruction_ref: string;
  algorithm: 'ed25519';
  key_id: string;
  signature: string;
  digest: string;
  line_count: number;
  total: number;
}

export interface RunState {
  id: string;
  org: string;
  livemode: boolean;
  status: RunStatus;
  run_type: RunType;
  period: string;
  pay_date: string;
  description: string | null;
  /** Payees this run is limited to (payee_ref); null means everyone employed in the period. */
  payee_refs: string[] | null;
  /** The executed run a correction run corrects (spec 1 rule 4); null for other types. */
  corrects_run_id: string | null;
  /** One-off pay items (bonus, arrears, terminal pay ...), by payee. */
  items: RunItem[];
  rule_pack: RulePackReference;
  created_by: string | null;
  /** The person (account id, or an operator-issued OAuth client) behind the submitting credential. */
  prepared_by: string | null;
  /** The person behind the approving credential. */
  approved_by: string | null;
  /** The credentials used (api key id, OAuth client id or account id); absent on older runs. */
  prepared_with?: string | null;
  approved_with?: string | null;
  created_at: number;
  calculated_at: number | null;
  executed_at: number | null;
  employer: EmployerInputs | null;
  /** Settings of the current calculation; absent on runs calculated before settings were recorded. */
  settings?: RunSettings | null;
  /** Ids of the payslip batches of the current calculation, in payslip order. */
  batches: string[];
  totals: RunTotalsData;
  findings: Finding[];
  issued: Record<number, number>;
  instruction_set: InstructionSetData | null;
  payout: PayoutSeal | null;
  /** The ledger posting execute caused (its id derives from the run.executing event id). */
  ledger_posting_id: string | null;
  /** A correction's reversal of the corrected run's posting. */
  reversal_posting_id: string | null;
  gl_exports: Array<{ id: string; created_at: number }>;
}

export interface CreateRun {
  run_type: RunType;
  corrects_run_id: string | null;
  period: string;
  pay_date: string;
  description: string | null;
  rule_pack: RulePackReference;
  livemode: boolean;
  /** A correction starts with the items of the run it corrects. */
  items?: RunItem[];
}

/** The employer settings a calculation used (spec 8; docs/gaps.md#payroll): shown on the run. */
export interface RunSettings {
  /** As configured; null: the run's payees were counted. */
  headcount: number | null;
  /** What the engine used. */
  headcount_used: number;
  turnover_50m_or_more: boolean;
  state: string | null;
  maker_checker_threshold: number;
  /** True when nobody had given the settings (a p1 finding names the values assumed). */
  assumed: boolean;
}

export interface Calculation {
  employer: EmployerInputs;
  settings: RunSettings;
  totals: RunTotalsData;
  batches: string[];
  findings: NewFinding[];
}

export interface Execution {
  /** A correction's reversal of the corrected run's posting (reverses_id set). */
  reversal?: PostingRequest;
  instruction_set: InstructionSetData;
  ledger_posting?: PostingRequest;
  payout: PayoutSeal | null;
}

export type PayoutOutcome = 'settled' | 'partially_settled' | 'failed';

export type RunEvent =
  | ({ type: 'run.created'; created_by: string | null } & CreateRun)
  | { type: 'run.updated'; pay_date?: string; description?: string | null; payee_refs?: string[] | null; items?: RunItem[] }
  | { type: 'run.calculated'; employer: EmployerInputs; settings?: RunSettings; totals: RunTotalsData; batches: string[]; findings: Finding[] }
  | { type: 'run.submitted'; prepared_by: string | null; prepared_with?: string | null }
  | { type: 'run.approved'; approved_by: string | null; approved_with?: string | null }
  | { type: 'run.finding.resolved'; finding_id: string; reason: string; resolved_by: string | null }
  | { type: 'run.correction.reversed'; corrects_run_id: string; ledger_posting: PostingRequest }
  | ({ type: 'run.executing' } & Omit<Execution, 'reversal'>)
  | { type: 'run.completed' }
  | { type: 'run.partially_settled' }
  | { type: 'run.failed' }
  | { type: 'run.payslip.issued'; n: number; payslip_id: string }
  | { type: 'run.gl_exported'; export_id: string }
  | { type: 'run.cancelled'; reason: string | null };

export const EXECUTED: ReadonlySet<RunStatus> = new Set(['executing', 'completed', 'partially_settled', 'failed']);

const refuseState = (s: RunState, what: string) => conflict(`Run ${s.id} is ${s.status}; ${what}.`);

export const Run = defineActor({
  kind: 'payroll_run',
  prefix: 'run_enterprise_',
  snapshotEvery: 1_000,
  creates: ['create'],
  initial: (id: string, org: string): RunState => ({
    id, org, livemode: false, status: 'draft', run_type: 'regular', period: '', pay_date: '', description: null, payee_refs: null, corrects_run_id: null, items: [],
    rule_pack: { pack_id: 'ng-payroll', version: '', content_hash: '' },
    created_by: null, prepared_by: null, approved_by: null, created_at: 0, calculated_at: null, executed_at: null,
    employer: null, batches: [], totals: ZERO_TOTALS, findings: [], issued: {}, instruction_set: null, payout: null, ledger_posting_id: null, reversal_posting_id: null, gl_exports: [],
  }),
  decide: {
    create(_s: RunState, cmd: CreateRun, ctx): RunEvent[] {
      if (ctx.version > 0) return [];
      return [{ type: 'run.created', created_by: ctx.principal ?? null, ...cmd }];
    },
    update(s: RunState, cmd: { pay_date?: string; description?: string | null; payee_refs?: string[] | null; items?: RunItem[] }): RunEvent[] {
      if (s.status !== 'draft' && s.status !== 'simulated') throw refuseState(s, 'only a draft or simulated run can be changed');
      return [{ type: 'run.updated', ...cmd }];
    },
    calculate(s: RunState, cmd: Calculation, ctx): RunEvent[] {
      if (s.status !== 'draft' && s.status !== 'simulated') throw refuseState(s, 'only a draft or simulated run can be calculated');
      const findings: Finding[] = cmd.findings.map((f) => ({
        id: ctx.newId(FINDING_PREFIX), severity: f.severity, code: f.code, detail: f.detail,
        payslip_id: f.n === null ? null : payslipId(s.id, f.n), payee_ref: f.payee_ref,
        status: 'open', raised_at: ctx.now, resolution: null,
      }));
      return [{ type: 'run.calculated', employer: cmd.employer, settings: cmd.settings, totals: cmd.totals, batches: cmd.batches, findings }];
    },
    submit(s: RunState, cmd: { person?: string | null }, ctx): RunEvent[] {
      if (s.status !== 'simulated') throw refuseState(s, 'only a calculated (simulated) run can be submitted for approval');
      return [{ type: 'run.submitted', prepared_by: cmd?.person ?? ctx.principal ?? null, prepared_with: ctx.principal ?? null }];
    },
    approve(s: RunState, cmd: { threshold: number; person?: string | null }, ctx): RunEvent[] {
      if (s.status !== 'pending_approval') throw refuseState(s, 'only a run pending approval can be approved');
      const openP0 = s.findings.filter((f) => f.severity === 'p0' && f.status === 'open');
      if (openP0.length > 0) {
        throw new ApiError('conflict', `Run ${s.id} has ${openP0.length} open finding(s) of severity p0; resolve them before approving.`, { reason: 'p0_finding_open', finding_ids: openP0.map((f) => f.id) });
      }
      // People, not credentials: a key the preparer made (or a session of theirs) is the preparer.
      const approver = cmd.person ?? ctx.principal ?? null;
      if (approver !== null && approver === s.prepared_by && s.totals.gross > cmd.threshold) {
        throw new ApiError('conflict', `The preparer of run ${s.id} (${approver}) cannot approve it with any of their credentials: its gross (${s.totals.gross} kobo) is above the organisation's maker-checker threshold (${cmd.threshold} kobo).`, { reason: 'maker_checker' });
      }
      return [{ type: 'run.approved', approved_by: approver, approved_with: ctx.principal ?? null }];
    },
    resolve_finding(s: RunState, cmd: { finding_id: string; reason: string }, ctx): { events: RunEvent[]; reply: unknown } {
      const f = s.findings.find((x) => x.id === cmd.finding_id);
      if (!f) throw new ApiError('not_found', `No finding with id ${cmd.finding_id} on run ${s.id}.`);
      if (s.status === 'cancelled') throw refuseState(s, 'findings of a cancelled run cannot be resolved');
      if (f.status !== 'open') throw conflict(`Finding ${f.id} is already resolved.`);
      const resolved: Finding = { ...f, status: 'resolved', resolution: { reason: cmd.reason, resolved_by: ctx.principal ?? null, resolved_at: ctx.now } };
      return { events: [{ type: 'run.finding.resolved', finding_id: f.id, reason: cmd.reason, resolved_by: ctx.principal ?? null }], reply: findingView(s, resolved) };
    },
    execute(s: RunState, cmd: Execution): RunEvent[] {
      if (s.status !== 'approved') throw refuseState(s, 'a run that has not been approved cannot be executed');
      const { reversal, ...rest } = cmd;
      const events: RunEvent[] = [];
      if (reversal && s.corrects_run_id) events.push({ type: 'run.correction.reversed', corrects_run_id: s.corrects_run_id, ledger_posting: reversal });
      events.push({ type: 'run.executing', ...rest });
      return events;
    },
    record_payout_outcome(s: RunState, cmd: { outcome: PayoutOutcome }): RunEvent[] {
      if (s.status !== 'executing') throw refuseState(s, 'only an executing run takes a payout outcome');
      switch (cmd.outcome) {
        case 'settled':
          return [{ type: 'run.completed' }];
        case 'partially_settled':
          return [{ type: 'run.partially_settled' }];
        case 'failed':
          return [{ type: 'run.failed' }];
        default:
          return assertNever(cmd.outcome);
      }
    },
    issue_payslip(s: RunState, cmd: { n: number }): RunEvent[] {
      if (!Number.isSafeInteger(cmd.n) || cmd.n < 0 || cmd.n >= s.totals.payslip_count) throw new ApiError('not_found', `No payslip ${payslipId(s.id, cmd.n)}.`);
      if (!EXECUTED.has(s.status)) throw refuseState(s, 'a payslip is issued only once its run has executed');
      if (s.issued[cmd.n] !== undefined) return [];
      return [{ type: 'run.payslip.issued', n: cmd.n, payslip_id: payslipId(s.id, cmd.n) }];
    },
    export_gl(s: RunState, _cmd: unknown, ctx): RunEvent[] {
      if (!EXECUTED.has(s.status)) throw refuseState(s, 'a general-ledger export exists only for an executed run');
      return [{ type: 'run.gl_exported', export_id: ctx.newId(GL_EXPORT_PREFIX) }];
    },
    cancel(s: RunState, cmd: { reason?: string | null }): RunEvent[] {
      if (!['draft', 'simulated', 'pending_approval', 'approved'].includes(s.status)) throw refuseState(s, 'only a run that has not started executing can be cancelled');
      return [{ type: 'run.cancelled', reason: cmd?.reason ?? null }];
    },
  },
  evolve(s: RunState, e: RunEvent, meta): RunState {
    switch (e.type) {
      case 'run.created':
        return { ...s, livemode: e.livemode, run_type: e.run_type, corrects_run_id: e.corrects_run_id ?? null, items: e.items ?? [], period: e.period, pay_date: e.pay_date, description: e.description, rule_pack: e.rule_pack, created_by: e.created_by, created_at: meta.at };
      case 'run.updated':
        return {
          ...s, status: 'draft', pay_date: e.pay_date ?? s.pay_date, description: e.description === undefined ? s.description : e.description,
          payee_refs: e.payee_refs === undefined ? s.payee_refs : e.payee_refs,
          items: e.items ?? s.items ?? [],
          batches: [], totals: ZERO_TOTALS, findings: [], employer: null, settings: null, calculated_at: null,
        };
      case 'run.calculated':
        return { ...s, status: 'simulated', employer: e.employer, settings: e.settings ?? null, totals: e.totals, findings: e.findings, batches: e.batches, calculated_at: meta.at };
      case 'run.submitted':
        return { ...s, status: 'pending_approval', prepared_by: e.prepared_by, prepared_with: e.prepared_with ?? null };
      case 'run.approved':
        return { ...s, status: 'approved', approved_by: e.approved_by, approved_with: e.approved_with ?? null };
      case 'run.finding.resolved':
        return {
          ...s,
          findings: s.findings.map((f) => (f.id === e.finding_id ? { ...f, status: 'resolved', resolution: { reason: e.reason, resolved_by: e.resolved_by, resolved_at: meta.at } } : f)),
        };
      case 'run.correction.reversed':
        return { ...s, reversal_posting_id: postingIdFor(meta.eventId) };
      case 'run.executing':
        return { ...s, status: 'executing', executed_at: meta.at, instruction_set: e.instruction_set, payout: e.payout, ledger_posting_id: e.ledger_posting ? postingIdFor(meta.eventId) : null };
      case 'run.completed':
        return { ...s, status: 'completed' };
      case 'run.partially_settled':
        return { ...s, status: 'partially_settled' };
      case 'run.failed':
        return { ...s, status: 'failed' };
      case 'run.payslip.issued':
        return { ...s, issued: { ...s.issued, [e.n]: meta.at } };
      case 'run.gl_exported':
        return { ...s, gl_exports: [...s.gl_exports, { id: e.export_id, created_at: meta.at }] };
      case 'run.cancelled':
        return { ...s, status: 'cancelled' };
      default:
        return assertNever(e);
    }
  },
  view: (s: RunState) => runView(s),
  indexes: (s: RunState): IndexEntry[] => filterLists({ period: s.period, status: s.status }, sortKeyTime(s.created_at)),
});

export function totalsView(t: RunTotalsData) {
  return { gross: ngn(t.gross), net: ngn(t.net), total_deductions: ngn(t.total_deductions), employer_contributions: ngn(t.employer_contributions), payslip_count: t.payslip_count };
}

export function runView(s: RunState) {
  const open = { p0: 0, p1: 0, p2: 0, p3: 0 };
  for (const f of s.findings) if (f.status === 'open') open[f.severity]++;
  return recordView('payroll_run', s.id, s.livemode, false, {
    status: s.status,
    run_type: s.run_type,
    period: s.period,
    payee_count: s.totals.payslip_count,
    rule_pack: s.rule_pack,
    totals: totalsView(s.totals),
    prepared_by: s.prepared_by,
    approved_by: s.approved_by,
    prepared_with: s.prepared_with ?? null,
    approved_with: s.approved_with ?? null,
    created_at: iso(s.created_at),
    executed_at: s.executed_at === null ? null : iso(s.executed_at),
    pay_date: s.pay_date,
    description: s.description,
    payee_refs: s.payee_refs,
    corrects_run_id: s.corrects_run_id,
    items: (s.items ?? []).map((i) => ({ payee_ref: i.payee_ref, code: i.code, amount: ngn(i.amount), ...(i.components ? { components: componentsView(i.components) } : {}) })),
    employer_settings: settingsView(s),
    open_findings: open,
    instruction_set_id: s.instruction_set?.id ?? null,
    ledger_posting_id: s.ledger_posting_id,
    reversal_posting_id: s.reversal_posting_id,
    next_action: runNextAction(s, open.p0),
  });
}

/**
 * What the run waits for (docs/gaps.md "next_action"): the next call of its lifecycle, or the open p0
 * findings approval waits on. An executing run moves on by itself; what its payouts wait for is
 * added where it is read (runs.ts runRecord: funds, payees' identity or accounts).
 */
function runNextAction(s: RunState, openP0: number): NextAction | null {
  const path = `/v1/payroll/runs/${s.id}`;
  switch (s.status) {
    case 'draft':
      return nextAction('calculate_run', 'Calculate the payslips and findings of the run.', { method: 'POST', path: `${path}/calculate` });
    case 'simulated':
      return nextAction('submit_run', 'Submit the calculated run for approval.', { method: 'POST', path: `${path}/submit` });
    case 'pending_approval':
      if (openP0 > 0) return nextAction('resolve_findings', `${openP0} open finding(s) of severity p0 block approval; resolve each with a reason.`, { method: 'POST', path: `${path}/findings/{finding_id}/resolve` }, { open_p0: openP0 });
      return nextAction('approve_run', 'A person approves the run (another person above the maker-checker threshold).', { method: 'POST', path: `${path}/approve` });
    case 'approved':
      return nextAction('execute_run', 'Execute the approved run: payslips become final and its payees are paid.', { method: 'POST', path: `${path}/execute` });
    case 'executing':
    case 'completed':
    case 'partially_settled':
    case 'failed':
    case 'cancelled':
      return null;
    default:
      return assertNever(s.status);
  }
}

function componentsView(c: Record<PayComponent, number>) {
  return { basic: ngn(c.basic), housing: ngn(c.housing), transport: ngn(c.transport), other_allowances: ngn(c.other_allowances) };
}

/** The employer settings the calculation used; null before one (or on a run calculated before they were recorded). */
function settingsView(s: RunState) {
  const x = s.settings;
  if (!x) return null;
  return { headcount: x.headcount, headcount_used: x.headcount_used, turnover_50m_or_more: x.turnover_50m_or_more, state: x.state, maker_checker_threshold: ngn(x.maker_checker_threshold), assumed: x.assumed };
}

export function findingView(s: Pick<RunState, 'id' | 'livemode'>, f: Finding) {
  return recordView('payroll_finding', f.id, s.livemode, false, {
    run_id: s.id,
    severity: f.severity,
    code: f.code,
    detail: f.detail,
    payslip_id: f.payslip_id,
    payee_ref: f.payee_ref,
    status: f.status,
    raised_at: iso(f.raised_at),
    resolution: f.resolution && { reason: f.resolution.reason, resolved_by: f.resolution.resolved_by, resolved_at: iso(f.resolution.resolved_at) },
  });
}
