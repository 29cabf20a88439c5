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

/**
 * Throws validation_failed / invalid_money_amount naming every failing field under `root`.
 * `refused` are entries the caller found itself (strict query numbers); the schema's own errors at
 * those fields are left out, so each field is named once.
 */
export function assertValid(v: Validator, value: unknown, root: '' | '/query' = '', refused: readonly ValidationEntry[] = []): void {
  if (refused.length === 0 && v.check.Check(value)) return;
  const seen = new Set<string>(refused.map((e) => e.field ?? ''));
  const entries: ValidationEntry[] = refused.map((e, i) => ({ ...e, index: i + 1 }));
  for (const err of refusals(v.check.Errors(value))) {
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

/**
 * The errors a client can act on. A union that is not an enumeration (a nullable object, a field
 * taking an object or a list) says only "Expected union value"; its refusal is the one of the
 * variant the value was meant for (the only one of the value's JSON type, else the one with the
 * fewest errors), so an enumerated field inside it is still refused naming its values
 * (docs/gaps.md "Enumerated values").
 */
function* refusals(errors: Iterable<ValueError>): Generator<ValueError> {
  for (const err of errors) {
    if (err.type !== ValueErrorType.Union || allowedValues(err.schema) !== undefined) {
      yield err;
      continue;
    }
    const variant = meantVariant(err);
    if (variant) yield* refusals(variant);
    else yield err;
  }
}

/** The errors of the variant of a refused union the value was meant for; undefined when none can be told. */
function meantVariant(err: ValueError): ValueError[] | undefined {
  const variants = (err.schema as { anyOf?: TSchema[] }).anyOf ?? [];
  const kind = jsonType(err.value);
  const sameType = variants.map((s, i) => ({ s, i })).filter(({ s }) => schemaTypes(s).includes(kind));
  if (sameType.length === 0) return undefined;
  let best: ValueError[] | undefined;
  for (const { i } of sameType) {
    const errs = [...err.errors[i]];
    if (errs.length > 0 && (best === undefined || errs.length < best.length)) best = errs;
  }
  return best;
}

function jsonType(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  return typeof value === 'number' ? 'number' : typeof value;
}

/** The JSON types a schema accepts (a literal's by its value; a union's by its members). */
function schemaTypes(schema: TSchema): string[] {
  const s = schema as { type?: string | string[]; const?: unknown; anyOf?: TSchema[] };
  if (s.anyOf) return s.anyOf.flatMap(schemaTypes);
  if ('const' in s) return [jsonType(s.const)];
  if (s.type === 'integer') return ['number'];
  return s.type === undefined ? [] : Array.isArray(s.type) ? s.type : [s.type];
}

/**
 * Query strings carry text: numbers are read strictly (readNumbers), the rest converted by the
 * schema, then the whole validated.
 */
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
  const refused = readNumbers(v.schema, out);
  const converted = Value.Convert(v.schema, out);
  assertValid(v, converted, '/query', refused);
  return converted;
}

/**
 * The only text read as a number (docs/gaps.md#gateway): plain decimal digits with an optional
 * leading minus, no leading zero, and for a `number` field an optional fraction after a point.
 * No sign `+`, space, exponent, base prefix (0x), Infinity or empty value: such text is refused
 * rather than read as something the client did not write (`limit=1.5` is not 1).
 */
const DECIMAL_INTEGER = /^-?(0|[1-9][0-9]*)$/;
const DECIMAL_NUMBER = /^-?(0|[1-9][0-9]*)(\.[0-9]+)?$/;

/** How much of a refused value a message repeats. */
const ECHO_MAX = 40;

/**
 * Replaces, in place, the text of every integer and number field of a query schema by its value;
 * a field whose text is not a plain decimal in range is removed and returned as a refusal (the
 * schema converter would otherwise read it loosely).
 */
function readNumbers(schema: TSchema, query: Record<string, unknown>): ValidationEntry[] {
  const props = (schema as { properties?: Record<string, TSchema> }).properties;
  const refused: ValidationEntry[] = [];
  if (!props) return refused;
  for (const key of Object.keys(query)) {
    const type = props[key]?.type;
    if (type !== 'integer' && type !== 'number') continue;
    const text = query[key];
    const field = `/query/${key}`;
    const refuse = (code: string, detail: string) => {
      delete query[key];
      refused.push({ index: refused.length + 1, severity: 'error', code, detail, field });
    };
    if (typeof text !== 'string') {
      refuse('invalid_type', `${field} must be given once.`);
      continue;
    }
    const echo = JSON.stringify(text.length > ECHO_MAX ? `${text.slice(0, ECHO_MAX)}...` : text);
    const plain = type === 'integer' ? DECIMAL_INTEGER : DECIMAL_NUMBER;
    if (!plain.test(text)) {
      refuse('invalid_type', `${field} must be ${type === 'integer' ? 'an integer' : 'a number'} written in plain decimal digits; got ${echo}.`);
      continue;
    }
    const n = Number(text);
    if (type === 'integer' ? !Number.isSafeInteger(n) : !Number.isFinite(n)) {
      refuse('out_of_range', `${field} is beyond the numbers this API reads; got ${echo}.`);
      continue;
    }
    query[key] = n;
  }
  return refused;
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
  const allowed = e.type === ValueErrorType.Union || e.type === ValueErrorType.Literal ? allowedValues(e.schema) : undefined;
  if (allowed) return `${field} must be one of ${allowed.map((v) => JSON.stringify(v)).join(', ')}; ${shown(e.value)} is not.`;
  return `${field}: ${e.message}.`;
}

/** A refused value as a refusal quotes it: JSON, cut short so a long value never fills the answer. */
function shown(value: unknown): string {
  const json = JSON.stringify(value) ?? 'nothing';
  return json.length > 40 ? `${json.slice(0, 40)}...` : json;
}

/**
 * An enumeration's values, so a refusal names what is allowed: a literal, or a union of literals,
 * of nested unions of literals (an enumeration joined with another) and of null (a nullable
 * enumeration names null among them); undefined for any other schema.
 */
export function allowedValues(schema: TSchema): unknown[] | undefined {
  const s = schema as { const?: unknown; type?: unknown; anyOf?: TSchema[] };
  if (s.anyOf === undefined) return 'const' in s ? [s.const] : undefined;
  const out: unknown[] = [];
  for (const m of s.anyOf) {
    const inner = (m as { type?: unknown }).type === 'null' && !('const' in m) ? [null] : allowedValues(m);
    if (inner === undefined) return undefined;
    for (const v of inner) if (!out.includes(v)) out.push(v);
  }
  return out.some((v) => v !== null) ? out : undefined;
}
