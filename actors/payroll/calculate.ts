/**
 * Calculation and simulation (spec 2.9, 4.8): gathers who is on the roster for the period, their
 * recorded inputs and year-to-date figures, and runs the engine. Calculation hands the payslips to
 * batches and the run records them in one event; simulation writes nothing at all.
 */
import { type ActorSystem, listName } from '../../runtime/index.ts';
import { isApiError, type ValidationEntry } from '../../kernel/index.ts';
import { computePayslip, type EmployerInputs, type PayeeInputs, type PayslipComputation, type RulePack, type YearToDate } from './engine/index.ts';
import { DEFAULT_EMPLOYER, Employer, employerIdFor, type EmployerSettings } from './employer.ts';
import { PayProfile, type PayProfileState } from './pay_profile.ts';
import { amountOf, recordOf, type PayeeRef, type PayslipRecord } from './payslip_record.ts';
import { RosterEntry, employedIn, monthsEmployed, type RosterEntryState } from './roster_entry.ts';
import { EXECUTED, Run, type NewFinding, type RunState } from './run.ts';
import { loadPayslips } from './payslips.ts';

const PAGE = 1_000;

export interface GatheredPayee {
  who: PayeeRef;
  payee: PayeeInputs;
  has_bank_identifier: boolean;
}

export async function employerSettings(system: ActorSystem, org: string): Promise<EmployerSettings> {
  try {
    return await system.state<EmployerSettings>(Employer, employerIdFor(org), org);
  } catch (e) {
    if (isApiError(e) && e.code === 'not_found') return DEFAULT_EMPLOYER;
    throw e;
  }
}

async function* pages(system: ActorSystem, list: string): AsyncGenerator<string[]> {
  let after: string | undefined;
  for (;;) {
    const page = await system.stores.indexes.page(list, { after, limit: PAGE, order: 'asc' });
    if (page.ids.length) yield page.ids;
    if (!page.hasMore || page.ids.length === 0) return;
    after = page.ids[page.ids.length - 1];
  }
}

/** Every roster entry employed in the period (of `only`, when given), with its pay profile's inputs (payee order). */
export async function gatherPayees(system: ActorSystem, org: string, period: string, only: readonly string[] | null = null): Promise<GatheredPayee[]> {
  const chosen = only === null ? null : new Set(only);
  const taxYear = Number(period.slice(0, 4));
  const out: GatheredPayee[] = [];
  for await (const ids of pages(system, listName(org, RosterEntry.kind, 'all'))) {
    const entries = await Promise.all(ids.map((id) => system.state<RosterEntryState>(RosterEntry, id, org)));
    const employed = entries.filter((e) => employedIn(e, period) && (chosen === null || chosen.has(e.payee_ref)));
    const profiles = await Promise.all(employed.map((e) => system.state<PayProfileState>(PayProfile, e.pay_profile_id, org)));
    employed.forEach((e, i) => {
      const p = profiles[i];
      out.push({
        who: { roster_entry_id: e.id, pay_profile_id: p.id, payee_ref: e.payee_ref },
        payee: { ...p.inputs, months_employed: monthsEmployed(e, taxYear) },
        has_bank_identifier: p.bank_identifier !== null,
      });
    });
  }
  return out;
}

/** Each payee's year to date from the executed runs of earlier periods of the tax year (corrections replace what they correct). */
export async function yearToDate(system: ActorSystem, org: string, period: string): Promise<Map<string, YearToDate>> {
  const year = period.slice(0, 4);
  const month = Number(period.slice(5, 7));
  const ytd = new Map<string, YearToDate>();
  for (let m = 1; m < month; m++) {
    const runs: RunState[] = [];
    for await (const ids of pages(system, listName(org, Run.kind, `period:${year}-${String(m).padStart(2, '0')}`))) {
      for (const id of ids) {
        const r = await system.state<RunState>(Run, id, org);
        if (EXECUTED.has(r.status)) runs.push(r);
      }
    }
    // A corrected run's payslips are superseded by its correction's (spec 1 rule 4).
    const corrected = new Set(runs.map((r) => r.corrects_run_id).filter((x): x is string => x !== null));
    const counted = runs.filter((r) => !corrected.has(r.id)).sort((a, b) => (a.executed_at ?? 0) - (b.executed_at ?? 0));
    for (const r of counted) for (const p of await loadPayslips(system, r)) ytd.set(p.pay_profile_id, p.ytd_after);
  }
  return ytd;
}

export function employerInputs(settings: EmployerSettings, payeeCount: number): EmployerInputs {
  return { headcount: settings.headcount ?? payeeCount, turnover_50m_or_more: settings.turnover_50m_or_more };
}

/** Pay profiles already paid by executed runs of this period (a second payment is a finding). */
export async function paidInPeriod(system: ActorSystem, org: string, period: string, except: readonly string[]): Promise<Map<string, string>> {
  const paid = new Map<string, string>();
  for await (const ids of pages(system, listName(org, Run.kind, `period:${period}`))) {
    for (const id of ids) {
      if (except.includes(id)) continue;
      const r = await system.state<RunState>(Run, id, org);
      if (EXECUTED.has(r.status)) for (const p of await loadPayslips(system, r)) paid.set(p.pay_profile_id, r.id);
    }
  }
  return paid;
}

