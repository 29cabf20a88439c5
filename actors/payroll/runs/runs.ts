/**
 * The payroll run's operations (spec 2.9, 3 Payroll run, 4.8): what the routes and other areas call.
 * Each reads the run (run.ts holds its rules), runs the steps that need I/O, and asks the run.
 * Creating pins the rule pack and the run a correction corrects; calculating writes every payee's
 * payslip in batches with the pinned pack; simulating writes nothing; approving carries the
 * organisation's maker-checker threshold and the person behind the credential; executing builds
 * the ledger posting, the instruction set and the signed payout instruction.
 */
import { ApiError, conflict, createDedupe, createdId, type Caller, errorEntry, fieldError, idOf, keyValue, type Platform, type ValidationEntry } from '../../../kernel/index.ts';
import { personBehind } from '../../accounts/index.ts';
import { identityGate } from '../../identity/index.ts';
import type { PostingRequest } from '../../ledger/index.ts';
import { checkPayItems, computePayslip, findPack, packForPeriod, PAY_ITEM_CODES, resolvePack, type PayComponent, type PayItemCode, type PayslipComputation, type RulePack } from '../engine/index.ts';
import { ngn } from '../naira.ts';
import { payslipId, RUN_PREFIX } from '../payroll-ids.ts';
import { correctionDeltas, differences, optionsOf, sameAmounts, totalsOf, type PayslipRecord, type RunTotalsData } from '../payslips/record.ts';
import { correctedPayslips, loadPayslips, writeBatches } from '../payslips/storage.ts';
import { refuse } from '../refuse.ts';
import { computeAll } from './compute-payslips.ts';
import { recoveryFindings } from './findings.ts';
import { employerInputs, employerSettings, gatherRun } from './gather.ts';
import { buildInstructionSet } from './instruction-set.ts';
import { buildPosting, reversalOf } from './ledger-posting.ts';
import { sealPayout } from './payout-instruction.ts';
import { EXECUTED, Run, totalsView, type NewFinding, type RunItem, type RunSettings, type RunState, type RunType } from './run.ts';

// A run as the payroll operations read it (spec 4.8), and the rule pack it pinned (spec 9).

export async function runState(p: Platform, c: Caller, runId: string): Promise<RunState> {
  return p.system.state(Run, idOf(runId, RUN_PREFIX, 'payroll run'), c.org);
}

export function pinnedPack(s: RunState): RulePack {
  const pack = resolvePack(s.rule_pack);
  if (!pack) throw new ApiError('unavailable', `The pinned rule pack ${s.rule_pack.version} (${s.rule_pack.content_hash}) is not available on this node; retry (another node may have it).`, { retryable: true });
  return pack;
}

// Creating a draft run (spec 4.8 POST /v1/payroll/runs): the rule pack it pins and the run it corrects.

export interface CreateRunBody {
  period: string;
  run_type: RunType;
  pay_date?: string;
  description?: string | null;
  rule_pack_version?: string;
  corrects_run_id?: string;
}

const lastDay = (period: string) => {
  const [y, m] = period.split('-').map(Number);
  return new Date(Date.UTC(y, m, 0)).toISOString().slice(0, 10);
};

