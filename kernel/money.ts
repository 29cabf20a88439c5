/**
 * Money (spec 1.3, 2.1): `{ amount: integer minor units, currency: ISO 4217 code }`. Fractions are
 * refused with invalid_money_amount, never rounded. Minor units come from the maintained ISO 4217
 * data of the `currency-codes` package, never an assumed 100; GET /v1/currencies serves the table.
 *
 * The schema marks its amount with `x-money: 'amount'` so the gateway's validator can tell a
 * fractional amount (invalid_money_amount) from any other refused value (validation_failed).
 */
import { createRequire } from 'node:module';
import { FormatRegistry, Type, type TSchema } from '@sinclair/typebox';
import { ApiError, type ValidationEntry, validationReport } from './base/errors.ts';

interface CurrencyCodeRecord {
  code: string;
  number: string;
  digits: number;
  currency: string;
  countries: string[];
}

const require = createRequire(import.meta.url);
const cc = require('currency-codes') as { data: CurrencyCodeRecord[]; publishDate: string };

export interface Currency {
  object: 'currency';
  code: string;
  numeric_code: string;
  name: string;
  /** Minor units per major unit: 10 ** minor_unit_digits. */
  minor_unit_digits: number;
  minor_units_per_major_unit: number;
}

/** ISO 4217 currencies that have a minor unit (fund and metal codes with no digits are left out). */
export const CURRENCIES: readonly Currency[] = cc.data
  .filter((c) => Number.isInteger(c.digits))
  .map((c) => ({
    object: 'currency' as const,
    code: c.code,
    numeric_code: c.number,
    name: c.currency,
    minor_unit_digits: c.digits,
    minor_units_per_major_unit: 10 ** c.digits,
  }))
  .sort((a, b) => (a.code < b.code ? -1 : 1));

/** Publication date of the ISO 4217 list the package carries. */
export const CURRENCY_DATA_PUBLISHED: string = cc.publishDate;

const byCode = new Map(CURRENCIES.map((c) => [c.code, c]));

export const currency = (code: string): Currency | undefined => byCode.get(code);
export const isCurrency = (code: unknown): code is string => typeof code === 'string' && byCode.has(code);

FormatRegistry.Set('iso4217', (v) => byCode.has(v));

/** The money amount schema marker the gateway reads (see file comment). */
export const MONEY_MARK = 'x-money';

/** Money schema. `minimum` bounds the amount (e.g. 0 for a charge); omit for signed amounts. */
export function Money(opts: { minimum?: number; description?: string } = {}): TSchema {
  return Type.Object(
    {
      amount: Type.Integer({
        [MONEY_MARK]: 'amount',
        description: 'Whole number of minor units of the currency (kobo for NGN).',
        ...(opts.minimum !== undefined ? { minimum: opts.minimum } : {}),
      }),
      currency: Type.String({ format: 'iso4217', description: 'ISO 4217 code; minor units from GET /v1/currencies.' }),
    },
    { additionalProperties: false, description: opts.description ?? 'Money: integer minor units and an ISO 4217 currency.' },
  );
}

export interface MoneyValue {
  amount: number;
  currency: string;
}

/**
 * Checks a money value in a handler or decider (for values that did not pass through a route
 * schema). Throws invalid_money_amount for a fraction, validation_failed for anything else.
 */
export function assertMoney(value: unknown, field = '/amount'): asserts value is MoneyValue {
  const v = value as Partial<MoneyValue> | null;
  const entries: ValidationEntry[] = [];
  if (typeof v !== 'object' || v === null) {
    entries.push({ index: 1, severity: 'error', code: 'invalid_type', detail: 'Money must be an object {amount, currency}.', field });
  } else {
    if (typeof v.amount !== 'number' || !Number.isFinite(v.amount)) {
      entries.push({ index: 1, severity: 'error', code: 'invalid_type', detail: 'amount must be an integer count of minor units.', field: `${field}/amount` });
    } else if (!Number.isSafeInteger(v.amount)) {
      const fraction = !Number.isInteger(v.amount);
      entries.push({
        index: 1,
        severity: 'error',
        code: fraction ? 'invalid_money_amount' : 'out_of_range',
        detail: fraction ? `amount ${v.amount} is not a whole number of minor units.` : 'amount is outside the safe integer range.',
        field: `${field}/amount`,
      });
    }
    if (!isCurrency(v.currency)) {
      entries.push({ index: entries.length + 1, severity: 'error', code: 'invalid_currency', detail: `currency ${String(v.currency)} is not an ISO 4217 code.`, field: `${field}/currency` });
    }
  }
  if (entries.length === 0) return;
  const report = validationReport(entries.length, entries);
  if (entries.some((e) => e.code === 'invalid_money_amount')) {
    throw new ApiError('invalid_money_amount', entries.find((e) => e.code === 'invalid_money_amount')!.detail, { validation: report });
  }
  throw new ApiError('validation_failed', entries[0].detail, { validation: report });
}

/** Formats minor units as a decimal string of the major unit, using the currency's digits. */
export function formatMinor(amount: number, code: string): string {
  const c = byCode.get(code);
  if (!c) throw new RangeError(`unknown currency ${code}`);
  if (c.minor_unit_digits === 0) return String(amount);
  const sign = amount < 0 ? '-' : '';
  const abs = Math.abs(amount).toString().padStart(c.minor_unit_digits + 1, '0');
  return `${sign}${abs.slice(0, -c.minor_unit_digits)}.${abs.slice(-c.minor_unit_digits)}`;
}
