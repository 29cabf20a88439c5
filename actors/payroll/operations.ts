/**
 * What the payroll routes do beyond one actor command: pinning a pack, calculating, simulating,
 * executing (posting, instruction set, signed payout instruction), and payslip reads that rebuild
 * lines and traces from the recorded inputs and the pinned pack.
 */
import { ApiError, conflict, createDedupe, createdId, hasPrefix, listEnvelope, parseListQuery, type Platform } from '../../kernel/index.ts';
import { iso } from '../../runtime/index.ts';
import {
  computePayslip, explain, findPack, packForPeriod, renderPayslipPdf, resolvePack,
  type PayslipComputation, type RulePack,
} from './engine/index.ts';
import { computeAll, employerInputs, employerSettings, gatherPayees, paidInPeriod, recoveryFindings, runFindings, yearToDate } from './calculate.ts';
import { parsePayslipId, payslipId, RUN_PREFIX } from './ids.ts';
import { buildInstructionSet, buildPosting, correctionDeltas, reversalOf } from './instruction_set.ts';
import type { PostingRequest } from '../ledger/index.ts';
import { differences, sameAmounts, totalsOf, type PayslipRecord, type RunTotalsData } from './payslip_record.ts';
import { Run, totalsView, type RunState, type RunType, EXECUTED } from './run.ts';
import { sealPayout } from './signing.ts';
import { correctedPayslips, loadPayslip, loadPayslips, loadRange, writeBatches } from './payslips.ts';
import { glExportCsv } from './gl_export.ts';

export interface Caller {
  org: string;
  livemode: boolean;
  principal?: string;
  requestId?: string;
  /** The request's Idempotency-Key: a re-run lands on the same run (runtime/route.ts createdId). */
  idempotencyKey?: string;
}

const opts = (c: Caller) => ({ org: c.org, principal: c.principal, requestId: c.requestId });

export async function runState(p: Platform, c: Caller, runId: string): Promise<RunState> {
  if (!hasPrefix(runId, RUN_PREFIX)) throw new ApiError('not_found', `No payroll run with id ${runId}.`);
  return p.system.state<RunState>(Run, runId, c.org);
}

export function pinnedPack(s: RunState): RulePack {
  const pack = resolvePack(s.rule_pack);
  if (!pack) throw new ApiError('internal_error', `The pinned rule pack ${s.rule_pack.version} (${s.rule_pack.content_hash}) is not available on this node.`);
  return pack;
}

export interface CreateRunBody {
  period: string;
  run_type: RunType;
  pay_date?: string;
  description?: string | null;
  rule_pack_version?: string;
  corrects_run_id?: string;
}

const refused = (code: string, field: string, detail: string) =>
  new ApiError('validation_failed', detail, { validation: { entry_count: 1, error_count: 1, warning_count: 0, entries: [{ index: 1, severity: 'error', code, detail, field }] } });

const lastDay = (period: string) => {
  const [y, m] = period.split('-').map(Number);
  return new Date(Date.UTC(y, m, 0)).toISOString().slice(0, 10);
};

export async function createRun(p: Platform, c: Caller, body: CreateRunBody): Promise<unknown> {
  let pack: RulePack | undefined;
  if (body.rule_pack_version !== undefined) {
    pack = findPack(body.rule_pack_version);
    if (!pack) throw refused('unknown_rule_pack', '/rule_pack_version', `No rule pack with version ${body.rule_pack_version}.`);
    if (pack.status !== 'active') throw refused('draft_rule_pack', '/rule_pack_version', `Rule pack ${pack.ref.version} is a draft; a run pins an active pack, drafts are for simulation.`);
  } else {
    pack = packForPeriod(body.period);
    if (!pack) throw refused('no_rule_pack_for_period', '/period', `No active rule pack covers ${body.period}.`);
  }
  const first = `${body.period}-01`;
  if (first < pack.effective_from || (pack.effective_to !== null && first > pack.effective_to)) {
    throw refused('period_outside_rule_pack', '/period', `Rule pack ${pack.ref.version} covers ${pack.effective_from} to ${pack.effective_to ?? 'open'}, not ${body.period}.`);
  }
  let corrects: string | null = null;
  if (body.run_type === 'correction') {
    if (!body.corrects_run_id) throw refused('required', '/corrects_run_id', 'A correction run names the executed run it corrects (corrects_run_id).');
    let target: RunState;
    try {
      target = await runState(p, c, body.corrects_run_id);
    } catch (e) {
      if (e instanceof ApiError && e.code === 'not_found') throw refused('unknown_run', '/corrects_run_id', `No payroll run with id ${body.corrects_run_id}.`);
      throw e;
    }
    if (!EXECUTED.has(target.status)) throw refused('run_not_executed', '/corrects_run_id', `Run ${target.id} is ${target.status}; only an executed run is corrected.`);
    if (target.period !== body.period) throw refused('period_mismatch', '/corrects_run_id', `Run ${target.id} is for ${target.period}, not ${body.period}.`);
    corrects = target.id;
  } else if (body.corrects_run_id !== undefined) {
    throw refused('not_a_correction', '/corrects_run_id', 'Only a correction run names a run it corrects.');
  }
  return p.system.ask(Run, createdId(c, RUN_PREFIX), 'create', {
    run_type: body.run_type, corrects_run_id: corrects, period: body.period, pay_date: body.pay_date ?? lastDay(body.period), description: body.description ?? null, rule_pack: pack.ref, livemode: c.livemode,
  }, { ...opts(c), dedupeId: createDedupe(c) });
}