/** Run types whose earnings the pack has no lines for: calculating them would pay a month again. */
export const NOT_COMPUTED: ReadonlySet<string> = new Set(['bonus', 'thirteenth_month']);

/** Findings about the run as a whole and about payees paid twice in one period. */
export function runFindings(runType: string, records: readonly PayslipRecord[], paid: Map<string, string>): NewFinding[] {
  const out: NewFinding[] = [];
  if (NOT_COMPUTED.has(runType)) {
    out.push({ severity: 'p0', code: 'run_type_not_computed', detail: `The rule pack has no earnings lines for a ${runType} run; these payslips repeat the monthly pay. Approve only if that is intended.`, payee_ref: null, n: null });
  }
  for (const r of records) {
    const other = paid.get(r.pay_profile_id);
    if (other) out.push({ severity: 'p1', code: 'already_paid_in_period', detail: `${r.payee_ref} was already paid for this period by run ${other}; PAYE would be deducted for the month twice.`, payee_ref: r.payee_ref, n: r.n });
  }
  return out;
}

/** A correction that lowers a payee's net pay cannot pay the difference back out: it is recovered. */
export function recoveryFindings(records: readonly PayslipRecord[], corrected: readonly PayslipRecord[]): NewFinding[] {
  if (corrected.length === 0) return [];
  const old = new Map(corrected.map((r) => [r.pay_profile_id, r]));
  const out: NewFinding[] = [];
  for (const r of records) {
    const before = old.get(r.pay_profile_id);
    if (before && r.net < before.net) out.push({ severity: 'p1', code: 'net_pay_recovery', detail: `${r.payee_ref} was paid ${before.net - r.net} kobo too much by the corrected run; it is not paid out and must be recovered.`, payee_ref: r.payee_ref, n: r.n });
  }
  return out;
}

export interface Computed {
  records: PayslipRecord[];
  findings: NewFinding[];
}

/** Runs the engine over every payee; a payee the engine refuses becomes a p0 finding, not a payslip. */
export function computeAll(pack: RulePack, period: string, employer: EmployerInputs, payees: readonly GatheredPayee[], ytd: Map<string, YearToDate>, extra?: (records: readonly PayslipRecord[]) => NewFinding[]): Computed {
  const records: PayslipRecord[] = [];
  const findings: NewFinding[] = [];
  for (const g of payees) {
    let c: PayslipComputation;
    try {
      c = computePayslip(pack, period, g.payee, employer, ytd.get(g.who.pay_profile_id));
    } catch (e) {
      if (!isApiError(e)) throw e;
      const entries = (e.details?.validation?.entries ?? []) as ValidationEntry[];
      findings.push({ severity: 'p0', code: 'computation_refused', detail: `No payslip for ${g.who.payee_ref}: ${entries.map((x) => x.detail).join(' ') || e.message}`, payee_ref: g.who.payee_ref, n: null });
      continue;
    }
    const r = recordOf(records.length, g.who, c);
    records.push(r);
    findings.push(...findingsOf(r, g));
  }
  if (extra) findings.push(...extra(records));
  return { records, findings: grouped(findings) };
}

/** Above this many findings of one code, they become one finding naming the count (bounded run event). */
export const FINDINGS_PER_CODE = 20;

function grouped(findings: NewFinding[]): NewFinding[] {
  const byCode = new Map<string, NewFinding[]>();
  for (const f of findings) {
    const list = byCode.get(f.code);
    if (list) list.push(f);
    else byCode.set(f.code, [f]);
  }
  const out: NewFinding[] = [];
  for (const [code, list] of byCode) {
    if (list.length <= FINDINGS_PER_CODE) {
      out.push(...list);
      continue;
    }
    const refs = list.slice(0, FINDINGS_PER_CODE).map((f) => f.payee_ref).join(', ');
    out.push({ severity: list[0].severity, code, payee_ref: null, n: null, detail: `${list.length} payees: ${refs}, and ${list.length - FINDINGS_PER_CODE} more. ${list[0].detail}` });
  }
  return out;
}

function findingsOf(r: PayslipRecord, g: GatheredPayee): NewFinding[] {
  const out: NewFinding[] = [];
  const at = { payee_ref: r.payee_ref, n: r.n };
  if (r.net < 0) out.push({ severity: 'p0', code: 'negative_net_pay', detail: `Net pay of ${r.payee_ref} is negative (${r.net} kobo).`, ...at });
  if ((amountOf(r, 'pension_employee') > 0 || amountOf(r, 'pension_employer') > 0) && !r.payee.pension_administrator) {
    out.push({ severity: 'p1', code: 'pension_administrator_missing', detail: `${r.payee_ref} has pension contributions but no pension administrator on file; they are grouped as unassigned.`, ...at });
  }
  if (r.net > 0 && !g.has_bank_identifier) out.push({ severity: 'p0', code: 'bank_identifier_missing', detail: `${r.payee_ref} has net pay but no bank identifier on file; payouts cannot pay this line.`, ...at });
  if (amountOf(r, 'paye') < 0) out.push({ severity: 'p2', code: 'paye_refund', detail: `PAYE for ${r.payee_ref} is a refund of ${-amountOf(r, 'paye')} kobo under the cumulative method.`, ...at });
  return out;
}
