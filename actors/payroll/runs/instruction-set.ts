/**
 * The run's InstructionSet (spec 2.10), a sum of payslip lines: PAYE grouped by the tax authority
 * of each payee's state of residence, pension per administrator, one line per levy. The set's
 * total equals the run's deductions plus employer contributions to the kobo.
 */
import { derivedId } from '../../../kernel/index.ts';
import { dueDates, dueIf, LINE_ORDER, taxAuthority, type LineCode, type RulePack } from '../engine/index.ts';
import { INSTRUCTION_SET_PREFIX, RUN_PREFIX } from '../payroll-ids.ts';
import { ngn } from '../naira.ts';
import { codeTotals, type PayslipRecord } from '../payslips/record.ts';
import type { RemittanceDirectory } from './remittance-directory.ts';

export const AUTHORITY_PREFIX = 'remit_authority_rail_obligation_';
export type LevyCode = 'nhf' | 'nsitf' | 'itf' | 'nhia';

export interface InstructionSetData {
  id: string;
  run_id: string;
  period: string;
  paye: Array<{ authority_id: string; jurisdiction: string; authority_name: string; amount: number; payee_count: number; reconciliation_reference: string }>;
  pension: Array<{ administrator_id: string; employee_amount: number; employer_amount: number; amount: number; payee_count: number; reconciliation_reference: string }>;
  levies: Array<{ code: LevyCode; amount: number; reconciliation_reference: string }>;
  total: number;
}

/** The PAYE authority id of a jurisdiction (ISO 3166-2:NG): stable, so remittance can match it. */
export function authorityIdFor(jurisdiction: string): string {
  return derivedId(AUTHORITY_PREFIX, ['paye_authority:', jurisdiction], 'modulo');
}

/** Pension contributions of a payee with no administrator on file are grouped here (a p1 finding). */
export const UNASSIGNED_ADMINISTRATOR = 'unassigned';

const IDX = Object.fromEntries(LINE_ORDER.map((c, i) => [c, i])) as Record<LineCode, number>;

export function buildInstructionSet(runId: string, period: string, pack: RulePack, records: readonly PayslipRecord[]): InstructionSetData {
  const paye = new Map<string, { amount: number; payees: number }>();
  const pension = new Map<string, { ee: number; er: number; payees: number }>();
  const iPaye = IDX.paye, iPe = IDX.pension_employee, iPr = IDX.pension_employer;
  for (const r of records) {
    const state = r.payee.state_of_residence;
    const p = paye.get(state) ?? { amount: 0, payees: 0 };
    p.amount += r.amounts[iPaye] ?? 0;
    p.payees++;
    paye.set(state, p);
    const ee = r.amounts[iPe] ?? 0;
    const er = r.amounts[iPr] ?? 0;
    if (ee !== 0 || er !== 0) {
      const admin = r.payee.pension_administrator || UNASSIGNED_ADMINISTRATOR;
      const q = pension.get(admin) ?? { ee: 0, er: 0, payees: 0 };
      q.ee += ee;
      q.er += er;
      q.payees++;
      pension.set(admin, q);
    }
  }
  const t = codeTotals(records);
  const ref = (what: string) => `${runId}:${what}`;
  const set: InstructionSetData = {
    id: INSTRUCTION_SET_PREFIX + runId.slice(RUN_PREFIX.length),
    run_id: runId,
    period,
    paye: [...paye.entries()].sort(([a], [b]) => (a < b ? -1 : 1)).map(([jurisdiction, v]) => ({
      authority_id: authorityIdFor(jurisdiction),
      jurisdiction,
      authority_name: taxAuthority(pack, jurisdiction),
      amount: v.amount,
      payee_count: v.payees,
      reconciliation_reference: ref(`paye:${jurisdiction}`),
    })),
    pension: [...pension.entries()].sort(([a], [b]) => (a < b ? -1 : 1)).map(([administrator_id, v]) => ({
      administrator_id,
      employee_amount: v.ee,
      employer_amount: v.er,
      amount: v.ee + v.er,
      payee_count: v.payees,
      reconciliation_reference: ref(`pension:${administrator_id}`),
    })),
    levies: ([
      ['nhf', t.nhf],
      ['nsitf', t.nsitf],
      ['itf', t.itf],
      ['nhia', t.nhia_employee + t.nhia_employer],
    ] as Array<[LevyCode, number]>).map(([code, amount]) => ({ code, amount, reconciliation_reference: ref(code) })),
    total: 0,
  };
  set.total = set.paye.reduce((a, x) => a + x.amount, 0) + set.pension.reduce((a, x) => a + x.amount, 0) + set.levies.reduce((a, x) => a + x.amount, 0);
  return set;
}

/**
 * The set as the API shows it: each line with its remittance due date for the run's pay date,
 * null where the levy does not apply (nothing to remit) or the calendar gives no date. Authority
 * names and due dates come from the remittance area's data (its RemittanceDirectory) when it is
 * mounted, the one source; otherwise from the pinned pack (reference 8).
 */
export function instructionSetView(s: InstructionSetData, livemode: boolean, pack: RulePack, payDate: string, directory?: RemittanceDirectory) {
  const packDue = dueDates(pack, payDate);
  const due: Record<LevyCode | 'paye' | 'pension', string | null> = directory
    ? { paye: directory.dueDate('paye', payDate), pension: directory.dueDate('pension', payDate), nhf: directory.dueDate('nhf', payDate), nsitf: directory.dueDate('nsitf', payDate), itf: directory.dueDate('itf', payDate), nhia: directory.dueDate('nhia', payDate) }
    : { paye: packDue.paye, pension: packDue.pension, nhf: packDue.nhf, nsitf: packDue.nsitf, itf: packDue.itf, nhia: packDue.nhia };
  const authorityName = (jurisdiction: string) => directory?.payeAuthority(jurisdiction)?.name ?? taxAuthority(pack, jurisdiction);
  return {
    id: s.id,
    object: 'instruction_set' as const,
    livemode,
    mocked: false,
    run_id: s.run_id,
    period: s.period,
    paye: s.paye.map((p) => ({ authority_id: p.authority_id, jurisdiction: p.jurisdiction, authority_name: authorityName(p.jurisdiction), amount: ngn(p.amount), payee_count: p.payee_count, due_date: due.paye, reconciliation_reference: p.reconciliation_reference })),
    pension: s.pension.map((p) => ({ administrator_id: p.administrator_id, employee_amount: ngn(p.employee_amount), employer_amount: ngn(p.employer_amount), amount: ngn(p.amount), due_date: dueIf(p.amount, due.pension), reconciliation_reference: p.reconciliation_reference })),
    levies: s.levies.map((l) => ({ code: l.code, amount: ngn(l.amount), due_date: dueIf(l.amount, due[l.code]), reconciliation_reference: l.reconciliation_reference })),
    totals: { total: ngn(s.total) },
  };
}