/** Who a run pays: its payee_refs, else a correction's corrected payees, else everyone employed. */
function payeeScope(s: RunState, corrected: readonly PayslipRecord[]): string[] | null {
  return s.payee_refs ?? (s.corrects_run_id ? corrected.map((r) => r.payee_ref) : null);
}

export async function calculateRun(p: Platform, c: Caller, runId: string): Promise<unknown> {
  const s = await runState(p, c, runId);
  if (s.status !== 'draft' && s.status !== 'simulated') throw conflict(`Run ${s.id} is ${s.status}; only a draft or simulated run can be calculated.`);
  const pack = pinnedPack(s);
  const corrected = await correctedPayslips(p.system, s);
  const payees = await gatherPayees(p.system, c.org, s.period, payeeScope(s, corrected));
  const employer = employerInputs(await employerSettings(p.system, c.org), payees.length);
  const ytd = await yearToDate(p.system, c.org, s.period);
  const paid = await paidInPeriod(p.system, c.org, s.period, [s.id, ...(s.corrects_run_id ? [s.corrects_run_id] : [])]);
  const { records, findings } = computeAll(pack, s.period, employer, payees, ytd, (rs) => [...runFindings(s.run_type, rs, paid), ...recoveryFindings(rs, corrected)]);
  const batches = await writeBatches(p.system, runId, records, opts(c));
  return p.system.ask(Run, runId, 'calculate', { employer, totals: totalsOf(records), batches, findings }, opts(c));
}

export async function simulateRun(p: Platform, c: Caller, runId: string, draftVersion: string | undefined): Promise<unknown> {
  const s = await runState(p, c, runId);
  if (s.status === 'cancelled') throw conflict(`Run ${s.id} is cancelled; it cannot be simulated.`);
  const pinned = pinnedPack(s);
  let pack = pinned;
  if (draftVersion !== undefined) {
    const found = findPack(draftVersion);
    if (!found) throw refused('unknown_rule_pack', '/draft_rule_pack_version', `No rule pack with version ${draftVersion}.`);
    pack = found;
  }
  // Baseline: the recorded payslips when the run is calculated, else a computation now (pinned pack).
  let baseline: PayslipRecord[];
  let employer = s.employer;
  if (s.status === 'draft') {
    const payees = await gatherPayees(p.system, c.org, s.period, payeeScope(s, await correctedPayslips(p.system, s)));
    employer = employerInputs(await employerSettings(p.system, c.org), payees.length);
    const ytd = await yearToDate(p.system, c.org, s.period);
    const pinnedRun = computeAll(pinned, s.period, employer, payees, ytd);
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
      comp = computePayslip(pack, s.period, r.payee, employer!, r.ytd_before);
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
    payees_refused: refused,
    difference_count: differing,
    differences: diffs,
  };
}

export async function approveRun(p: Platform, c: Caller, runId: string): Promise<unknown> {
  await runState(p, c, runId);
  const settings = await employerSettings(p.system, c.org);
  return p.system.ask(Run, runId, 'approve', { threshold: settings.maker_checker_threshold }, opts(c));
}

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
  const payout = await sealPayout(p.stores.kv, s, basis);
  return p.system.ask(Run, runId, 'execute', { reversal, instruction_set, ledger_posting, payout }, opts(c));
}

// ---------------------------------------------------------------------------------------------
// Payslips

export async function payslipParts(p: Platform, c: Caller, id: string): Promise<{ s: RunState; r: PayslipRecord; comp: PayslipComputation }> {
  const at = parsePayslipId(id);
  if (!at) throw new ApiError('not_found', `No payslip with id ${id}.`);
  let s: RunState;
  try {
    s = await p.system.state<RunState>(Run, at.runId, c.org);
  } catch (e) {
    if (e instanceof ApiError && e.code === 'not_found') throw new ApiError('not_found', `No payslip with id ${id}.`);
    throw e;
  }
  const r = await loadPayslip(p.system, s, at.n);
  if (!r) throw new ApiError('not_found', `No payslip with id ${id}.`);
  return { s, r, comp: computePayslip(pinnedPack(s), s.period, r.payee, s.employer!, r.ytd_before) };
}

