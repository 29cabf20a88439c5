/**
 * What a calculation or simulation reads (spec 2.9, 4.8): who the run pays, with their recorded
 * inputs, their pay items and what each payslip pays (reference ng-payroll-2026-irregular-pay.md),
 * their year-to-date figures, and the employer's settings. The engine runs over these in
 * compute-payslips.ts.
 *
 * What each run type pays:
 *   regular            every payee employed in the period (or payee_refs): the month's regular
 *                      pay, plus any items given for them
 *   bonus, thirteenth_month, off_cycle
 *                      the payees with items (or payee_refs): the items only; PAYE is the month's
 *                      cumulative figure less what earlier payslips of the month withheld
 *   final_settlement   leavers (payee_refs, else those with items, else every entry ending in the
 *                      period): their items, and the month's regular pay unless an executed run of
 *                      the month paid it; paid after the exit month, income of the last month of
 *                      employment (NTA s.26(2)(b)), without regular pay
 *   correction         the corrected run's payees, paying what the corrected payslips paid, with
 *                      the correction's items
 */
import type { ActorSystem } from '../../../runtime/index.ts';
import { isApiError } from '../../../kernel/index.ts';
import { fullYearToDate, type EmployerInputs, type PayeeInputs, type PayItem, type PayslipOptions, type YearToDate } from '../engine/index.ts';
import { DEFAULT_EMPLOYER, Employer, employerIdFor, type EmployerSettings } from '../employer.ts';
import { PayProfile, stateOnFirstOfJanuary } from '../pay-profile.ts';
import type { PayeeRef, PayslipRecord } from '../payslips/record.ts';
import { loadPayslips } from '../payslips/storage.ts';
import { RosterEntry, monthsEmployed, type RosterEntryState } from '../roster-entry.ts';
import { EXECUTED, Run, type NewFinding, type RunItem, type RunState } from './run.ts';

const PAGE = 1_000;

export interface GatheredPayee {
  who: PayeeRef;
  payee: PayeeInputs;
  /** Whether the payee's passport is live now (spec 4.3 gating: payouts pay a person only then); undefined when not asked. */
  passport_live?: boolean;
  options: Required<PayslipOptions>;
}

export interface Gathered {
  payees: GatheredPayee[];
  ytd: Map<string, YearToDate>;
  findings: NewFinding[];
}

/** The settings as configured, and whether anyone configured them (a run on defaults raises a finding). */
export async function employerSettings(system: ActorSystem, org: string): Promise<EmployerSettings & { configured: boolean }> {
  try {
    return { ...(await system.state(Employer, employerIdFor(org), org)), configured: true };
  } catch (e) {
    if (isApiError(e) && e.code === 'not_found') return { ...DEFAULT_EMPLOYER, configured: false };
    throw e;
  }
}

export function employerInputs(settings: EmployerSettings, payeeCount: number): EmployerInputs {
  return { headcount: settings.headcount ?? payeeCount, turnover_50m_or_more: settings.turnover_50m_or_more };
}

const ITEM_ONLY = new Set(['bonus', 'thirteenth_month', 'off_cycle']);
const pad = (m: number) => String(m).padStart(2, '0');
const lastDayOf = (period: string) => {
  const [y, m] = period.split('-').map(Number);
  return new Date(Date.UTC(y, m, 0)).toISOString().slice(0, 10);
};

/** Who the run pays and how (see the table above), with their year to date. */
/** `isLive` reads the identity gate for a payee (a calculation asks it; a simulation need not). */
export async function gatherRun(system: ActorSystem, s: RunState, corrected: readonly PayslipRecord[], isLive?: (payeeRef: string) => boolean): Promise<Gathered> {
  const findings: NewFinding[] = [];
  const items = itemsByPayee(s);
  const chosen = chosenPayees(s, corrected, items, findings);
  const { entries, found } = await rosterEntries(system, s, chosen, findings);
  for (const ref of chosen ?? []) {
    if (!found.has(ref) && (items.has(ref) || s.payee_refs)) {
      findings.push({ severity: 'p0', code: 'payee_not_on_roster', detail: `${ref} has pay items or is named by the run but is not on the roster for ${s.period}; nothing is paid to them.`, payee_ref: ref, n: null });
    }
  }
  const ytd = await yearToDate(system, s.org, s.period, [s.id, ...(s.corrects_run_id ? [s.corrects_run_id] : [])]);
  const payees = await payeesOf(system, s, corrected, items, entries, ytd, findings);
  if (isLive) for (const g of payees) g.passport_live = isLive(g.who.payee_ref);
  return { payees, ytd, findings };
}