export async function createRun(p: Platform, c: Caller, body: CreateRunBody): Promise<unknown> {
  let pack: RulePack | undefined;
  if (body.rule_pack_version !== undefined) {
    pack = findPack(body.rule_pack_version);
    if (!pack) throw fieldError('/rule_pack_version', 'unknown_rule_pack', `No rule pack with version ${body.rule_pack_version}.`);
    if (pack.status !== 'active') throw fieldError('/rule_pack_version', 'draft_rule_pack', `Rule pack ${pack.ref.version} is a draft; a run pins an active pack, drafts are for simulation.`);
  } else {
    pack = packForPeriod(body.period);
    if (!pack) throw fieldError('/period', 'no_rule_pack_for_period', `No active rule pack covers ${body.period}.`);
  }
  const first = `${body.period}-01`;
  if (first < pack.effective_from || (pack.effective_to !== null && first > pack.effective_to)) {
    throw fieldError('/period', 'period_outside_rule_pack', `Rule pack ${pack.ref.version} covers ${pack.effective_from} to ${pack.effective_to ?? 'open'}, not ${body.period}.`);
  }
  let corrects: string | null = null;
  let items: RunItem[] = [];
  if (body.run_type === 'correction') {
    if (!body.corrects_run_id) throw fieldError('/corrects_run_id', 'required', 'A correction run names the executed run it corrects (corrects_run_id).');
    let target: RunState;
    try {
      target = await runState(p, c, body.corrects_run_id);
    } catch (e) {
      if (e instanceof ApiError && e.code === 'not_found') throw fieldError('/corrects_run_id', 'unknown_run', `No payroll run with id ${body.corrects_run_id}.`);
      throw e;
    }
    if (!EXECUTED.has(target.status)) throw fieldError('/corrects_run_id', 'run_not_executed', `Run ${target.id} is ${target.status}; only an executed run is corrected.`);
    if (target.period !== body.period) throw fieldError('/corrects_run_id', 'period_mismatch', `Run ${target.id} is for ${target.period}, not ${body.period}.`);
    corrects = target.id;
    items = target.items ?? [];
  } else if (body.corrects_run_id !== undefined) {
    throw fieldError('/corrects_run_id', 'not_a_correction', 'Only a correction run names a run it corrects.');
  }
  return p.system.ask(Run, createdId(c, RUN_PREFIX), 'create', {
    run_type: body.run_type, corrects_run_id: corrects, period: body.period, pay_date: body.pay_date ?? lastDay(body.period), description: body.description ?? null, rule_pack: pack.ref, livemode: c.livemode, items,
  }, { ...c, dedupeId: createDedupe(c) });
}

// Changing a draft or simulated run (spec 4.8 PATCH /v1/payroll/runs/{run_id}): pay date,
// description, the payees it is limited to, and its pay items (reference
// ng-payroll-2026-irregular-pay.md 1.3), checked against the pinned pack's item rules.

type MoneyBody = { amount: number; currency: string };
export interface ItemBody {
  payee_ref: string;
  code: PayItemCode;
  amount: MoneyBody;
  components?: Record<PayComponent, MoneyBody>;
}
export interface UpdateRunBody {
  pay_date?: string;
  description?: string | null;
  payee_refs?: string[] | null;
  items?: ItemBody[];
}

const COMPONENTS: readonly PayComponent[] = ['basic', 'housing', 'transport', 'other_allowances'];

export async function updateRun(p: Platform, c: Caller, runId: string, body: UpdateRunBody): Promise<unknown> {
  const s = await runState(p, c, runId);
  const { items: given, ...rest } = body;
  let items: RunItem[] | undefined;
  if (given !== undefined) {
    const entries: ValidationEntry[] = [];
    const ngn = (m: MoneyBody, i: number, field: string) => {
      if (m.currency !== 'NGN') entries.push(errorEntry(`/items/${i}/${field}/currency`, 'unsupported_currency', `items[${i}] is paid in NGN only.`, i + 1));
      return m.amount;
    };
    items = given.map((it, i) => {
      const item: RunItem = { payee_ref: it.payee_ref, code: it.code, amount: ngn(it.amount, i, 'amount') };
      if (it.components) {
        item.components = Object.fromEntries(COMPONENTS.map((k) => [k, ngn(it.components![k], i, `components/${k}`)])) as Record<PayComponent, number>;
      }
      return item;
    });
    entries.push(...checkPayItems(pinnedPack(s), items));
    const seen = new Set<string>();
    items.forEach((it, i) => {
      const key = `${it.payee_ref}\u0000${it.code}`;
      if (seen.has(key)) entries.push(errorEntry(`/items/${i}`, 'duplicate_pay_item', `items[${i}] repeats ${it.code} for ${it.payee_ref}; give one amount per payee and code (${PAY_ITEM_CODES.length} codes).`, i + 1));
      seen.add(key);
    });
    if (entries.length) refuse(entries, items.length);
  }
  return p.system.ask(Run, s.id, 'update', { ...rest, ...(items ? { items } : {}) }, c);
}

// Calculating a run (spec 2.9, 4.8): every payee's payslip with the pinned pack, written in batches, then the run records them.