export type PayslipStatus = 'calculated' | 'final' | 'issued' | 'void';

function payslipStatus(s: RunState, n: number): PayslipStatus {
  if (s.status === 'cancelled') return 'void';
  if (s.issued[n] !== undefined) return 'issued';
  return EXECUTED.has(s.status) ? 'final' : 'calculated';
}

const money = (amount: number) => ({ amount, currency: 'NGN' });

export function payslipView(s: RunState, r: PayslipRecord, comp: PayslipComputation) {
  return {
    id: payslipId(s.id, r.n),
    object: 'payslip' as const,
    livemode: s.livemode,
    mocked: false,
    run_id: s.id,
    period: s.period,
    status: payslipStatus(s, r.n),
    payee_ref: r.payee_ref,
    pay_profile_id: r.pay_profile_id,
    roster_entry_id: r.roster_entry_id,
    lines: comp.lines.map((l) => ({ code: l.code, label: l.label, category: l.category, amount: money(l.amount), trace: l.trace })),
    gross: money(r.gross),
    net: money(r.net),
    total_deductions: money(r.total_deductions),
    employer_contributions: money(r.employer_contributions),
    year_to_date: { ...r.ytd_after, gross: money(r.ytd_after.gross), pension_employee: money(r.ytd_after.pension_employee), nhf: money(r.ytd_after.nhf), nhia_employee: money(r.ytd_after.nhia_employee), paye: money(r.ytd_after.paye), net: money(r.ytd_after.net) },
    rule_pack: s.rule_pack,
    issued_at: s.issued[r.n] === undefined ? null : iso(s.issued[r.n]),
  };
}

export async function getPayslip(p: Platform, c: Caller, id: string) {
  const { s, r, comp } = await payslipParts(p, c, id);
  return payslipView(s, r, comp);
}

export async function replayPayslip(p: Platform, c: Caller, id: string) {
  const { s, r, comp } = await payslipParts(p, c, id);
  const d = differences(r, comp);
  return { object: 'payslip_replay' as const, payslip_id: id, identical: d.length === 0, differences: d, rule_pack: s.rule_pack, replayed_from: 'recorded inputs and the pinned rule pack' };
}

export async function explainPayslip(p: Platform, c: Caller, id: string) {
  const { comp } = await payslipParts(p, c, id);
  return { object: 'payslip_explanation' as const, payslip_id: id, sentences: explain(comp) };
}

export async function payslipDocument(p: Platform, c: Caller, id: string): Promise<Uint8Array> {
  const { s, r, comp } = await payslipParts(p, c, id);
  const issued = s.issued[r.n] ?? s.executed_at ?? s.calculated_at ?? s.created_at;
  return renderPayslipPdf(comp, { payslip_id: id, payee_reference: r.payee_ref, run_id: s.id, issued_at: iso(issued) });
}

export async function issuePayslip(p: Platform, c: Caller, id: string) {
  const at = parsePayslipId(id);
  if (!at) throw new ApiError('not_found', `No payslip with id ${id}.`);
  await p.system.ask(Run, at.runId, 'issue_payslip', { n: at.n }, opts(c));
  return getPayslip(p, c, id);
}

/** A page of the run's payslips in payee order (full payslips, lines and traces). */
export async function payslipPage(p: Platform, c: Caller, runId: string, query: { limit?: number; starting_after?: string } | undefined) {
  const s = await runState(p, c, runId);
  const { limit, after } = parseListQuery(query);
  let start = 0;
  if (after !== undefined) {
    const at = parsePayslipId(after);
    if (!at || at.runId !== s.id || at.n >= s.totals.payslip_count) return listEnvelope([], false);
    start = at.n + 1;
  }
  const pack = pinnedPack(s);
  const page = await loadRange(p.system, s, start, limit);
  return listEnvelope(page.map((r) => payslipView(s, r, computePayslip(pack, s.period, r.payee, s.employer!, r.ytd_before))), start + limit < s.totals.payslip_count);
}

/** The GL export CSV of an executed run; a correction's starts with its reversal of the corrected run. */
export async function glExportOf(p: Platform, s: RunState, exportId: string): Promise<string> {
  let reversal: PostingRequest | undefined;
  if (s.corrects_run_id && s.reversal_posting_id) {
    const target = await p.system.state<RunState>(Run, s.corrects_run_id, s.org);
    const old = buildPosting(target.id, target.period, target.livemode, await loadPayslips(p.system, target));
    if (old && target.ledger_posting_id) reversal = reversalOf(old, target.ledger_posting_id, '');
  }
  return glExportCsv(s, await loadPayslips(p.system, s), exportId, reversal);
}
