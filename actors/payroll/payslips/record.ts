/**
 * A payslip as the run keeps it: the inputs it was computed from and the amount of every line,
 * and the sums over such records (run totals, line totals, a correction's deltas). Traces are not
 * stored: they are a pure function of these inputs and the pinned pack (an active pack never
 * changes, spec 9), so a read recomputes them and `replay` checks the amounts still agree. Keeping
 * 100,000 payslips this way costs a few hundred bytes each, not kilobytes.
 */
import type { BankAccount } from '../pay-profile.ts';
import { LINE_ORDER, type LineCode, type PayeeInputs, type PayItem, type PayslipComputation, type PayslipOptions, type YearToDate } from '../engine/index.ts';

export interface PayslipRecord {
  /** Position in the run (the payslip id carries it). */
  n: number;
  roster_entry_id: string;
  pay_profile_id: string;
  payee_ref: string;
  /** The payee's bank account when the payslip was calculated; absent when none was on file (docs/gaps.md#payouts). */
  bank_account?: BankAccount;
  payee: PayeeInputs;
  /** One-off items paid on the payslip (reference irregular pay); [] for a regular payslip. */
  items: PayItem[];
  /** Whether it paid the month's regular pay. */
  regular: boolean;
  /** Month of the tax year whose income it is (NTA s.26(2)). */
  income_month: number;
  ytd_before: YearToDate;
  ytd_after: YearToDate;
  /** Amount per line code in LINE_ORDER; null where the line does not apply. */
  amounts: Array<number | null>;
  gross: number;
  net: number;
  total_deductions: number;
  employer_contributions: number;
}

export interface PayeeRef {
  roster_entry_id: string;
  pay_profile_id: string;
  payee_ref: string;
  bank_account?: BankAccount;
}

const POS = new Map<LineCode, number>(LINE_ORDER.map((c, i) => [c, i]));

export function recordOf(n: number, who: PayeeRef, c: PayslipComputation): PayslipRecord {
  const amounts: Array<number | null> = new Array(LINE_ORDER.length).fill(null);
  for (const l of c.lines) amounts[POS.get(l.code)!] = l.amount;
  return {
    n,
    roster_entry_id: who.roster_entry_id,
    pay_profile_id: who.pay_profile_id,
    payee_ref: who.payee_ref,
    ...(who.bank_account ? { bank_account: { bank_code: who.bank_account.bank_code, account_number: who.bank_account.account_number, account_name: who.bank_account.account_name ?? null } } : {}),
    payee: c.inputs.payee,
    items: c.inputs.items,
    regular: c.inputs.regular,
    income_month: c.inputs.income_month,
    ytd_before: c.ytd_before,
    ytd_after: c.ytd_after,
    amounts,
    gross: c.gross,
    net: c.net,
    total_deductions: c.total_deductions,
    employer_contributions: c.employer_contributions,
  };
}

/** What the engine needs beside the payee's inputs to recompute the payslip (replay, reads). */
export const optionsOf = (r: PayslipRecord): PayslipOptions => ({ items: r.items, regular: r.regular, income_month: r.income_month });

/** The amount of one line, 0 when it does not apply. */
export const amountOf = (r: PayslipRecord, code: LineCode): number => r.amounts[POS.get(code)!] ?? 0;

/** Whether a recomputation gives every recorded line amount and total (no allocation). */
export function sameAmounts(r: PayslipRecord, c: PayslipComputation): boolean {
  if (r.gross !== c.gross || r.net !== c.net || r.total_deductions !== c.total_deductions || r.employer_contributions !== c.employer_contributions) return false;
  let present = 0;
  for (const a of r.amounts) if (a !== null) present++;
  if (present !== c.lines.length) return false;
  for (const l of c.lines) if (r.amounts[POS.get(l.code)!] !== l.amount) return false;
  return true;
}

/** Where a recomputation disagrees with what was recorded (replay). */
export function differences(r: PayslipRecord, c: PayslipComputation): Array<{ code: string; recorded: number; recomputed: number }> {
  const again = recordOf(r.n, r, c);
  const width = Math.max(r.amounts.length, again.amounts.length);
  const out: Array<{ code: string; recorded: number; recomputed: number }> = [];
  LINE_ORDER.forEach((code, i) => {
    if (i < width && (r.amounts[i] ?? null) !== (again.amounts[i] ?? null)) out.push({ code, recorded: r.amounts[i] ?? 0, recomputed: again.amounts[i] ?? 0 });
  });
  for (const k of ['gross', 'net', 'total_deductions', 'employer_contributions'] as const) {
    if (r[k] !== again[k]) out.push({ code: k, recorded: r[k], recomputed: again[k] });
  }
  return out;
}

export interface RunTotalsData {
  gross: number;
  net: number;
  total_deductions: number;
  employer_contributions: number;
  payslip_count: number;
}

export const ZERO_TOTALS: RunTotalsData = { gross: 0, net: 0, total_deductions: 0, employer_contributions: 0, payslip_count: 0 };

/** Spec 2.9 RunTotals: each figure is the sum of payslip lines. */
export function totalsOf(records: Iterable<PayslipRecord>): RunTotalsData {
  const t = { ...ZERO_TOTALS };
  for (const r of records) {
    t.gross += r.gross;
    t.net += r.net;
    t.total_deductions += r.total_deductions;
    t.employer_contributions += r.employer_contributions;
    t.payslip_count++;
  }
  return t;
}

/** Sum of every line code over the payslips. */
export function codeTotals(records: readonly PayslipRecord[]): Record<LineCode, number> {
  const sums = new Array<number>(LINE_ORDER.length).fill(0);
  for (const r of records) for (let i = 0; i < sums.length; i++) sums[i] += r.amounts[i] ?? 0;
  return Object.fromEntries(LINE_ORDER.map((c, i) => [c, sums[i]])) as Record<LineCode, number>;
}

/**
 * What a correction changes, payee by payee: its payslips less the corrected run's (a payee only
 * in the corrected run counts negative). Its instruction set and payout are built from these, so
 * nothing is remitted or paid twice; its ledger posting is its full figures after a reversal.
 */
export function correctionDeltas(records: readonly PayslipRecord[], previous: readonly PayslipRecord[]): PayslipRecord[] {
  const old = new Map(previous.map((p) => [p.pay_profile_id, p]));
  const out: PayslipRecord[] = [];
  const sub = (a: PayslipRecord, b: PayslipRecord | undefined, sign = 1): PayslipRecord => ({
    ...a,
    amounts: a.amounts.map((x, i) => (x === null && (b?.amounts[i] ?? null) === null ? null : sign * ((x ?? 0) - (b?.amounts[i] ?? 0)))),
    gross: sign * (a.gross - (b?.gross ?? 0)),
    net: sign * (a.net - (b?.net ?? 0)),
    total_deductions: sign * (a.total_deductions - (b?.total_deductions ?? 0)),
    employer_contributions: sign * (a.employer_contributions - (b?.employer_contributions ?? 0)),
  });
  for (const r of records) {
    out.push(sub(r, old.get(r.pay_profile_id)));
    old.delete(r.pay_profile_id);
  }
  for (const gone of old.values()) out.push(sub(gone, undefined, -1));
  return out;
}
