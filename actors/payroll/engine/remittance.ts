/**
 * Due dates and recipients of one payslip's statutory amounts (reference section 8). Pure
 * calendar arithmetic on dates given by the caller; no clock.
 *
 *   PAYE     state authority of residence; the pack's due day of the month after the pay date
 *   pension  PFC of the employee's PFA; N working days after the pay date (weekends and the
 *            pack's listed holidays skipped)
 *   NHF      same day of the next month (clamped to that month's last day)
 *   NSITF    due date unconfirmed: null
 *   ITF      annual levy on the pack's month-day of the year after the tax year
 *   NHIA     due date unconfirmed: null
 * A line with nothing to remit (the levy does not apply to the payslip) has due_date null.
 */
import type { PayslipComputation, RemittanceSchedule, RulePack } from './types.ts';

const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;

function parse(date: string): Date {
  const m = DATE.exec(date);
  if (!m) throw new Error(`pay date ${date} is not YYYY-MM-DD`);
  const d = new Date(Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3])));
  if (d.toISOString().slice(0, 10) !== date) throw new Error(`pay date ${date} is not a calendar date`);
  return d;
}

const iso = (d: Date) => d.toISOString().slice(0, 10);

function nextMonthDay(d: Date, day: number): string {
  const y = d.getUTCFullYear();
  const m = d.getUTCMonth() + 1;
  const last = new Date(Date.UTC(y, m + 1, 0)).getUTCDate();
  return iso(new Date(Date.UTC(y, m, Math.min(day, last))));
}

function addWorkingDays(d: Date, n: number, holidays: readonly string[]): string {
  const t = new Date(d.getTime());
  let left = n;
  while (left > 0) {
    t.setUTCDate(t.getUTCDate() + 1);
    const wd = t.getUTCDay();
    if (wd !== 0 && wd !== 6 && !holidays.includes(iso(t))) left--;
  }
  return iso(t);
}

/**
 * The PAYE authority for a state of residence. Packs from 2026.11.1 name every State and the FCT
 * (and imports refuse any other code); an older pack's unlisted State gets this one generic name,
 * the same in payslips and instruction sets.
 */
export function taxAuthority(pack: RulePack, state: string): string {
  return pack.parameters.tax_authorities[state] ?? `State Internal Revenue Service (${state})`;
}

/** Due dates of amounts paid on `payDate`, each null where the pack gives none (reference 8). */
export interface DueDates {
  paye: string;
  pension: string;
  nhf: string;
  nsitf: string | null;
  itf: string;
  nhia: string | null;
}

export function dueDates(pack: RulePack, payDate: string): DueDates {
  const R = pack.parameters.remittance;
  const d = parse(payDate);
  return {
    paye: nextMonthDay(d, R.paye_due_day),
    pension: addWorkingDays(d, R.pension_due_working_days, R.holidays),
    nhf: nextMonthDay(d, d.getUTCDate()),
    nsitf: R.nsitf_due,
    itf: `${pack.parameters.tax_year + 1}-${R.itf_due_month_day}`,
    nhia: R.nhia_due,
  };
}

/** A line's due date, or null where the line does not apply (nothing to remit). */
export const dueIf = (amount: number, due: string | null): string | null => (amount !== 0 ? due : null);

export function remittanceSchedule(pack: RulePack, c: PayslipComputation, payDate: string): RemittanceSchedule {
  const R = pack.parameters.remittance;
  const due = dueDates(pack, payDate);
  const amount = (code: string) => {
    let s = 0;
    for (const l of c.lines) if (l.code === code) s += l.amount;
    return s;
  };
  const state = c.inputs.payee.state_of_residence;
  const pEe = amount('pension_employee');
  const pEr = amount('pension_employer');
  const nhf = amount('nhf');
  const hEe = amount('nhia_employee');
  const hEr = amount('nhia_employer');
  return {
    paye: { jurisdiction: state, authority: taxAuthority(pack, state), amount: amount('paye'), due_date: due.paye },
    pension: {
      to: R.pension_recipient,
      administrator: c.inputs.payee.pension_administrator ?? null,
      employee: pEe,
      employer: pEr,
      amount: pEe + pEr,
      due_date: dueIf(pEe + pEr, due.pension),
    },
    nhf: { to: R.nhf_recipient, amount: nhf, due_date: dueIf(nhf, due.nhf) },
    nsitf: { to: R.nsitf_recipient, amount: amount('nsitf'), due_date: dueIf(amount('nsitf'), due.nsitf) },
    itf: { to: R.itf_recipient, monthly_accrual: amount('itf'), due_date: dueIf(amount('itf'), due.itf) },
    nhia: { to: R.nhia_recipient, employee: hEe, employer: hEr, amount: hEe + hEr, due_date: dueIf(hEe + hEr, due.nhia) },
  };
}
