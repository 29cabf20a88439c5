/**
 * The findings a calculation raises (spec 2.9; codes not shown, docs/gaps.md#payroll): about the
 * run as a whole (gather.ts: who it pays; employer settings assumed), about payees paid twice in
 * one period (compute-payslips.ts) or paid too much by a corrected run, and about each payslip;
 * many of one code become one finding, so the run's event stays bounded.
 */
import { amountOf, type PayslipRecord } from '../payslips/record.ts';
import type { GatheredPayee } from './gather.ts';
import type { NewFinding } from './run.ts';

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

/** Above this many findings of one code, they become one finding naming the count (bounded run event). */
export const FINDINGS_PER_CODE = 20;

export function grouped(findings: NewFinding[]): NewFinding[] {
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

export function findingsOf(r: PayslipRecord, g: GatheredPayee): NewFinding[] {
  const out: NewFinding[] = [];
  const at = { payee_ref: r.payee_ref, n: r.n };
  if (r.net < 0) out.push({ severity: 'p0', code: 'negative_net_pay', detail: `Net pay of ${r.payee_ref} is negative (${r.net} kobo).`, ...at });
  if ((amountOf(r, 'pension_employee') > 0 || amountOf(r, 'pension_employer') > 0) && !r.payee.pension_administrator) {
    out.push({ severity: 'p1', code: 'pension_administrator_missing', detail: `${r.payee_ref} has pension contributions but no pension administrator on file; they are grouped as unassigned.`, ...at });
  }
  // A payee who cannot be paid is named before approval, not found as a hold later (docs/gaps.md#payroll
  // "Where pay goes"): payouts holds the line and releases it once the cause clears; the others are paid.
  if (r.net > 0 && !r.bank_account) out.push({ severity: 'p1', code: 'bank_account_missing', detail: `${r.payee_ref} has net pay but no bank_account on file; payouts holds the line (no_bank_account) until one is set with PATCH /v1/pay_profiles/${r.pay_profile_id}, then pays it.`, ...at });
  if (r.net > 0 && g.passport_live === false) out.push({ severity: 'p1', code: 'payee_passport_not_live', detail: `${r.payee_ref} has net pay but no live passport (spec 4.3 gating); payouts holds the line (passport_not_live) until the payee's identity is verified, then pays it.`, ...at });
  if (amountOf(r, 'paye') < 0) out.push({ severity: 'p2', code: 'paye_refund', detail: `PAYE for ${r.payee_ref} is a refund of ${-amountOf(r, 'paye')} kobo under the cumulative method.`, ...at });
  return out;
}
