/**
 * Checks on engine inputs, naming every failing field (spec 2.1 ValidationReport). Money must be
 * a whole number of kobo: a fraction is refused with invalid_money_amount, never rounded (spec 1
 * rule 3). Checks run in a fixed order so the same bad input always gives the same entries.
 */
import type { ValidationEntry } from '../../../kernel/index.ts';
import type { EmployerInputs, PayeeInputs, YearToDate } from './types.ts';

/** Largest money input accepted, in kobo (NGN 100 billion): keeps annual sums exact in numbers. */
export const MAX_KOBO = 10_000_000_000_000;

const MONEY_FIELDS = [
  'monthly_basic',
  'monthly_housing',
  'monthly_transport',
  'monthly_other_allowances',
  'annual_rent_paid',
  'annual_life_assurance_premium',
  'annual_mortgage_interest',
] as const;

/** ISO 3166-2:NG: the 36 States and the Federal Capital Territory (reference ng-payouts-remittance 2.1). */
export const NG_STATES: ReadonlySet<string> = new Set([
  'NG-AB', 'NG-AD', 'NG-AK', 'NG-AN', 'NG-BA', 'NG-BY', 'NG-BE', 'NG-BO', 'NG-CR', 'NG-DE', 'NG-EB', 'NG-ED', 'NG-EK',
  'NG-EN', 'NG-GO', 'NG-IM', 'NG-JI', 'NG-KD', 'NG-KN', 'NG-KT', 'NG-KE', 'NG-KO', 'NG-KW', 'NG-LA', 'NG-NA', 'NG-NI',
  'NG-OG', 'NG-ON', 'NG-OS', 'NG-OY', 'NG-PL', 'NG-RI', 'NG-SO', 'NG-TA', 'NG-YO', 'NG-ZA', 'NG-FC',
]);

function money(entries: ValidationEntry[], index: number, field: string, v: unknown, prefix = '', signed = false): void {
  if (typeof v !== 'number' || !Number.isFinite(v)) {
    entries.push({ index, severity: 'error', code: 'invalid_type', detail: `${field} must be an integer number of kobo.`, field: `${prefix}/${field}` });
  } else if (!Number.isInteger(v)) {
    entries.push({ index, severity: 'error', code: 'invalid_money_amount', detail: `${field} (${v}) is not a whole number of kobo; fractions are refused, never rounded.`, field: `${prefix}/${field}` });
  } else if (v < (signed ? -MAX_KOBO * 12 : 0) || v > MAX_KOBO * (prefix ? 12 : 1)) {
    entries.push({ index, severity: 'error', code: 'value_out_of_range', detail: `${field} is outside the accepted range of kobo amounts.`, field: `${prefix}/${field}` });
  }
}

/**
 * Every problem with a payee's inputs. `index` is the row position for imports (>= 1);
 * `month`, when given, must be one of months_employed.
 */
export function validatePayee(payee: PayeeInputs, index = 1, month?: number): ValidationEntry[] {
  const entries: ValidationEntry[] = [];
  if (payee === null || typeof payee !== 'object') {
    entries.push({ index, severity: 'error', code: 'invalid_type', detail: 'payee inputs must be an object.', field: '' });
    return entries;
  }
  for (const f of MONEY_FIELDS) money(entries, index, f, payee[f]);
  if (typeof payee.state_of_residence !== 'string' || !NG_STATES.has(payee.state_of_residence)) {
    entries.push({ index, severity: 'error', code: 'invalid_state_of_residence', detail: 'state_of_residence must be the ISO 3166-2:NG code of a State or the FCT, such as NG-LA or NG-FC.', field: '/state_of_residence' });
  }
  if (typeof payee.nhf_contributing !== 'boolean') {
    entries.push({ index, severity: 'error', code: 'invalid_type', detail: 'nhf_contributing must be true or false.', field: '/nhf_contributing' });
  }
  if (typeof payee.nhia_enrolled !== 'boolean') {
    entries.push({ index, severity: 'error', code: 'invalid_type', detail: 'nhia_enrolled must be true or false.', field: '/nhia_enrolled' });
  }
  const pfa = payee.pension_administrator;
  if (pfa !== undefined && pfa !== null && (typeof pfa !== 'string' || pfa.length === 0 || pfa.length > 200)) {
    entries.push({ index, severity: 'error', code: 'invalid_type', detail: 'pension_administrator must be a non-empty string or null.', field: '/pension_administrator' });
  }
  const months = payee.months_employed;
  if (!Array.isArray(months) || months.length === 0 || months.length > 12) {
    entries.push({ index, severity: 'error', code: 'invalid_months_employed', detail: 'months_employed must list 1 to 12 months of the tax year.', field: '/months_employed' });
  } else {
    let bad = false;
    for (let i = 0; i < months.length; i++) {
      const m = months[i];
      if (!Number.isInteger(m) || m < 1 || m > 12 || months.indexOf(m) !== i) bad = true;
    }
    if (bad) {
      entries.push({ index, severity: 'error', code: 'invalid_months_employed', detail: 'months_employed must hold distinct whole months from 1 to 12.', field: '/months_employed' });
    } else if (month !== undefined && !months.includes(month)) {
      entries.push({ index, severity: 'error', code: 'not_employed_in_period', detail: `the payee is not employed in month ${month} per months_employed.`, field: '/months_employed' });
    }
  }
  return entries;
}

