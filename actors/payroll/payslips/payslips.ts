/**
 * The payslip's operations (spec 2.9, 4.8): a payslip is rebuilt from its recorded inputs and the
 * run's pinned pack, so its lines and traces, its replay, its explanation and its PDF are all
 * computed on read; issuing one is recorded on its run.
 */
import { ApiError, listEnvelope, notFound, parseListQuery, type Caller, type Platform } from '../../../kernel/index.ts';
import { iso } from '../../../runtime/index.ts';
import { computePayslip, explain, fullYearToDate, renderPayslipPdf, type PayslipComputation, type YearToDate } from '../engine/index.ts';
import { parsePayslipId, payslipId } from '../payroll-ids.ts';
import { ngn } from '../naira.ts';
import { pinnedPack, runState } from '../runs/runs.ts';
import { EXECUTED, Run, type RunState } from '../runs/run.ts';
import { differences, optionsOf, type PayslipRecord } from './record.ts';
import { loadPayslip, loadRange } from './storage.ts';

export async function payslipParts(p: Platform, c: Caller, id: string): Promise<{ s: RunState; r: PayslipRecord; comp: PayslipComputation }> {
  const at = parsePayslipId(id);
  if (!at) throw notFound('payslip', id);
  let s: RunState;
  try {
    s = await p.system.state(Run, at.runId, c.org);
  } catch (e) {
    if (e instanceof ApiError && e.code === 'not_found') throw notFound('payslip', id);
    throw e;
  }
  const r = await loadPayslip(p.system, s, at.n);
  if (!r) throw notFound('payslip', id);
  return { s, r, comp: computePayslip(pinnedPack(s), s.period, r.payee, s.employer!, r.ytd_before, optionsOf(r)) };
}

export type PayslipStatus = 'calculated' | 'final' | 'issued' | 'void';

function payslipStatus(s: RunState, n: number): PayslipStatus {
  if (s.status === 'cancelled') return 'void';
  if (s.issued[n] !== undefined) return 'issued';
  return EXECUTED.has(s.status) ? 'final' : 'calculated';
}

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
    regular_pay: r.regular,
    income_period: `${s.period.slice(0, 4)}-${String(r.income_month).padStart(2, '0')}`,
    lines: comp.lines.map((l) => ({ code: l.code, label: l.label, category: l.category, amount: ngn(l.amount), trace: l.trace })),
    gross: ngn(r.gross),
    net: ngn(r.net),
    total_deductions: ngn(r.total_deductions),
    employer_contributions: ngn(r.employer_contributions),
    year_to_date: ytdView(r.ytd_after),
    rule_pack: s.rule_pack,
    issued_at: s.issued[r.n] === undefined ? null : iso(s.issued[r.n]),
  };
}

function ytdView(y: YearToDate) {
  const f = fullYearToDate(y);
  return {
    tax_year: f.tax_year, last_period: f.last_period, payslips: f.payslips,
    gross: ngn(f.gross), pension_employee: ngn(f.pension_employee), nhf: ngn(f.nhf), nhia_employee: ngn(f.nhia_employee), paye: ngn(f.paye), net: ngn(f.net),
    taxable_regular: ngn(f.taxable_regular), taxable_one_off: ngn(f.taxable_one_off), compensation: ngn(f.compensation), paye_one_off: ngn(f.paye_one_off),
    regular_through: f.regular_through,
  };
}

export async function getPayslip(p: Platform, c: Caller, id: string) {
  const { s, r, comp } = await payslipParts(p, c, id);
  return payslipView(s, r, comp);
}

export async function replayPayslip(p: Platform, c: Caller, id: string) {
  const { s, r, comp } = await payslipParts(p, c, id);
  const d = differences(r, comp);
  return { object: 'payslip_replay' as const, livemode: s.livemode, mocked: false, payslip_id: id, identical: d.length === 0, differences: d, rule_pack: s.rule_pack, replayed_from: 'recorded inputs and the pinned rule pack' };
}

export async function explainPayslip(p: Platform, c: Caller, id: string) {
  const { s, comp } = await payslipParts(p, c, id);
  return { object: 'payslip_explanation' as const, livemode: s.livemode, mocked: false, payslip_id: id, sentences: explain(comp) };
}

export async function payslipDocument(p: Platform, c: Caller, id: string): Promise<Uint8Array> {
  const { s, r, comp } = await payslipParts(p, c, id);
  const issued = s.issued[r.n] ?? s.executed_at ?? s.calculated_at ?? s.created_at;
  return renderPayslipPdf(comp, { payslip_id: id, payee_reference: r.payee_ref, run_id: s.id, issued_at: iso(issued) });
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
  return listEnvelope(page.map((r) => payslipView(s, r, computePayslip(pack, s.period, r.payee, s.employer!, r.ytd_before, optionsOf(r)))), start + limit < s.totals.payslip_count);
}

/** Issuing a final payslip to its payee (spec 4.8 POST /v1/payroll/payslips/{payslip_id}/issue): recorded on its run. */
export async function issuePayslip(p: Platform, c: Caller, id: string) {
  const at = parsePayslipId(id);
  if (!at) throw notFound('payslip', id);
  await p.system.ask(Run, at.runId, 'issue_payslip', { n: at.n }, c);
  return getPayslip(p, c, id);
}
