/**
 * What a calculation or simulation reads (spec 2.9, 4.8): who is on the roster for the period with
 * their recorded inputs, their year-to-date figures, who was already paid in the period, and the
 * employer's settings. The engine runs over these in compute-payslips.ts.
 */
import type { ActorSystem } from '../../../runtime/index.ts';
import { isApiError } from '../../../kernel/index.ts';
import type { EmployerInputs, PayeeInputs, YearToDate } from '../engine/index.ts';
import { DEFAULT_EMPLOYER, Employer, employerIdFor, type EmployerSettings } from '../employer.ts';
import { PayProfile, type PayProfileState } from '../pay-profile.ts';
import type { PayeeRef, PayslipRecord } from '../payslips/record.ts';
import { loadPayslips } from '../payslips/storage.ts';
import { RosterEntry, employedIn, monthsEmployed, type RosterEntryState } from '../roster-entry.ts';
import { EXECUTED, Run, type RunState } from './run.ts';

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

/** Who a run pays: its payee_refs, else a correction's corrected payees, else everyone employed. */
export function payeeScope(s: RunState, corrected: readonly PayslipRecord[]): string[] | null {
  return s.payee_refs ?? (s.corrects_run_id ? corrected.map((r) => r.payee_ref) : null);
}

/** Every roster entry employed in the period (of `only`, when given), with its pay profile's inputs (payee order). */
export async function gatherPayees(system: ActorSystem, org: string, period: string, only: readonly string[] | null = null): Promise<GatheredPayee[]> {
  const chosen = only === null ? null : new Set(only);
  const taxYear = Number(period.slice(0, 4));
  const out: GatheredPayee[] = [];
  for await (const ids of system.eachIds(RosterEntry, org, 'all', 'asc', PAGE)) {
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
    for await (const ids of system.eachIds(Run, org, `period:${year}-${String(m).padStart(2, '0')}`, 'asc', PAGE)) {
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
  for await (const ids of system.eachIds(Run, org, `period:${period}`, 'asc', PAGE)) {
    for (const id of ids) {
      if (except.includes(id)) continue;
      const r = await system.state<RunState>(Run, id, org);
      if (EXECUTED.has(r.status)) for (const p of await loadPayslips(system, r)) paid.set(p.pay_profile_id, r.id);
    }
  }
  return paid;
}

