/**
 * Validation of an instruction set (spec 2.1 ValidationReport, 2.10, 3 "Remittance instruction
 * set"): every line is checked, and the report names each one (entry index = line position:
 * PAYE lines, then pension lines, then levies, then the totals line). Pure: the run's facts are
 * gathered first (service.ts), the authority and calendar data are versioned modules.
 *
 * Each error is also a discrepancy (blocks accept until overridden with a reason code); warnings
 * block nothing. Each line is resolved to the authority it is paid to and its due date.
 */
import { errorEntry, type MoneyValue, type ValidationEntry, type ValidationReport } from '../../../kernel/index.ts';
import { AUTHORITIES, authorityById, dueDateOf, levyAuthority, payeAuthorityFor, pensionAdministrator, type Authority, type Levy, type LevyCode } from '../authorities/index.ts';
import { type DiscrepancyCode, REASON_CODES, type WarningCode } from './reason-codes.ts';

export type Source = 'run' | 'external_api' | 'external_file';

/** The instruction lines as submitted (spec 2.10 InstructionSet), amounts as Money. */
export interface Lines {
  paye: Array<{ authority_id: string | null; jurisdiction: string; amount: MoneyValue; payee_count: number | null; reconciliation_reference: string }>;
  pension: Array<{ administrator_id: string; administrator_name: string | null; employee_amount: MoneyValue | null; employer_amount: MoneyValue | null; amount: MoneyValue; payee_count: number | null; reconciliation_reference: string }>;
  levies: Array<{ code: LevyCode; amount: MoneyValue; reconciliation_reference: string }>;
  totals: { total: MoneyValue };
}

/** What the run named by the set says, gathered before validation; null when the set names no run. */
export type RunFacts =
  | { found: true; run_id: string; status: string; period: string; pay_date: string; livemode: boolean; total_deductions: number; employer_contributions: number; currency: string }
  | { found: false; run_id: string };

export type Section = 'paye' | 'pension' | 'levy' | 'totals';

export interface Discrepancy {
  id: string;
  code: DiscrepancyCode;
  line: { index: number; section: Section; reconciliation_reference: string | null };
  detail: string;
  expected: MoneyValue | null;
  actual: MoneyValue | null;
  status: 'open' | 'overridden';
  override: { reason_code: string; note: string | null; overridden_by: string | null; overridden_at: number } | null;
}

/** Where each line is paid and when it is due. */
export interface Resolved {
  paye: Array<{ authority_id: string | null; authority_name: string | null; due_date: string | null }>;
  pension: Array<{ authority_id: string | null; administrator_name: string | null; due_date: string | null }>;
  levies: Array<{ authority_id: string; authority_name: string; due_date: string | null }>;
}

export interface LineChecked {
  index: number;
  section: Section;
  reconciliation_reference: string | null;
  outcome: 'passed' | 'warning' | 'error';
}

export interface Validation {
  report: ValidationReport & { lines_checked: LineChecked[]; authority_data_version: string };
  discrepancies: Array<Omit<Discrepancy, 'id' | 'status' | 'override'>>;
  resolved: Resolved;
}

const CURRENCY = 'NGN';
const money = (amount: number): MoneyValue => ({ amount, currency: CURRENCY });

export function lineCount(l: Lines): number {
  return l.paye.length + l.pension.length + l.levies.length + 1;
}

export function validateLines(lines: Lines, period: string, payDate: string, run: RunFacts | null): Validation {
  const c = new LineChecks(payDate);
  checkPayeLines(c, lines.paye);
  checkPensionLines(c, lines.pension);
  checkLevyLines(c, lines.levies);
  checkTotalsLine(c, lines.totals.total, period, run);
  // Spec 2.1: error_count counts entries (lines) that failed, warning_count lines that passed with a warning.
  const count = (o: LineChecked['outcome']) => c.checked.filter((l) => l.outcome === o).length;
  return {
    report: { entry_count: c.index, error_count: count('error'), warning_count: count('warning'), entries: c.entries, lines_checked: c.checked, authority_data_version: AUTHORITIES.version },
    discrepancies: c.discrepancies,
    resolved: c.resolved,
  };
}

/**
 * What a validation has found so far, one line at a time: a line's entries are gathered until
 * done() gives the line its outcome, and the lines' amounts are summed for the totals line.
 */