function itemsByPayee(s: RunState): Map<string, PayItem[]> {
  const items = new Map<string, PayItem[]>();
  for (const it of s.items ?? []) {
    const list = items.get(it.payee_ref) ?? [];
    list.push(itemOf(it));
    items.set(it.payee_ref, list);
  }
  return items;
}

/** The payees the run names or implies by its type (null: everyone employed in the period). */
function chosenPayees(s: RunState, corrected: readonly PayslipRecord[], items: Map<string, PayItem[]>, findings: NewFinding[]): Set<string> | null {
  const type = s.run_type;
  let scope: string[] | null;
  if (s.payee_refs) scope = s.payee_refs;
  else if (s.corrects_run_id) scope = corrected.map((r) => r.payee_ref);
  else if (ITEM_ONLY.has(type)) scope = [...items.keys()];
  else if (type === 'final_settlement' && items.size > 0) scope = [...items.keys()];
  else scope = null;
  if (ITEM_ONLY.has(type) && items.size === 0) {
    findings.push({ severity: 'p0', code: 'no_pay_items', detail: `A ${type} run pays only its pay items and has none; add them with PATCH /v1/payroll/runs/${s.id} (items).`, payee_ref: null, n: null });
  }
  return scope === null ? null : new Set(scope);
}

interface PaidEntry {
  e: RosterEntryState;
  incomeMonth: number;
}

/**
 * The roster entries the run pays, each with the month its pay is income of, and the payees found
 * on the roster (a leaver turned away for settling outside the exit's tax year is found, not paid).
 */
async function rosterEntries(system: ActorSystem, s: RunState, chosen: Set<string> | null, findings: NewFinding[]): Promise<{ entries: PaidEntry[]; found: Set<string> }> {
  const period = s.period;
  const taxYear = Number(period.slice(0, 4));
  const month = Number(period.slice(5, 7));
  const first = `${period}-01`;
  const last = lastDayOf(period);
  const entries: PaidEntry[] = [];
  const found = new Set<string>();
  for await (const ids of system.eachIds(RosterEntry, s.org, 'all', 'asc', PAGE)) {
    const batch = await Promise.all(ids.map((id) => system.state(RosterEntry, id, s.org)));
    for (const e of batch) {
      if (chosen !== null && !chosen.has(e.payee_ref)) continue;
      const employed = e.starts_on <= last && (e.ends_on === null || e.ends_on >= first);
      if (s.run_type !== 'final_settlement') {
        if (employed) {
          entries.push({ e, incomeMonth: month });
          found.add(e.payee_ref);
        }
        continue;
      }
      if (e.ends_on === null || e.ends_on > last) {
        if (chosen !== null) findings.push({ severity: 'p0', code: 'not_a_leaver', detail: `${e.payee_ref}'s employment does not end by ${last}; set ends_on on roster entry ${e.id} before a final settlement.`, payee_ref: e.payee_ref, n: null });
        continue;
      }
      found.add(e.payee_ref);
      if (employed) {
        entries.push({ e, incomeMonth: month });
        continue;
      }
      // Paid after the exit: income of the last month of employment, if in this tax year.
      if (Number(e.ends_on.slice(0, 4)) !== taxYear || e.ends_on < e.starts_on) {
        findings.push({ severity: 'p0', code: 'exit_outside_tax_year', detail: `${e.payee_ref} left on ${e.ends_on}; pay after the exit is income of that day's year (NTA s.26(2)(b)); settle it in a run of ${e.ends_on.slice(0, 4)}.`, payee_ref: e.payee_ref, n: null });
        continue;
      }
      entries.push({ e, incomeMonth: Number(e.ends_on.slice(5, 7)) });
    }
  }
  return { entries, found };
}

