/**
 * An accepted instruction set's lines, grouped into one leg per authority that is paid (spec 2.10,
 * 3; reference ng-payouts-remittance.md 2 and 4): PAYE to the State IRS of each line; pension to the
 * custodian (PFC) of each line's PFA, one leg per PFC with a line per PFA (PRA s.11(3)(b); "split
 * one payment per PFC, with one schedule section per PFA"); each levy to its collector. Lines with
 * nothing to pay are left out; a line whose authority is unknown refuses the whole remittance.
 */
import { ApiError, errorEntry, type ValidationEntry, validationReport } from '../../../kernel/index.ts';
import type { LegLevy, LegLine, LegPlan } from './leg.ts';
import { type AcceptedSet, authorityById, type Authority } from './sources.ts';

const LEVIES: readonly string[] = ['nhf', 'nsitf', 'itf', 'nhia'];

export function planLegs(set: AcceptedSet): { legs: LegPlan[]; unpaid: Array<{ reconciliation_reference: string; reason: string }> } {
  const byAuthority = new Map<string, LegPlan>();
  const errors: ValidationEntry[] = [];
  const unpaid: Array<{ reconciliation_reference: string; reason: string }> = [];
  let index = 0;
  const add = (payee: Authority, levy: LegLevy, line: LegLine) => {
    let leg = byAuthority.get(payee.id);
    if (!leg) {
      leg = {
        authority_id: payee.id, authority_name: payee.name, authority_kind: payee.kind, authority_code: payee.code, jurisdiction: payee.jurisdiction, levy,
        collection_account: { ...payee.collection_account }, amount: 0, lines: [],
      };
      byAuthority.set(payee.id, leg);
    }
    leg.amount += line.amount;
    leg.lines.push(line);
  };
  const refuse = (ref: string, code: string, detail: string) => errors.push(errorEntry(undefined, code, `${ref}: ${detail}`, index));

  for (const l of set.instructions.paye) {
    index++;
    if (l.amount.amount <= 0) continue;
    const a = authorityById(l.authority_id);
    if (!a || a.kind !== 'state_irs') { refuse(l.reconciliation_reference, 'authority_unknown', `no State IRS with id ${l.authority_id}.`); continue; }
    add(a, 'paye', { reconciliation_reference: l.reconciliation_reference, authority_id: a.id, authority_name: a.name, amount: l.amount.amount, payee_count: l.payee_count ?? null });
  }
  for (const l of set.instructions.pension) {
    index++;
    if (l.amount.amount <= 0) continue;
    if (l.authority_id === null) { unpaid.push({ reconciliation_reference: l.reconciliation_reference, reason: `administrator ${l.administrator_id} is not a known PFA; its discrepancy was overridden, so it is not paid` }); continue; }
    const pfa = authorityById(l.authority_id);
    const pfc = pfa ? authorityById(pfa.custodian_id ?? pfa.collected_by) : undefined;
    if (!pfa || pfa.kind !== 'pension_administrator' || !pfc) { refuse(l.reconciliation_reference, 'authority_unknown', `no PFA with a custodian for id ${l.authority_id}.`); continue; }
    add(pfc, 'pension', {
      reconciliation_reference: l.reconciliation_reference, authority_id: pfa.id, authority_name: pfa.name, amount: l.amount.amount,
      ...(l.employee_amount ? { employee_amount: l.employee_amount.amount } : {}), ...(l.employer_amount ? { employer_amount: l.employer_amount.amount } : {}), payee_count: l.payee_count ?? null,
    });
  }
  for (const l of set.instructions.levies) {
    index++;
    if (l.amount.amount <= 0) continue;
    const a = authorityById(l.authority_id);
    if (!a || !LEVIES.includes(l.code) || a.kind !== l.code) { refuse(l.reconciliation_reference, 'authority_unknown', `no ${l.code} collector with id ${l.authority_id}.`); continue; }
    add(a, l.code as LegLevy, { reconciliation_reference: l.reconciliation_reference, authority_id: a.id, authority_name: a.name, amount: l.amount.amount });
  }
  if (errors.length) throw new ApiError('validation_failed', `Instruction set ${set.id} names authorities that cannot be paid.`, { validation: validationReport(index, errors) });
  const legs = [...byAuthority.values()].sort((a, b) => (a.authority_id < b.authority_id ? -1 : 1));
  if (legs.length === 0) throw new ApiError('conflict', `Instruction set ${set.id} has nothing to remit: every line is zero.`);
  return { legs, unpaid };
}
