/**
 * The engine (engine/compute.ts, one payslip) over every gathered payee of a run: the payslip
 * records and the findings, as calculation records them and simulation compares them.
 */
import { isApiError, type ValidationEntry } from '../../../kernel/index.ts';
import { computePayslip, fullYearToDate, type EmployerInputs, type PayslipComputation, type RulePack, type YearToDate } from '../engine/index.ts';
import { recordOf, type PayslipRecord } from '../payslips/record.ts';
import { findingsOf, grouped } from './findings.ts';
import type { GatheredPayee } from './gather.ts';
import type { NewFinding } from './run.ts';

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
    const before = ytd.get(g.who.pay_profile_id);
    try {
      c = computePayslip(pack, period, g.payee, employer, before, g.options);
    } catch (e) {
      if (!isApiError(e)) throw e;
      const entries = (e.details?.validation?.entries ?? []) as ValidationEntry[];
      findings.push({ severity: 'p0', code: 'computation_refused', detail: `No payslip for ${g.who.payee_ref}: ${entries.map((x) => x.detail).join(' ') || e.message}`, payee_ref: g.who.payee_ref, n: null });
      continue;
    }
    const r = recordOf(records.length, g.who, c);
    records.push(r);
    findings.push(...findingsOf(r, g));
    if (g.options.regular && before && fullYearToDate(before).regular_through === period) {
      findings.push({ severity: 'p1', code: 'already_paid_in_period', detail: `${g.who.payee_ref} already had the regular pay of ${period} from an executed run; this payslip pays it again.`, payee_ref: g.who.payee_ref, n: r.n });
    }
  }
  if (extra) findings.push(...extra(records));
  return { records, findings: grouped(findings) };
}