/** What each entry's payslip pays: its items, and its regular pay where the run type pays it. */
async function payeesOf(system: ActorSystem, s: RunState, corrected: readonly PayslipRecord[], items: Map<string, PayItem[]>, entries: PaidEntry[], ytd: Map<string, YearToDate>, findings: NewFinding[]): Promise<GatheredPayee[]> {
  const correctedBy = new Map(corrected.map((r) => [r.payee_ref, r]));
  const period = s.period;
  const taxYear = Number(period.slice(0, 4));
  const month = Number(period.slice(5, 7));
  const profiles = await Promise.all(entries.map(({ e }) => system.state(PayProfile, e.pay_profile_id, s.org)));
  const payees: GatheredPayee[] = [];
  entries.forEach(({ e, incomeMonth }, i) => {
    const p = profiles[i];
    const mine = items.get(e.payee_ref) ?? [];
    let regular: boolean;
    if (s.corrects_run_id) regular = correctedBy.get(e.payee_ref)?.regular ?? true;
    else if (ITEM_ONLY.has(s.run_type)) regular = false;
    else if (s.run_type === 'final_settlement') {
      const y = ytd.get(p.id);
      const through = y ? fullYearToDate(y).regular_through : null;
      regular = incomeMonth === month && !(through !== null && through >= period);
    } else regular = true;
    if (!regular && mine.length === 0) {
      if (s.payee_refs) findings.push({ severity: 'p1', code: 'nothing_to_pay', detail: `${e.payee_ref} is named by the run but has no pay items and no regular pay due in it.`, payee_ref: e.payee_ref, n: null });
      return;
    }
    payees.push({
      who: { roster_entry_id: e.id, pay_profile_id: p.id, payee_ref: e.payee_ref, ...(p.bank_account ? { bank_account: p.bank_account } : {}) },
      // PAYE follows the State of residence fixed on 1 January of the tax year (pay-profile.ts)
      payee: { ...p.inputs, state_of_residence: stateOnFirstOfJanuary(p, taxYear), months_employed: monthsEmployed(e, taxYear) },
      options: { items: mine, regular, income_month: incomeMonth },
    });
  });
  return payees;
}

function itemOf(it: RunItem): PayItem {
  return it.components ? { code: it.code, amount: it.amount, components: it.components } : { code: it.code, amount: it.amount };
}

/**
 * Each payee's year to date: the latest executed payslip of the tax year up to and including the
 * period (an earlier run of the same month counts: the month's PAYE is cumulative), leaving out
 * `except` (the run itself and the run a correction corrects). Corrections replace what they correct.
 */
export async function yearToDate(system: ActorSystem, org: string, period: string, except: readonly string[] = []): Promise<Map<string, YearToDate>> {
  const year = period.slice(0, 4);
  const month = Number(period.slice(5, 7));
  const ytd = new Map<string, YearToDate>();
  for (let m = 1; m <= month; m++) {
    const runs: RunState[] = [];
    for await (const ids of system.eachIds(Run, org, `period:${year}-${pad(m)}`, 'asc', PAGE)) {
      for (const id of ids) {
        if (m === month && except.includes(id)) continue;
        const r = await system.state(Run, id, org);
        if (EXECUTED.has(r.status)) runs.push(r);
      }
    }
    // A corrected run's payslips are superseded by its correction's (spec 1 rule 4).
    const corrected = new Set(runs.map((r) => r.corrects_run_id).filter((x): x is string => x !== null));
    const counted = runs.filter((r) => !corrected.has(r.id)).sort((a, b) => (a.executed_at ?? 0) - (b.executed_at ?? 0));
    // Each payslip's year to date chains from the one before it, so the payee's latest is the one
    // counting the most payslips (runs executed at the same instant are told apart this way).
    for (const r of counted) {
      for (const p of await loadPayslips(system, r)) {
        const prev = ytd.get(p.pay_profile_id);
        if (!prev || p.ytd_after.payslips >= prev.payslips) ytd.set(p.pay_profile_id, p.ytd_after);
      }
    }
  }
  return ytd;
}