export function validateEmployer(employer: EmployerInputs, index = 1): ValidationEntry[] {
  const entries: ValidationEntry[] = [];
  if (employer === null || typeof employer !== 'object') {
    entries.push({ index, severity: 'error', code: 'invalid_type', detail: 'employer inputs must be an object.', field: '/employer' });
    return entries;
  }
  if (!Number.isInteger(employer.headcount) || employer.headcount < 1) {
    entries.push({ index, severity: 'error', code: 'invalid_headcount', detail: 'employer headcount must be a whole number >= 1.', field: '/employer/headcount' });
  }
  if (typeof employer.turnover_50m_or_more !== 'boolean') {
    entries.push({ index, severity: 'error', code: 'invalid_type', detail: 'turnover_50m_or_more must be true or false.', field: '/employer/turnover_50m_or_more' });
  }
  return entries;
}

const PERIOD = /^(\d{4})-(0[1-9]|1[0-2])$/;
const YTD_MONEY = ['gross', 'pension_employee', 'nhf', 'nhia_employee', 'paye'] as const;
const YTD_OPTIONAL = ['taxable_regular', 'taxable_one_off', 'compensation', 'paye_one_off'] as const;

/** The period must fall in the pack's dates and tax year; the YTD must be of that year and earlier. */
export function validatePeriod(period: string, taxYear: number, from: string, to: string | null, ytd?: YearToDate): ValidationEntry[] {
  const entries: ValidationEntry[] = [];
  const m = typeof period === 'string' ? PERIOD.exec(period) : null;
  if (!m) {
    entries.push({ index: 1, severity: 'error', code: 'invalid_period', detail: 'period must be YYYY-MM.', field: '/period' });
    return entries;
  }
  const first = `${period}-01`;
  if (Number(m[1]) !== taxYear || first < from.slice(0, 7) + '-01' || (to !== null && first > to)) {
    entries.push({ index: 1, severity: 'error', code: 'period_outside_rule_pack', detail: `period ${period} is outside the rule pack's tax year ${taxYear} (${from} to ${to ?? 'open'}).`, field: '/period' });
  }
  if (ytd !== undefined) {
    if (ytd === null || typeof ytd !== 'object') {
      entries.push({ index: 1, severity: 'error', code: 'invalid_type', detail: 'year_to_date must be an object.', field: '/year_to_date' });
      return entries;
    }
    if (ytd.tax_year !== taxYear) {
      entries.push({ index: 1, severity: 'error', code: 'year_to_date_mismatch', detail: `year_to_date is for ${ytd.tax_year}, the period is in ${taxYear}.`, field: '/year_to_date/tax_year' });
    }
    // Earlier payslips of the same period count (an off-cycle run paid before the salary run).
    if (ytd.last_period !== null && !(typeof ytd.last_period === 'string' && ytd.last_period <= period)) {
      entries.push({ index: 1, severity: 'error', code: 'year_to_date_mismatch', detail: `year_to_date already counts ${ytd.last_period}; it must end by ${period}.`, field: '/year_to_date/last_period' });
    }
    // Cumulative PAYE to date is a rounded target, never negative; net to date can be (a month
    // whose PAYE catch-up exceeds its pay).
    for (const f of YTD_MONEY) money(entries, 1, f, ytd[f], '/year_to_date');
    for (const f of YTD_OPTIONAL) if (ytd[f] !== undefined) money(entries, 1, f, ytd[f], '/year_to_date');
    money(entries, 1, 'net', ytd.net, '/year_to_date', true);
    if (!Number.isInteger(ytd.payslips) || ytd.payslips < 0) {
      entries.push({ index: 1, severity: 'error', code: 'invalid_type', detail: 'year_to_date.payslips must be a whole number >= 0.', field: '/year_to_date/payslips' });
    }
  }
  return entries;
}