export async function calculateRun(p: Platform, c: Caller, runId: string): Promise<unknown> {
  const s = await runState(p, c, runId);
  if (s.status !== 'draft' && s.status !== 'simulated') throw conflict(`Run ${s.id} is ${s.status}; only a draft or simulated run can be calculated.`);
  const pack = pinnedPack(s);
  const corrected = await correctedPayslips(p.system, s);
  // A payee who cannot be paid for want of a live passport is a finding now (spec 4.3 gating), when identity is mounted.
  const gate = p.areas.some((a) => a.name === 'identity') ? identityGate(p) : undefined;
  const gathered = await gatherRun(p.system, s, corrected, gate && ((ref) => gate.isLive(s.org, ref)));
  const configured = await employerSettings(p.system, c.org);
  const employer = employerInputs(configured, gathered.payees.length);
  const settings: RunSettings = {
    headcount: configured.headcount, headcount_used: employer.headcount, turnover_50m_or_more: configured.turnover_50m_or_more,
    state: configured.state, maker_checker_threshold: configured.maker_checker_threshold, assumed: !configured.configured,
  };
  const { records, findings } = computeAll(pack, s.period, employer, gathered.payees, gathered.ytd, (rs) => [...gathered.findings, ...recoveryFindings(rs, corrected), ...assumedSettings(settings)]);
  const batches = await writeBatches(p.system, runId, records, c);
  return p.system.ask(Run, runId, 'calculate', { employer, settings, totals: totalsOf(records), batches, findings }, c);
}

/** A run on settings nobody gave says so, naming the values assumed (docs/gaps.md#payroll). */
export function assumedSettings(s: RunSettings): NewFinding[] {
  if (!s.assumed) return [];
  const threshold = ngn(s.maker_checker_threshold);
  return [{
    severity: 'p1', code: 'employer_settings_assumed', payee_ref: null, n: null,
    detail: `The organisation's payroll settings were never given (PATCH /v1/payroll/employer_settings); this run assumed headcount ${s.headcount_used} (the payees counted), turnover_50m_or_more false, state null and a maker-checker threshold of ${threshold.amount} kobo (every run needs a second person).`,
  }];
}

// Simulating a run (spec 2.9, 4.8 POST .../simulate) with a draft rule pack or the pinned one:
// nothing is written; the totals and a per-payee difference against the pinned pack.

export async function simulateRun(p: Platform, c: Caller, runId: string, draftVersion: string | undefined): Promise<unknown> {
  const s = await runState(p, c, runId);
  if (s.status === 'cancelled') throw conflict(`Run ${s.id} is cancelled; it cannot be simulated.`);
  const pinned = pinnedPack(s);
  let pack = pinned;
  if (draftVersion !== undefined) {
    const found = findPack(draftVersion);
    if (!found) throw fieldError('/draft_rule_pack_version', 'unknown_rule_pack', `No rule pack with version ${draftVersion}.`);
    pack = found;
  }
  // Baseline: the recorded payslips when the run is calculated, else a computation now (pinned pack).
  let baseline: PayslipRecord[];
  let employer = s.employer;
  if (s.status === 'draft') {
    const gathered = await gatherRun(p.system, s, await correctedPayslips(p.system, s));
    employer = employerInputs(await employerSettings(p.system, c.org), gathered.payees.length);
    const pinnedRun = computeAll(pinned, s.period, employer, gathered.payees, gathered.ytd);
    baseline = pinnedRun.records;
    if (pack === pinned) return simulation(s, pack, totalsOf(baseline), [], 0);
  } else baseline = await loadPayslips(p.system, s);
  // Nothing is retained per payee but the totals and the first DIFF_LIMIT differences, so a
  // 100,000-payee simulation stays in the young generation of the heap.
  const totals = { gross: 0, net: 0, total_deductions: 0, employer_contributions: 0, payslip_count: 0 };
  const diffs: Array<{ payslip_id: string | null; payee_ref: string; differences: ReturnType<typeof differences> }> = [];
  let differing = 0;
  let refusedPayees = 0;
  for (const r of baseline) {
    let comp: PayslipComputation;
    try {
      comp = computePayslip(pack, s.period, r.payee, employer!, r.ytd_before, optionsOf(r));
    } catch (e) {
      if (e instanceof ApiError) {
        refusedPayees++;
        continue;
      }
      throw e;
    }
    totals.gross += comp.gross;
    totals.net += comp.net;
    totals.total_deductions += comp.total_deductions;
    totals.employer_contributions += comp.employer_contributions;
    totals.payslip_count++;
    if (pack !== pinned && !sameAmounts(r, comp)) {
      differing++;
      if (diffs.length < DIFF_LIMIT) diffs.push({ payslip_id: s.status === 'draft' ? null : payslipId(s.id, r.n), payee_ref: r.payee_ref, differences: differences(r, comp) });
    }
  }
  return simulation(s, pack, totals, diffs, differing, refusedPayees);
}

