/**
 * Column form of a batch of payslip records: one array per field. This is how a batch is
 * journalled and held (batch.ts): arrays of numbers encode and sit in memory far more
 * cheaply than 500 objects with 40 keys each, which is most of what a 100,000-payee calculation
 * costs. Records are rebuilt on read; fromColumns(toColumns(r)) equals r.
 */
import type { PayeeInputs, YearToDate } from '../engine/index.ts';
import type { PayslipRecord } from './record.ts';

const MONEY = ['monthly_basic', 'monthly_housing', 'monthly_transport', 'monthly_other_allowances', 'annual_rent_paid', 'annual_life_assurance_premium', 'annual_mortgage_interest'] as const;
const YTD_NUM = ['tax_year', 'payslips', 'gross', 'pension_employee', 'nhf', 'nhia_employee', 'paye', 'net'] as const;
const TOTALS = ['gross', 'net', 'total_deductions', 'employer_contributions'] as const;

type YtdColumns = Record<(typeof YTD_NUM)[number], number[]> & { last_period: Array<string | null> };

export interface PayslipColumns {
  from: number;
  count: number;
  width: number;
  roster_entry_id: string[];
  pay_profile_id: string[];
  payee_ref: string[];
  money: Record<(typeof MONEY)[number], number[]>;
  state_of_residence: string[];
  nhf_contributing: boolean[];
  nhia_enrolled: boolean[];
  pension_administrator: Array<string | null>;
  /** Bit m-1 set when month m is employed. */
  months_employed: number[];
  ytd_before: YtdColumns;
  ytd_after: YtdColumns;
  /** count x width line amounts, row-major; null where a line does not apply. */
  amounts: Array<number | null>;
  totals: Record<(typeof TOTALS)[number], number[]>;
}

const ytdColumns = (): YtdColumns => ({ ...Object.fromEntries(YTD_NUM.map((k) => [k, [] as number[]])), last_period: [] }) as unknown as YtdColumns;

function pushYtd(c: YtdColumns, y: YearToDate): void {
  for (const k of YTD_NUM) c[k].push(y[k]);
  c.last_period.push(y.last_period);
}

function ytdAt(c: YtdColumns, i: number): YearToDate {
  return {
    tax_year: c.tax_year[i], last_period: c.last_period[i], payslips: c.payslips[i], gross: c.gross[i], pension_employee: c.pension_employee[i],
    nhf: c.nhf[i], nhia_employee: c.nhia_employee[i], paye: c.paye[i], net: c.net[i],
  };
}

export function toColumns(records: readonly PayslipRecord[], from: number): PayslipColumns {
  const width = records[0]?.amounts.length ?? 0;
  const c: PayslipColumns = {
    from, count: records.length, width,
    roster_entry_id: [], pay_profile_id: [], payee_ref: [],
    money: Object.fromEntries(MONEY.map((k) => [k, [] as number[]])) as PayslipColumns['money'],
    state_of_residence: [], nhf_contributing: [], nhia_enrolled: [], pension_administrator: [], months_employed: [],
    ytd_before: ytdColumns(), ytd_after: ytdColumns(), amounts: [],
    totals: Object.fromEntries(TOTALS.map((k) => [k, [] as number[]])) as PayslipColumns['totals'],
  };
  for (const r of records) {
    c.roster_entry_id.push(r.roster_entry_id);
    c.pay_profile_id.push(r.pay_profile_id);
    c.payee_ref.push(r.payee_ref);
    for (const k of MONEY) c.money[k].push(r.payee[k]);
    c.state_of_residence.push(r.payee.state_of_residence);
    c.nhf_contributing.push(r.payee.nhf_contributing);
    c.nhia_enrolled.push(r.payee.nhia_enrolled);
    c.pension_administrator.push(r.payee.pension_administrator ?? null);
    let bits = 0;
    for (const m of r.payee.months_employed) bits |= 1 << (m - 1);
    c.months_employed.push(bits);
    pushYtd(c.ytd_before, r.ytd_before);
    pushYtd(c.ytd_after, r.ytd_after);
    for (const a of r.amounts) c.amounts.push(a);
    for (const k of TOTALS) c.totals[k].push(r[k]);
  }
  return c;
}

export function recordAt(c: PayslipColumns, i: number): PayslipRecord {
  const months: number[] = [];
  for (let m = 1; m <= 12; m++) if (c.months_employed[i] & (1 << (m - 1))) months.push(m);
  const payee: PayeeInputs = {
    monthly_basic: c.money.monthly_basic[i], monthly_housing: c.money.monthly_housing[i], monthly_transport: c.money.monthly_transport[i],
    monthly_other_allowances: c.money.monthly_other_allowances[i], annual_rent_paid: c.money.annual_rent_paid[i],
    annual_life_assurance_premium: c.money.annual_life_assurance_premium[i], annual_mortgage_interest: c.money.annual_mortgage_interest[i],
    state_of_residence: c.state_of_residence[i], nhf_contributing: c.nhf_contributing[i], nhia_enrolled: c.nhia_enrolled[i],
    pension_administrator: c.pension_administrator[i], months_employed: months,
  };
  return {
    n: c.from + i,
    roster_entry_id: c.roster_entry_id[i], pay_profile_id: c.pay_profile_id[i], payee_ref: c.payee_ref[i],
    payee, ytd_before: ytdAt(c.ytd_before, i), ytd_after: ytdAt(c.ytd_after, i),
    amounts: c.amounts.slice(i * c.width, (i + 1) * c.width),
    gross: c.totals.gross[i], net: c.totals.net[i], total_deductions: c.totals.total_deductions[i], employer_contributions: c.totals.employer_contributions[i],
  };
}

export function fromColumns(c: PayslipColumns): PayslipRecord[] {
  const out: PayslipRecord[] = new Array(c.count);
  for (let i = 0; i < c.count; i++) out[i] = recordAt(c, i);
  return out;
}
