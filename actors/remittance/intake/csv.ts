/**
 * An instruction set as a CSV file (spec 4.9 POST /v1/remittance/imports, source external_file;
 * the columns are not shown by the spec: docs/gaps.md, "Remittance: intake, authorities,
 * obligations"). RFC 4180: a header row naming the columns (any order), then one row per line:
 *
 *   section                  paye | pension | levy | total (exactly one total row: the file's control total)
 *   jurisdiction             paye: ISO 3166-2:NG State of residence
 *   authority_id             paye: optional, the State IRS's id
 *   administrator_id         pension: the PFA (code, id or official name)
 *   administrator_name       pension: optional
 *   code                     levy: nhf | nsitf | itf | nhia
 *   employee_amount          pension: optional, minor units
 *   employer_amount          pension: optional, minor units
 *   amount                   every row, an integer count of minor units (a fraction is refused)
 *   currency                 ISO 4217 (NGN)
 *   payee_count              optional integer
 *   reconciliation_reference every row but total
 *
 * Every failing row is named in the report (spec 2.1); a file with any failing row makes no set.
 */
import { errorEntry, type MoneyValue, parseCsv, type ValidationEntry } from '../../../kernel/index.ts';
import { LEVY_CODES, type LevyCode } from '../authorities/index.ts';
import type { Lines } from './validate.ts';

export const MAX_CSV_ROWS = 2_000;
export const CSV_COLUMNS = ['section', 'jurisdiction', 'authority_id', 'administrator_id', 'administrator_name', 'code', 'employee_amount', 'employer_amount', 'amount', 'currency', 'payee_count', 'reconciliation_reference'] as const;
type Column = (typeof CSV_COLUMNS)[number];

const INT = /^-?\d+$/;

type Fail = (index: number, code: string, detail: string, field?: string) => void;

/** The header row: the column each name is in; unknown and missing columns are reported on line 1. */
function readHeader(row: string[], fail: Fail): Map<string, number> {
  const header = row.map((h) => h.trim().toLowerCase());
  const col = new Map<string, number>();
  header.forEach((h, i) => col.set(h, i));
  for (const h of header) if (!(CSV_COLUMNS as readonly string[]).includes(h)) fail(1, 'unknown_column', `Column ${h} is not one of ${CSV_COLUMNS.join(', ')}.`);
  for (const required of ['section', 'amount', 'currency'] as const) if (!col.has(required)) fail(1, 'missing_column', `The header has no ${required} column.`);
  return col;
}

/** One body row's cells by column name, read as text, minor units or a count, each failure named with the row's line. */
function rowReader(r: string[], index: number, col: Map<string, number>, fail: Fail) {
  const get = (c: Column): string => (col.has(c) ? (r[col.get(c)!] ?? '').trim() : '');
  const money = (c: Column, required: boolean): MoneyValue | null => {
    const v = get(c);
    if (v === '') {
      if (required) fail(index, 'missing_value', `${c} is required.`, `/${c}`);
      return null;
    }
    if (!INT.test(v)) {
      fail(index, /^-?\d*\.\d+$/.test(v) ? 'invalid_money_amount' : 'invalid_integer', `${c} must be an integer count of minor units; ${JSON.stringify(v)} is not (fractions are refused, never rounded).`, `/${c}`);
      return null;
    }
    const n = Number(v);
    if (!Number.isSafeInteger(n)) {
      fail(index, 'invalid_integer', `${c} is out of range.`, `/${c}`);
      return null;
    }
    return { amount: n, currency: get('currency') || 'NGN' };
  };
  const count = (): number | null => {
    const v = get('payee_count');
    if (v === '') return null;
    if (!/^\d+$/.test(v)) {
      fail(index, 'invalid_integer', 'payee_count must be a whole number.', '/payee_count');
      return null;
    }
    return Number(v);
  };
  return { get, money, count };
}

/**
 * One body row into `lines` (when it has no failure of its own); `entries` is the report so far.
 * Answers whether the row is the total row, so the caller can count them.
 */
function addRow(r: string[], index: number, col: Map<string, number>, lines: Lines, entries: ValidationEntry[], fail: Fail): boolean {
  const { get, money, count } = rowReader(r, index, col, fail);
  const before = entries.length;
  const ref = get('reconciliation_reference');
  const section = get('section').toLowerCase();
  const amount = money('amount', true);
  if (!/^[A-Z]{3}$/.test(get('currency'))) fail(index, 'invalid_currency', 'currency must be an ISO 4217 code such as NGN.', '/currency');
  if (section !== 'total' && ref === '') fail(index, 'missing_value', 'reconciliation_reference is required.', '/reconciliation_reference');
  switch (section) {
    case 'paye': {
      const jurisdiction = get('jurisdiction');
      if (jurisdiction === '') fail(index, 'missing_value', 'jurisdiction is required on a paye row.', '/jurisdiction');
      const payee_count = count();
      if (entries.length === before) lines.paye.push({ authority_id: get('authority_id') || null, jurisdiction, amount: amount!, payee_count, reconciliation_reference: ref });
      return false;
    }
    case 'pension': {
      const administrator_id = get('administrator_id');
      if (administrator_id === '') fail(index, 'missing_value', 'administrator_id is required on a pension row.', '/administrator_id');
      const employee_amount = money('employee_amount', false);
      const employer_amount = money('employer_amount', false);
      const payee_count = count();
      if (entries.length === before) lines.pension.push({ administrator_id, administrator_name: get('administrator_name') || null, employee_amount, employer_amount, amount: amount!, payee_count, reconciliation_reference: ref });
      return false;
    }
    case 'levy': {
      const code = get('code').toLowerCase();
      if (!(LEVY_CODES as readonly string[]).includes(code)) fail(index, 'invalid_levy_code', `code must be one of ${LEVY_CODES.join(', ')}.`, '/code');
      if (entries.length === before) lines.levies.push({ code: code as LevyCode, amount: amount!, reconciliation_reference: ref });
      return false;
    }
    case 'total':
      if (entries.length === before) lines.totals = { total: amount! };
      return true;
    default:
      fail(index, 'invalid_section', `section must be paye, pension, levy or total; got ${JSON.stringify(section)}.`, '/section');
      return false;
  }
}

/** The file's lines, or null with every failing row named: the header first, then each row, then the control total. */
export function linesFromCsv(text: string): { lines: Lines | null; entries: ValidationEntry[]; rowCount: number } {
  const { rows, error } = parseCsv(text);
  const entries: ValidationEntry[] = [];
  const fail: Fail = (index, code, detail, field) => entries.push(errorEntry(field, code, detail, index));
  if (error) fail(rows.length + 1, 'csv_unreadable', error);
  if (rows.length === 0) {
    fail(1, 'csv_empty', 'The file has no header row.');
    return { lines: null, entries, rowCount: 0 };
  }
  const col = readHeader(rows[0], fail);
  const body = rows.slice(1);
  if (body.length > MAX_CSV_ROWS) fail(1, 'too_many_rows', `At most ${MAX_CSV_ROWS} rows; the file has ${body.length}.`);
  if (entries.length) return { lines: null, entries, rowCount: body.length };

  const lines: Lines = { paye: [], pension: [], levies: [], totals: { total: { amount: 0, currency: 'NGN' } } };
  let totals = 0;
  // The file's line number: the header is line 1.
  body.forEach((r, i) => {
    if (addRow(r, i + 2, col, lines, entries, fail)) totals++;
  });
  if (totals !== 1) fail(body.length + 1, 'total_row_count', `The file needs exactly one total row (its control total); it has ${totals}.`);
  return { lines: entries.length ? null : lines, entries, rowCount: body.length };
}