const DIFF_LIMIT = 100;

function simulation(s: RunState, pack: RulePack, totals: RunTotalsData, diffs: Array<{ payslip_id: string | null; payee_ref: string; differences: unknown[] }>, differing: number, refused = 0) {
  return {
    object: 'run_simulation' as const,
    run_id: s.id,
    totals: totalsView(totals),
    wrote_records: false as const,
    rule_pack: pack.ref,
    pinned_rule_pack: s.rule_pack,
    livemode: s.livemode,
    mocked: false,
    payees_refused: refused,
    difference_count: differing,
    differences: diffs,
  };
}

// Approving a run (spec 3 Payroll run, 8): the organisation's maker-checker threshold and the
// person behind the approving credential go with the command; maker-checker compares people, not
// credentials (a second key made by the preparer is still the preparer).

export async function approveRun(p: Platform, c: Caller, runId: string): Promise<unknown> {
  await runState(p, c, runId);
  const settings = await employerSettings(p.system, c.org);
  return p.system.ask(Run, runId, 'approve', { threshold: settings.maker_checker_threshold, person: await personBehind(p, c) }, c);
}

/** Submitting a run: the caller becomes its preparer, and the person behind the caller's credential is recorded. */
export async function submitRun(p: Platform, c: Caller, runId: string): Promise<unknown> {
  await runState(p, c, runId);
  return p.system.ask(Run, runId, 'submit', { person: await personBehind(p, c) }, c);
}

// Executing an approved run (spec 1 rules 4 and 10, 2.9, 4.8): payslips become final, the ledger
// posting is caused (a correction's after the reversal of the run it corrects), the instruction set
// is built and the payout instruction signed.

export async function executeRun(p: Platform, c: Caller, runId: string): Promise<unknown> {
  const s = await runState(p, c, runId);
  if (s.status !== 'approved') throw conflict(`Run ${s.id} is ${s.status}; a run that has not been approved cannot be executed.`);
  const pack = pinnedPack(s);
  const records = await loadPayslips(p.system, s);
  const ledger_posting = buildPosting(s.id, s.period, s.livemode, records);
  let reversal: PostingRequest | undefined;
  let basis = records;
  if (s.corrects_run_id) {
    const target = await runState(p, c, s.corrects_run_id);
    const previous = await loadPayslips(p.system, target);
    const old = buildPosting(target.id, target.period, target.livemode, previous);
    if (old && target.ledger_posting_id) reversal = reversalOf(old, target.ledger_posting_id, `Reversal of payroll run ${target.id}, corrected by ${s.id}`);
    basis = correctionDeltas(records, previous);
  }
  const instruction_set = buildInstructionSet(s.id, s.period, pack, basis);
  const payout = await sealPayout(keyValue(p), s, basis);
  return p.system.ask(Run, runId, 'execute', { reversal, instruction_set, ledger_posting, payout }, c);
}

// Cancelling a run that has not started executing (spec 4.8; body and answer docs/gaps.md#payroll).

export function cancelRun(p: Platform, c: Caller, runId: string, reason: string | null): Promise<unknown> {
  return p.system.ask(Run, runId, 'cancel', { reason }, c);
}

// Resolving a finding of a run with a reason (spec 2.9, 4.8): an open p0 finding blocks approval.

export function resolveFinding(p: Platform, c: Caller, runId: string, findingId: string, reason: string): Promise<unknown> {
  return p.system.ask(Run, runId, 'resolve_finding', { finding_id: findingId, reason }, c);
}