class LineChecks {
  readonly entries: ValidationEntry[] = [];
  readonly checked: LineChecked[] = [];
  readonly discrepancies: Validation['discrepancies'] = [];
  readonly resolved: Resolved = { paye: [], pension: [], levies: [] };
  /** The current line's position, from 1. */
  index = 0;
  sum = 0;
  /** False once a line is in another currency: the sum then proves nothing. */
  sumOk = true;
  private lineEntries: ValidationEntry[] = [];

  constructor(readonly payDate: string) {}

  err(code: DiscrepancyCode, section: Section, ref: string | null, detail: string, expected: MoneyValue | null = null, actual: MoneyValue | null = null): void {
    const index = this.index;
    this.lineEntries.push(errorEntry(undefined, code, detail, index));
    this.discrepancies.push({ code, line: { index, section, reconciliation_reference: ref }, detail, expected, actual });
  }

  warn(code: WarningCode, detail: string): void {
    this.lineEntries.push({ index: this.index, severity: 'warning', code, detail: `${detail} (${REASON_CODES.warning[code]})` });
  }

  /** Closes the current line: its outcome is its worst entry. */
  done(section: Section, ref: string | null): void {
    const outcome = this.lineEntries.some((e) => e.severity === 'error') ? 'error' : this.lineEntries.length ? 'warning' : 'passed';
    this.checked.push({ index: this.index, section, reconciliation_reference: ref, outcome });
    this.entries.push(...this.lineEntries);
    this.lineEntries = [];
  }

  amountChecks(section: Section, ref: string, m: MoneyValue, what: string): void {
    if (m.currency !== CURRENCY) this.err('currency_mismatch', section, ref, `${what} is in ${m.currency}; the set is in ${CURRENCY}.`, null, m);
    if (m.amount < 0) this.err('negative_amount', section, ref, `${what} is ${m.amount}, below zero.`, null, m);
    if (m.amount === 0) this.warn('nothing_to_remit', `${what} is zero.`);
  }

  unconfirmedName(a: Authority | undefined): void {
    if (a && !a.name_confirmed) this.warn('authority_name_unconfirmed', `${a.name} (${a.code}).`);
  }

  /** A levy's due date; null where nothing is owed. */
  due(levy: Levy, amount: number): string | null {
    return amount > 0 ? dueDateOf(levy, this.payDate).due_date : null;
  }

  add(m: MoneyValue): void {
    if (m.currency === CURRENCY) this.sum += m.amount;
    else this.sumOk = false;
  }
}

/** PAYE lines: one per State, each paid to that State's IRS (an authority_id naming another is a mismatch). */
function checkPayeLines(c: LineChecks, paye: Lines['paye']): void {
  const seenStates = new Set<string>();
  for (const p of paye) {
    c.index++;
    const ref = p.reconciliation_reference;
    const what = `PAYE line ${c.index} (${p.jurisdiction})`;
    c.amountChecks('paye', ref, p.amount, what);
    const byState = payeAuthorityFor(p.jurisdiction);
    const byId = p.authority_id === null ? undefined : authorityById(p.authority_id);
    let authority: Authority | undefined = byState;
    if (!byState) c.err('unknown_authority', 'paye', ref, `${what}: ${p.jurisdiction} is not a State of Nigeria or the FCT (ISO 3166-2:NG).`);
    else if (p.authority_id !== null && (!byId || byId.kind !== 'state_irs')) c.err('unknown_authority', 'paye', ref, `${what}: authority_id ${p.authority_id} names no State IRS.`);
    else if (byId && byId.id !== byState.id) {
      c.err('authority_jurisdiction_mismatch', 'paye', ref, `${what}: authority_id names ${byId.name}, not ${byState.name}.`);
      authority = undefined;
    }
    if (byState && seenStates.has(byState.code)) c.err('duplicate_line', 'paye', ref, `${what}: a second PAYE line for ${byState.code}.`);
    if (byState) seenStates.add(byState.code);
    c.unconfirmedName(authority);
    // PAYE's monthly return is due even on a nil line (the public vectors show its date on a zero PAYE); other levies are null where nothing is owed.
    c.resolved.paye.push({ authority_id: authority?.id ?? null, authority_name: authority?.name ?? null, due_date: dueDateOf('paye', c.payDate).due_date });
    c.add(p.amount);
    c.done('paye', ref);
  }
}

