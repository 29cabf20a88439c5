/**
 * Column form of a batch of payslip records: one array per field. This is how a batch is
 * journalled and held (batch.ts): arrays of numbers encode and sit in memory far more
 * cheaply than 500 objects with 40 keys each, which is most of what a 100,000-payee calculation
 * costs. Records are rebuilt on read; fromColumns(toColumns(r)) equals r.
 */
import { LINE_ORDER, type PayeeInputs, type PayItem, type YearToDate } from '../engine/index.ts';
import type { PayslipRecord } from './record.ts';
import type { BankAccount } from '../pay-profile.ts';

const MONEY = ['monthly_basic', 'monthly_housing', 'monthly_transport', 'monthly_other_allowances', 'annual_rent_paid', 'annual_life_assurance_premium', 'annual_mortgage_interest'] as const;
const YTD_NUM = ['tax_year', 'payslips', 'gross', 'pension_employee', 'nhf', 'nhia_employee', 'paye', 'net'] as const;
/** Fields of irregular pay; a batch written before them has none (the engine reads their absence). */
const YTD_EXTRA = ['taxable_regular', 'taxable_one_off', 'compensation', 'paye_one_off'] as const;
const TOTALS = ['gross', 'net', 'total_deductions', 'employer_contributions'] as const;

type YtdColumns = Record<(typeof YTD_NUM)[number], number[]> & { last_period: Array<string | null> } & Partial<Record<(typeof YTD_EXTRA)[number], Array<number | null>>> & { regular_through?: Array<string | null | undefined> };

export interface PayslipColumns {
  from: number;
  count: number;
  width: number;
  roster_entry_id: string[];
  pay_profile_id: string[];
  payee_ref: string[];
  /** Each payslip's bank account, null when none; absent when no payslip of the batch had one. */
  bank_account?: Array<BankAccount | null>;
  money: Record<(typeof MONEY)[number], number[]>;
  state_of_residence: string[];
  nhf_contributing: boolean[];
  nhia_enrolled: boolean[];
  pension_administrator: Array<string | null>;
  /** Bit m-1 set when month m is employed. */
  months_employed: number[];
  ytd_before: YtdColumns;
  ytd_after: YtdColumns;
  /** Pay items per payslip, null when none; absent in batches written before irregular pay. */
  items?: Array<PayItem[] | null>;
  /** 0 when the payslip left out the regular pay; absent: every payslip paid it. */
  regular?: number[];
  /** Income month where it differs from the period's; absent: the period's month. */
  income_month?: Array<number | null>;
  /** count x width line amounts, row-major; null where a line does not apply. */
  amounts: Array<number | null>;
  totals: Record<(typeof TOTALS)[number], number[]>;
}

const ytdColumns = (): YtdColumns =>
  ({ ...Object.fromEntries([...YTD_NUM, ...YTD_EXTRA].map((k) => [k, [] as number[]])), last_period: [], regular_through: [] }) as unknown as YtdColumns;

function pushYtd(c: YtdColumns, y: YearToDate): void {
  for (const k of YTD_NUM) c[k].push(y[k]);
  for (const k of YTD_EXTRA) c[k]!.push(y[k] ?? null);
  c.last_period.push(y.last_period);
  c.regular_through!.push(y.regular_through === undefined ? null : y.regular_through);
}

function ytdAt(c: YtdColumns, i: number): YearToDate {
  const y: YearToDate = {
    tax_year: c.tax_year[i], last_period: c.last_period[i], payslips: c.payslips[i], gross: c.gross[i], pension_employee: c.pension_employee[i],
    nhf: c.nhf[i], nhia_employee: c.nhia_employee[i], paye: c.paye[i], net: c.net[i],
  };
  for (const k of YTD_EXTRA) {
    const v = c[k]?.[i];
    if (v !== undefined && v !== null) y[k] = v;
  }
  // regular_through is kept only with the other fields of irregular pay (null is a value then).
  if (c.taxable_regular?.[i] !== undefined && c.taxable_regular[i] !== null) y.regular_through = c.regular_through?.[i] ?? null;
  return y;
}

export function toColumns(records: readonly PayslipRecord[], from: number): PayslipColumns {
  const width = records[0]?.amounts.length ?? 0;
  const c: PayslipColumns = {
    from, count: records.length, width,
    roster_entry_id: [], pay_profile_id: [], payee_ref: [],
    money: Object.fromEntries(MONEY.map((k) => [k, [] as number[]])) as PayslipColumns['money'],
    state_of_residence: [], nhf_contributing: [], nhia_enrolled: [], pension_administrator: [], months_employed: [],
    ytd_before: ytdColumns(), ytd_after: ytdColumns(), amounts: [], items: [], regular: [], income_month: [],
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
    c.items!.push(r.items.length ? r.items : null);
    c.regular!.push(r.regular ? 1 : 0);
    c.income_month!.push(r.income_month);
    pushYtd(c.ytd_before, r.ytd_before);
    pushYtd(c.ytd_after, r.ytd_after);
    for (const a of r.amounts) c.amounts.push(a);
    if (r.bank_account) (c.bank_account ??= new Array<BankAccount | null>(c.payee_ref.length - 1).fill(null)).push(r.bank_account);
    else c.bank_account?.push(null);
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
    ...(c.bank_account?.[i] ? { bank_account: c.bank_account[i]! } : {}),
    payee,
    items: c.items?.[i] ?? [],
    regular: c.regular ? c.regular[i] === 1 : true,
    income_month: c.income_month?.[i] ?? Number(c.ytd_after.last_period[i]!.slice(5, 7)),
    ytd_before: ytdAt(c.ytd_before, i), ytd_after: ytdAt(c.ytd_after, i),
    amounts: padded(c.amounts.slice(i * c.width, (i + 1) * c.width)),
    gross: c.totals.gross[i], net: c.totals.net[i], total_deductions: c.totals.total_deductions[i], employer_contributions: c.totals.employer_contributions[i],
  };
}

/** Amounts of a batch written before later line codes existed, padded with null (line does not apply). */
function padded(a: Array<number | null>): Array<number | null> {
  while (a.length < LINE_ORDER.length) a.push(null);
  return a;
}

export function fromColumns(c: PayslipColumns): PayslipRecord[] {
  const out: PayslipRecord[] = new Array(c.count);
  for (let i = 0; i < c.count; i++) out[i] = recordAt(c, i);
  return out;
}
