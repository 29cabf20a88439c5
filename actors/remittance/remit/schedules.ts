/**
 * The returns' contents (reference ng-payouts-remittance.md 4 "Remittance filing and evidence"):
 * - a leg's monthly schedule: one section per instruction-set line it pays (a PFC leg has one per
 *   PFA), each with a row per employee from the run's payslips (PAYE: the employees resident in
 *   the State; pension: the PFA's members with employee and employer contributions; NHF, NSITF,
 *   ITF, NHIA: each contributor's amount); a set that did not come from a payroll run of ours has
 *   sections without rows (rows_available false);
 * - the annual employer return (Form H1, NTAA s.14): per employee, the year's gross emoluments and
 *   tax deducted, summed from that State IRS's monthly PAYE schedules of the income year.
 * Row layouts beyond these fields (employee TIN, name and address) are not held by payroll yet
 * (docs/gaps.md, "Remittance: remittances, legs, receipts, returns").
 */
import { contentHash, type Caller, type Platform } from '../../../kernel/index.ts';
import { LINE_ORDER, remittanceBasis, runState, type PayslipRecord } from '../../payroll/index.ts';
import type { LegState } from './leg.ts';
import type { PrepareReturn, ReturnForm, ReturnRow, ReturnSection, ReturnState } from './return.ts';
import { pensionAdministrator } from './sources.ts';

const FORM: Record<string, ReturnForm> = { paye: 'paye_monthly_schedule', pension: 'pension_schedule', nhf: 'nhf_schedule', nsitf: 'nsitf_schedule', itf: 'itf_schedule', nhia: 'nhia_schedule' };
const at = (code: string) => LINE_ORDER.indexOf(code as (typeof LINE_ORDER)[number]);
const I = { paye: at('paye'), pe: at('pension_employee'), pr: at('pension_employer'), nhf: at('nhf'), nsitf: at('nsitf'), itf: at('itf'), nhiaE: at('nhia_employee'), nhiaR: at('nhia_employer') };
const amt = (p: PayslipRecord, i: number) => (i >= 0 ? (p.amounts[i] ?? 0) : 0);

/** The payslips a run's instruction set was built from (a correction's deltas for a correcting run). */
export async function runPayslips(p: Platform, c: Caller, runId: string | null): Promise<PayslipRecord[] | null> {
  if (!runId) return null;
  try {
    return await remittanceBasis(p.system, await runState(p, c, runId));
  } catch {
    return null;
  }
}

function row(p: PayslipRecord, period: string, amount: number, extra: Partial<ReturnRow> = {}): ReturnRow {
  return { payee_ref: p.payee_ref, pay_profile_id: p.pay_profile_id, tax_id: null, state_of_residence: p.payee.state_of_residence, months: [period], gross: p.gross, amount, ...extra };
}

function rowsFor(leg: LegState, sectionAuthority: string, payslips: readonly PayslipRecord[]): ReturnRow[] {
  const out: ReturnRow[] = [];
  for (const p of payslips) {
    switch (leg.levy) {
      case 'paye':
        if (p.payee.state_of_residence === leg.jurisdiction && amt(p, I.paye) !== 0) out.push(row(p, leg.period, amt(p, I.paye)));
        break;
      case 'pension': {
        const ee = amt(p, I.pe), er = amt(p, I.pr);
        const pfa = p.payee.pension_administrator ? pensionAdministrator(p.payee.pension_administrator) : undefined;
        if ((ee !== 0 || er !== 0) && pfa?.id === sectionAuthority) out.push(row(p, leg.period, ee + er, { employee_amount: ee, employer_amount: er }));
        break;
      }
      case 'nhia': {
        const n = amt(p, I.nhiaE) + amt(p, I.nhiaR);
        if (n !== 0) out.push(row(p, leg.period, n));
        break;
      }
      default: {
        const n = amt(p, I[leg.levy]);
        if (n !== 0) out.push(row(p, leg.period, n));
      }
    }
  }
  return out;
}

/** The monthly schedule that goes with a leg's payment. */
export function monthlySchedule(leg: LegState, payslips: readonly PayslipRecord[] | null, preparedBy: string | null): PrepareReturn {
  const sections: ReturnSection[] = leg.lines.map((l) => ({
    authority_id: l.authority_id, authority_name: l.authority_name, reconciliation_reference: l.reconciliation_reference, total: l.amount,
    rows: payslips ? rowsFor(leg, l.authority_id, payslips) : [],
  }));
  const body = { form: FORM[leg.levy]!, levy: leg.levy, authority_id: leg.authority_id, authority_code: leg.authority_code, authority_name: leg.authority_name, period: leg.period, currency: leg.currency, sections };
  return {
    ...body, remittance_id: leg.remittance_id, leg_ids: [leg.id], livemode: leg.livemode, rows_available: payslips !== null,
    total: leg.amount, content_hash: contentHash({ org: leg.org, ...body }), prepared_by: preparedBy,
  };
}

/** Form H1 for a State IRS and income year, from that authority's monthly PAYE schedules of the year. */
export function annualReturn(org: string, authority: { id: string; code: string; name: string }, year: string, schedules: readonly ReturnState[], livemode: boolean): PrepareReturn {
  const byPayee = new Map<string, ReturnRow>();
  let total = 0;
  const legIds: string[] = [];
  let rowsAvailable = schedules.length > 0;
  for (const s of [...schedules].sort((a, b) => (a.period < b.period ? -1 : 1))) {
    legIds.push(...s.leg_ids);
    total += s.total;
    rowsAvailable &&= s.rows_available;
    for (const sec of s.sections) for (const r of sec.rows) {
      const k = r.pay_profile_id || r.payee_ref;
      const was = byPayee.get(k);
      byPayee.set(k, was ? { ...was, gross: was.gross + r.gross, amount: was.amount + r.amount, months: [...was.months, ...r.months], state_of_residence: r.state_of_residence } : { ...r, months: [...r.months] });
    }
  }
  const rows = [...byPayee.values()].sort((a, b) => (a.payee_ref < b.payee_ref ? -1 : a.payee_ref > b.payee_ref ? 1 : 0));
  const sections: ReturnSection[] = [{ authority_id: authority.id, authority_name: authority.name, reconciliation_reference: `${authority.code}:${year}:form_h1`, total, rows }];
  const body = { form: 'annual_employer_return' as const, levy: 'paye', authority_id: authority.id, authority_code: authority.code, authority_name: authority.name, period: year, currency: 'NGN', sections };
  return { ...body, remittance_id: null, leg_ids: legIds, livemode, rows_available: rowsAvailable, total, content_hash: contentHash({ org, ...body }), prepared_by: null };
}