/** Pension lines: one per licensed PFA (by id, else by name), the employee and employer parts adding up. */
function checkPensionLines(c: LineChecks, pension: Lines['pension']): void {
  const seenPfas = new Set<string>();
  for (const p of pension) {
    c.index++;
    const ref = p.reconciliation_reference;
    const what = `Pension line ${c.index} (${p.administrator_id})`;
    c.amountChecks('pension', ref, p.amount, what);
    const pfa = pensionAdministrator(p.administrator_id) ?? (p.administrator_name ? pensionAdministrator(p.administrator_name) : undefined);
    if (!pfa) c.err('unknown_pension_administrator', 'pension', ref, `${what}: ${p.administrator_id} is not a licensed PFA in authority data ${AUTHORITIES.version}.`);
    if (pfa && seenPfas.has(pfa.id)) c.err('duplicate_line', 'pension', ref, `${what}: a second pension line for ${pfa.name}.`);
    if (pfa) seenPfas.add(pfa.id);
    if (p.employee_amount !== null && p.employer_amount !== null) {
      const split = p.employee_amount.amount + p.employer_amount.amount;
      if (split !== p.amount.amount) c.err('pension_split_mismatch', 'pension', ref, `${what}: employee ${p.employee_amount.amount} + employer ${p.employer_amount.amount} = ${split}, not ${p.amount.amount}.`, money(split), p.amount);
    }
    c.unconfirmedName(pfa);
    c.resolved.pension.push({ authority_id: pfa?.id ?? null, administrator_name: pfa?.name ?? p.administrator_name, due_date: c.due('pension', p.amount.amount) });
    c.add(p.amount);
    c.done('pension', ref);
  }
}

/** Levy lines: one per levy, each paid to its authority; a due date not yet confirmed is a warning. */
function checkLevyLines(c: LineChecks, levies: Lines['levies']): void {
  const seenLevies = new Set<string>();
  for (const l of levies) {
    c.index++;
    const ref = l.reconciliation_reference;
    const what = `Levy line ${c.index} (${l.code})`;
    c.amountChecks('levy', ref, l.amount, what);
    if (seenLevies.has(l.code)) c.err('duplicate_line', 'levy', ref, `${what}: a second ${l.code} line.`);
    seenLevies.add(l.code);
    const a = levyAuthority(l.code);
    const d = c.due(l.code, l.amount.amount);
    if (l.amount.amount > 0 && d === null) c.warn('due_date_unconfirmed', `${what}.`);
    c.resolved.levies.push({ authority_id: a.id, authority_name: a.name, due_date: d });
    c.add(l.amount);
    c.done('levy', ref);
  }
}

/** The totals line: the set adds up, and (for a run) reconciles to the run's totals to the minor unit. */
function checkTotalsLine(c: LineChecks, total: MoneyValue, period: string, run: RunFacts | null): void {
  c.index++;
  const { sum, sumOk } = c;
  if (total.currency !== CURRENCY) c.err('currency_mismatch', 'totals', null, `totals.total is in ${total.currency}; the set is in ${CURRENCY}.`, null, total);
  if (sumOk && total.amount !== sum) c.err('totals_mismatch', 'totals', null, `totals.total is ${total.amount}; the lines add up to ${sum}.`, money(sum), total);
  if (run && !run.found) c.err('run_not_found', 'totals', null, `run_id ${run.run_id} names no payroll run of this organisation.`);
  if (run && run.found) {
    if (!['executing', 'completed', 'partially_settled', 'failed'].includes(run.status)) c.err('run_not_executed', 'totals', null, `Run ${run.run_id} is ${run.status}; its figures are final only once it has executed.`);
    if (run.period !== period) c.err('period_mismatch', 'totals', null, `The set is for ${period}; run ${run.run_id} is for ${run.period}.`);
    const expected = run.total_deductions + run.employer_contributions;
    if (sumOk && sum !== expected) c.err('run_totals_mismatch', 'totals', null, `The lines add up to ${sum}; run ${run.run_id}\u2019s deductions plus employer contributions are ${expected}.`, money(expected), money(sum));
  }
  c.done('totals', null);
}
