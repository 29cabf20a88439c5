/**
 * Schema validation (DESIGN: one schema library for validation and the OpenAPI document).
 * Every failing field is named (spec 2.1 ValidationReport), one entry per JSON pointer, in document
 * order. A fractional money amount anywhere answers invalid_money_amount (spec 2.1, 7) with the
 * same report, so a client learns every other refused field in the same round trip.
 */
import type { TSchema } from '@sinclair/typebox';
import { TypeCompiler, type TypeCheck } from '@sinclair/typebox/compiler';
import { ValueErrorType, type ValueError } from '@sinclair/typebox/errors';
import { Value } from '@sinclair/typebox/value';
import { ApiError, MONEY_MARK, type ValidationEntry, validationReport } from '../kernel/index.ts';

export interface Validator {
  schema: TSchema;
  check: TypeCheck<TSchema>;
  /** Whether an absent query (`{}`) passes: then a request without a query skips conversion. */
  emptyPasses: boolean;
}

export function compile(schema: TSchema): Validator {
  const check = TypeCompiler.Compile(schema);
  return { schema, check, emptyPasses: check.Check({}) };
}

/** Throws validation_failed / invalid_money_amount naming every failing field under `root`. */
export function assertValid(v: Validator, value: unknown, root: '' | '/query' = ''): void {
  if (v.check.Check(value)) return;
  const seen = new Set<string>();
  const entries: ValidationEntry[] = [];
  for (const err of v.check.Errors(value)) {
    const field = `${root}${err.path}` || '/';
    if (seen.has(field)) continue;
    seen.add(field);
    entries.push({ index: entries.length + 1, severity: 'error', code: codeOf(err), detail: detailOf(err, field), field });
  }
  if (entries.length === 0) entries.push({ index: 1, severity: 'error', code: 'invalid_value', detail: 'The value was refused.', field: root || '/' });
  const report = validationReport(entries.length, entries);
  const money = entries.find((e) => e.code === 'invalid_money_amount');
  if (money) throw new ApiError('invalid_money_amount', money.detail, { validation: report });
  throw new ApiError('validation_failed', entries.length === 1 ? entries[0].detail : `${entries.length} values were refused; see validation.entries.`, {
    validation: report,
  });
}

/** Query strings carry text: convert by the schema (limit=25 -> 25), then validate. */
export function parseQuery(v: Validator | undefined, raw: string): unknown {
  if (raw === '' && (v === undefined || v.emptyPasses)) return {};
  const out: Record<string, string | string[]> = {};
  if (raw) {
    for (const [k, val] of new URLSearchParams(raw)) {
      const prev = out[k];
      out[k] = prev === undefined ? val : Array.isArray(prev) ? [...prev, val] : [prev, val];
    }
  }
  if (!v) return out;
  const converted = Value.Convert(v.schema, out);
  assertValid(v, converted, '/query');
  return converted;
}

function codeOf(e: ValueError): string {
  if ((e.schema as Record<string, unknown>)[MONEY_MARK] === 'amount' && typeof e.value === 'number' && !Number.isInteger(e.value)) {
    return 'invalid_money_amount';
  }
  switch (e.type) {
    case ValueErrorType.ObjectRequiredProperty:
      return 'required';
    case ValueErrorType.ObjectAdditionalProperties:
      return 'unknown_field';
    case ValueErrorType.StringFormat:
    case ValueErrorType.StringFormatUnknown:
    case ValueErrorType.StringPattern:
      return 'invalid_format';
    case ValueErrorType.StringMinLength:
    case ValueErrorType.StringMaxLength:
    case ValueErrorType.ArrayMinItems:
    case ValueErrorType.ArrayMaxItems:
      return 'invalid_length';
    case ValueErrorType.IntegerMinimum:
    case ValueErrorType.IntegerMaximum:
    case ValueErrorType.IntegerExclusiveMinimum:
    case ValueErrorType.IntegerExclusiveMaximum:
    case ValueErrorType.NumberMinimum:
    case ValueErrorType.NumberMaximum:
    case ValueErrorType.NumberExclusiveMinimum:
    case ValueErrorType.NumberExclusiveMaximum:
      return 'out_of_range';
    case ValueErrorType.Literal:
    case ValueErrorType.Union:
    case ValueErrorType.ArrayUniqueItems:
      return 'invalid_value';
    default:
      return 'invalid_type';
  }
}

function detailOf(e: ValueError, field: string): string {
  if (e.type === ValueErrorType.ObjectRequiredProperty) return `${field} is required.`;
  if (e.type === ValueErrorType.ObjectAdditionalProperties) return `${field} is not a field of this request.`;
  if (codeOf(e) === 'invalid_money_amount') return `${field} ${String(e.value)} is not a whole number of minor units.`;
  return `${field}: ${e.message}.`;
}
