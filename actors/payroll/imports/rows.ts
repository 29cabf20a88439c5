/**
 * Rows of a payee import (POST /v1/payroll/imports; the body is a gap, docs/gaps.md#payroll):
 * JSON rows with Money objects, or CSV with integer kobo columns. Every failing field of every row
 * is named (spec 2.1 ValidationReport); a fractional amount is invalid_money_amount, never rounded.
 */
import { CALLER_REF_RULE, errorEntry, isCallerRef, parseCsv, type ValidationEntry } from '../../../kernel/index.ts';
import { bankAccountOf, checkBankAccount, checkProfileInputs, type BankAccount, type ProfileInputs } from '../pay-profile.ts';
import { checkDates } from '../roster-entry.ts';

export interface ImportRow {
  payee_ref: string;
  name: string | null;
  inputs: ProfileInputs;
  bank_account: BankAccount | null;
  starts_on: string;
  ends_on: string | null;
}

export const MONEY_COLUMNS = [
  'monthly_basic', 'monthly_housing', 'monthly_transport', 'monthly_other_allowances',
  'annual_rent_paid', 'annual_life_assurance_premium', 'annual_mortgage_interest',
] as const;

export const CSV_COLUMNS = [
  'payee_ref', 'name', ...MONEY_COLUMNS, 'currency', 'state_of_residence', 'nhf_contributing', 'nhia_enrolled',
  'pension_administrator', 'starts_on', 'ends_on',
  // Where pay goes, the one payee field (docs/gaps.md#payroll): all three empty, or bank_code and account_number given.
  'bank_code', 'account_number', 'account_name',
] as const;

/** Where pay goes is one field, bank_account, in imports, pay profiles and payouts (docs/gaps.md#payroll). */
export const BANK_IDENTIFIER_REPLACED = 'bank_identifier is ignored: where pay goes is bank_account {bank_code, account_number, account_name?} (in CSV the bank_code, account_number and account_name columns).';

const REQUIRED_CSV = ['payee_ref', 'monthly_basic', 'state_of_residence', 'starts_on'];

type Raw = Record<string, unknown>;

/** CSV text -> raw rows in the JSON row shape (money as {amount, currency}), plus header problems. */
export function csvRows(text: string): { rows: Raw[]; entries: ValidationEntry[] } {
  const { rows: all, error } = parseCsv(text);
  const entries: ValidationEntry[] = error ? [errorEntry('/csv', 'csv_unreadable', error)] : [];
  if (all.length === 0) return { rows: [], entries: [errorEntry('/csv', 'empty_file', 'The CSV has no header row.')] };
  const header = all[0].map((h) => h.trim());
  for (const c of REQUIRED_CSV) if (!header.includes(c)) entries.push(errorEntry('/csv', 'missing_column', `The CSV header has no ${c} column.`));
  for (const h of header) {
    if (h === 'bank_identifier') entries.push({ ...errorEntry('/csv', 'field_ignored', BANK_IDENTIFIER_REPLACED), severity: 'warning' });
    else if (!(CSV_COLUMNS as readonly string[]).includes(h)) entries.push(errorEntry('/csv', 'unknown_column', `Unknown CSV column ${h}.`));
  }
  if (entries.some((e) => e.severity === 'error')) return { rows: [], entries };
  const rows = all.slice(1).map((cells) => {
    const o: Raw = {};
    header.forEach((h, i) => (o[h] = cells[i] ?? ''));
    const currency = (o.currency as string) || 'NGN';
    for (const m of MONEY_COLUMNS) {
      const v = (o[m] as string | undefined)?.trim() ?? '';
      o[m] = v === '' ? undefined : { amount: /^-?\d+(\.\d+)?$/.test(v) ? Number(v) : v, currency };
    }
    for (const b of ['nhf_contributing', 'nhia_enrolled']) {
      const v = String(o[b] ?? '').trim().toLowerCase();
      o[b] = v === '' ? undefined : v === 'true' ? true : v === 'false' ? false : v;
    }
    for (const k of ['name', 'pension_administrator', 'ends_on']) if (o[k] === '') o[k] = null;
    const [bank_code, account_number, account_name] = [o.bank_code, o.account_number, o.account_name].map((v) => (typeof v === 'string' ? v.trim() : ''));
    if (bank_code || account_number || account_name) o.bank_account = { bank_code, account_number, ...(account_name ? { account_name } : {}) };
    delete o.bank_code;
    delete o.account_number;
    delete o.account_name;
    delete o.currency;
    delete o.bank_identifier;
    return o;
  });
  return { rows, entries };
}

/** One raw row -> ImportRow, or the entries naming its every failing field. */
export function normaliseRow(raw: unknown, index: number): { row?: ImportRow; entries: ValidationEntry[] } {
  const entries: ValidationEntry[] = [];
  const at = `/rows/${index - 1}`;
  const bad = (field: string, code: string, detail: string) => entries.push(errorEntry(`${at}/${field}`, code, detail, index));
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) {
    bad('', 'invalid_type', 'A row must be an object.');
    return { entries };
  }
  const r = raw as Raw;
  // one rule for every caller reference (kernel/caller-ref.ts), as for subject_ref and worker_id
  if (!isCallerRef(r.payee_ref)) bad('payee_ref', 'invalid_payee_ref', `payee_ref must be ${CALLER_REF_RULE}.`);
  const amounts: Record<string, unknown> = {};
  for (const m of MONEY_COLUMNS) {
    const v = r[m] as { amount?: unknown; currency?: unknown } | undefined;
    if (v === undefined || v === null) {
      amounts[m] = 0;
      if (m === 'monthly_basic') bad(m, 'required', 'monthly_basic is required.');
      continue;
    }
    if (typeof v !== 'object') {
      bad(m, 'invalid_type', `${m} must be Money {amount, currency}.`);
      continue;
    }
    if (v.currency !== 'NGN') bad(`${m}/currency`, 'unsupported_currency', `${m} must be in NGN, the rule pack's currency.`);
    amounts[m] = v.amount;
  }
  const inputs = {
    ...amounts,
    state_of_residence: r.state_of_residence,
    nhf_contributing: r.nhf_contributing ?? false,
    nhia_enrolled: r.nhia_enrolled ?? false,
    pension_administrator: r.pension_administrator ?? null,
  } as ProfileInputs;
  for (const e of checkProfileInputs(inputs, index, at)) {
    entries.push(e.field?.endsWith(`/${e.field.split('/').pop()}`) && MONEY_COLUMNS.includes(e.field.split('/').pop() as never) ? { ...e, field: `${e.field}/amount` } : e);
  }
  if (r.name !== undefined && r.name !== null && typeof r.name !== 'string') bad('name', 'invalid_type', 'name must be a string.');
  // Accepted and ignored with a warning, so an import written for the old field still loads its payees.
  if (r.bank_identifier !== undefined) entries.push({ ...errorEntry(`${at}/bank_identifier`, 'field_ignored', BANK_IDENTIFIER_REPLACED, index), severity: 'warning' });
  entries.push(...checkBankAccount(r.bank_account, index, `${at}/bank_account`));
  entries.push(...checkDates(r.starts_on, r.ends_on ?? null, index, at));
  if (entries.some((e) => e.severity === 'error')) return { entries };
  return {
    entries,
    row: {
      payee_ref: r.payee_ref as string,
      name: (r.name as string | null | undefined) ?? null,
      inputs,
      bank_account: bankAccountOf(r.bank_account as BankAccount | null | undefined),
      starts_on: r.starts_on as string,
      ends_on: (r.ends_on as string | null | undefined) ?? null,
    },
  };
}
