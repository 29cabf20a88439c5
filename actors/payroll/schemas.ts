/**
 * Response schemas of the payroll routes, for the OpenAPI document: each says what the view code
 * returns (test/payroll/openapi.responses.test.ts checks real responses against them). Strict
 * (additionalProperties false) so a field added to a view without its schema is caught. Shapes the
 * spec does not show are gaps (docs/gaps.md#payroll).
 */
import { Type, type TSchema } from '@sinclair/typebox';
import { CALLER_REF_PATTERN, enumOf, ListEnvelopeSchema, NextActionSchema } from '../../kernel/index.ts';
import { PAY_ITEM_CODES } from './engine/index.ts';
import { RUN_STATUSES, RUN_TYPES } from './runs/run.ts';

const strict = <T extends Record<string, TSchema>>(props: T, description?: string) => Type.Object(props, { additionalProperties: false, ...(description ? { description } : {}) });
const Nullable = (s: TSchema) => Type.Union([s, Type.Null()]);
const Timestamp = Type.String({ format: 'date-time' });
const Money = strict({ amount: Type.Integer(), currency: Type.String({ pattern: '^[A-Z]{3}$' }) });
const Period = Type.String({ pattern: '^\\d{4}-(0[1-9]|1[0-2])$' });
const Record_ = { livemode: Type.Boolean(), mocked: Type.Boolean() };

export const RulePackReferenceSchema = strict({ pack_id: Type.Literal('ng-payroll'), version: Type.String(), content_hash: Type.String({ pattern: '^sha256:[0-9a-f]{64}$' }) });

export const RunTotalsSchema = strict({ gross: Money, net: Money, total_deductions: Money, employer_contributions: Money, payslip_count: Type.Integer({ minimum: 0 }) });

const Components = strict({ basic: Money, housing: Money, transport: Money, other_allowances: Money });

export const RunSchema = strict({
  id: Type.String({ pattern: '^run_enterprise_' }),
  object: Type.Literal('payroll_run'),
  ...Record_,
  status: enumOf(RUN_STATUSES),
  run_type: enumOf(RUN_TYPES),
  period: Period,
  payee_count: Type.Integer({ minimum: 0 }),
  rule_pack: RulePackReferenceSchema,
  totals: RunTotalsSchema,
  prepared_by: Type.Union([Type.String(), Type.Null()], { description: 'The person behind the submitting credential: an account id, or an operator-issued OAuth client id.' }),
  approved_by: Type.Union([Type.String(), Type.Null()], { description: 'The person behind the approving credential.' }),
  prepared_with: Type.Union([Type.String(), Type.Null()], { description: 'The credential used to submit (api key id, OAuth client id or account id).' }),
  approved_with: Type.Union([Type.String(), Type.Null()]),
  created_at: Timestamp,
  executed_at: Nullable(Timestamp),
  pay_date: Type.String({ format: 'date' }),
  description: Nullable(Type.String()),
  payee_refs: Nullable(Type.Array(Type.String())),
  corrects_run_id: Nullable(Type.String()),
  items: Type.Array(strict({ payee_ref: Type.String(), code: enumOf(PAY_ITEM_CODES), amount: Money, components: Type.Optional(Components) })),
  employer_settings: Nullable(strict({
    headcount: Nullable(Type.Integer({ minimum: 0 })),
    headcount_used: Type.Integer({ minimum: 0 }),
    turnover_50m_or_more: Type.Boolean(),
    state: Nullable(Type.String()),
    maker_checker_threshold: Money,
    assumed: Type.Boolean({ description: 'True when nobody had given the settings; a p1 finding names the values assumed.' }),
  }, 'The employer settings the calculation used; null before one.')),
  open_findings: strict({ p0: Type.Integer(), p1: Type.Integer(), p2: Type.Integer(), p3: Type.Integer() }),
  instruction_set_id: Nullable(Type.String()),
  ledger_posting_id: Nullable(Type.String()),
  reversal_posting_id: Nullable(Type.String()),
  next_action: NextActionSchema,
});
export const RunListSchema = ListEnvelopeSchema(RunSchema);

export const FindingSchema = strict({
  id: Type.String({ pattern: '^finding_' }),
  object: Type.Literal('payroll_finding'),
  ...Record_,
  run_id: Type.String(),
  severity: enumOf(['p0', 'p1', 'p2', 'p3']),
  code: Type.String(),
  detail: Type.String(),
  payslip_id: Nullable(Type.String()),
  payee_ref: Nullable(Type.String()),
  status: enumOf(['open', 'resolved']),
  raised_at: Timestamp,
  resolution: Nullable(strict({ reason: Type.String(), resolved_by: Nullable(Type.String()), resolved_at: Timestamp })),
});
export const FindingListSchema = ListEnvelopeSchema(FindingSchema);

const Trace = strict({
  formula: Type.String(),
  inputs: Type.Record(Type.String(), Type.String()),
  exact: Type.String({ description: 'Exact value before rounding, kobo: a decimal or a reduced rational.' }),
  rounding: Type.Literal('half_up_per_line_kobo'),
  rule_pack_version: Type.String(),
});

export const PayslipSchema = strict({
  id: Type.String({ pattern: '^payslip_' }),
  object: Type.Literal('payslip'),
  ...Record_,
  run_id: Type.String(),
  period: Period,
  status: enumOf(['calculated', 'final', 'issued', 'void']),
  payee_ref: Type.String(),
  pay_profile_id: Type.String(),
  roster_entry_id: Type.String(),
  regular_pay: Type.Boolean({ description: 'Whether the payslip pays the month\'s regular pay (a bonus or off-cycle payslip does not).' }),
  income_period: Type.String({ description: 'The month whose income it is: the period, or for pay after the exit the last month of employment (NTA s.26(2)(b)).' }),
  lines: Type.Array(strict({ code: Type.String(), label: Type.String(), category: enumOf(['earning', 'deduction', 'employer_contribution']), amount: Money, trace: Trace })),
  gross: Money,
  net: Money,
  total_deductions: Money,
  employer_contributions: Money,
  year_to_date: strict({
    tax_year: Type.Integer(), last_period: Nullable(Period), payslips: Type.Integer(),
    gross: Money, pension_employee: Money, nhf: Money, nhia_employee: Money, paye: Money, net: Money,
    taxable_regular: Money, taxable_one_off: Money, compensation: Money, paye_one_off: Money,
    regular_through: Nullable(Period),
  }),
  rule_pack: RulePackReferenceSchema,
  issued_at: Nullable(Timestamp),
});
export const PayslipListSchema = ListEnvelopeSchema(PayslipSchema);

const Difference = strict({ code: Type.String(), recorded: Type.Integer(), recomputed: Type.Integer() });

export const ReplaySchema = strict({
  object: Type.Literal('payslip_replay'), ...Record_, payslip_id: Type.String(), identical: Type.Boolean(),
  differences: Type.Array(Difference), rule_pack: RulePackReferenceSchema, replayed_from: Type.String(),
});

export const ExplanationSchema = strict({ object: Type.Literal('payslip_explanation'), ...Record_, payslip_id: Type.String(), sentences: Type.Array(Type.String()) });

export const SimulationSchema = strict({
  object: Type.Literal('run_simulation'), ...Record_, run_id: Type.String(), totals: RunTotalsSchema, wrote_records: Type.Literal(false),
  rule_pack: RulePackReferenceSchema, pinned_rule_pack: RulePackReferenceSchema, payees_refused: Type.Integer({ minimum: 0 }),
  difference_count: Type.Integer({ minimum: 0 }),
  differences: Type.Array(strict({ payslip_id: Nullable(Type.String()), payee_ref: Type.String(), differences: Type.Array(Difference) })),
});

const Due = Type.Union([Type.String({ format: 'date' }), Type.Null()], { description: 'Remittance due date for the run\'s pay date (reference 8); null where the levy does not apply or the pack gives no date.' });
export const InstructionSetSchema = strict({
  id: Type.String({ pattern: '^instruction_set_' }),
  object: Type.Literal('instruction_set'),
  ...Record_,
  run_id: Type.String(),
  period: Period,
  paye: Type.Array(strict({ authority_id: Type.String({ pattern: '^remit_authority_rail_obligation_' }), jurisdiction: Type.String(), authority_name: Type.String(), amount: Money, payee_count: Type.Integer(), due_date: Due, reconciliation_reference: Type.String() })),
  pension: Type.Array(strict({ administrator_id: Type.String(), employee_amount: Money, employer_amount: Money, amount: Money, due_date: Due, reconciliation_reference: Type.String() })),
  levies: Type.Array(strict({ code: enumOf(['nhf', 'nsitf', 'itf', 'nhia']), amount: Money, due_date: Due, reconciliation_reference: Type.String() })),
  totals: strict({ total: Money }),
});

const ValidationEntrySchema = strict({ index: Type.Integer({ minimum: 1 }), severity: enumOf(['error', 'warning']), code: Type.String(), detail: Type.String(), field: Type.Optional(Type.String()) });
const ValidationReportSchema = strict({ entry_count: Type.Integer({ minimum: 0 }), error_count: Type.Integer({ minimum: 0 }), warning_count: Type.Integer({ minimum: 0 }), entries: Type.Optional(Type.Array(ValidationEntrySchema)) });

export const ImportSchema = strict({
  id: Type.String({ pattern: '^payroll_import_' }),
  object: Type.Literal('payroll_import'),
  ...Record_,
  status: enumOf(['completed', 'rejected']),
  format: enumOf(['json', 'csv']),
  validation: ValidationReportSchema,
  employer_configured: Type.Boolean(),
  created: strict({ pay_profiles: Type.Integer(), roster_entries: Type.Integer() }),
  rows: Type.Array(strict({ index: Type.Integer({ minimum: 1, description: 'The row position in the submission.' }), payee_ref: Type.String(), pay_profile_id: Type.String(), roster_entry_id: Type.String() })),
  created_at: Timestamp,
});

export const EmployerSettingsSchema = strict({
  object: Type.Literal('payroll_employer_settings'),
  ...Record_,
  configured: Type.Boolean({ description: 'False until the settings are given (PATCH or an import\'s employer block); runs then raise employer_settings_assumed.' }),
  headcount: Nullable(Type.Integer({ minimum: 0 })),
  turnover_50m_or_more: Type.Boolean(),
  state: Nullable(Type.String()),
  maker_checker_threshold: Money,
  updated_at: Nullable(Timestamp),
});

export const PayProfileSchema = strict({
  id: Type.String({ pattern: '^pay_profile_' }),
  object: Type.Literal('pay_profile'),
  ...Record_,
  payee_ref: Type.String(),
  name: Nullable(Type.String()),
  monthly_basic: Money, monthly_housing: Money, monthly_transport: Money, monthly_other_allowances: Money,
  annual_rent_paid: Money, annual_life_assurance_premium: Money, annual_mortgage_interest: Money,
  state_of_residence: Type.String({ description: 'The State of residence now; a run routes PAYE by the State in force on 1 January of its tax year (state_of_residence_history).' }),
  state_of_residence_history: Type.Array(strict({
    state_of_residence: Type.String(),
    since: Nullable(Type.String({ format: 'date', description: 'The day from which it holds; null for the State the profile was created with.' })),
  }, 'A State of residence and the day from which it holds, oldest first.')),
  nhf_contributing: Type.Boolean(),
  nhia_enrolled: Type.Boolean(),
  pension_administrator: Nullable(Type.String()),
  bank_account: Nullable(strict({
    bank_code: Type.String({ description: '3-digit (bank) or 5-digit (other institution) CBN code.' }),
    account_number_last4: Type.String({ description: 'The account number masked but for its last four digits.' }),
    account_name: Nullable(Type.String()),
  }, 'Where net pay is paid; signed into the run\'s payout instruction (docs/gaps.md#payouts).')),
  created_at: Timestamp,
  updated_at: Timestamp,
});

export const PayProfileListSchema = ListEnvelopeSchema(PayProfileSchema);

export const RosterEntrySchema = strict({
  id: Type.String({ pattern: '^roster_entry_' }),
  object: Type.Literal('roster_entry'),
  ...Record_,
  payee_ref: Type.String(),
  pay_profile_id: Type.String(),
  starts_on: Type.String({ format: 'date' }),
  ends_on: Nullable(Type.String({ format: 'date' })),
  created_at: Timestamp,
  updated_at: Timestamp,
});

export const GlExportSchema = strict({ id: Type.String({ pattern: '^gl_export_' }), object: Type.Literal('gl_export'), ...Record_, run_id: Type.String(), format: Type.Literal('csv'), created_at: Timestamp });

/**
 * One import row, for the OpenAPI document only: rows are checked by the import itself, every
 * failing field of every row named in the import's ValidationReport (a rejected import, 201), not
 * refused by the gateway with a 400. So the row is an Unknown to the gateway's validator, with the
 * row's JSON Schema written beside it.
 */
const MoneyDoc = { type: 'object', properties: { amount: { type: 'integer' }, currency: { type: 'string', enum: ['NGN'] } }, required: ['amount', 'currency'] };
export const ImportRowDoc = Type.Unknown({
  type: 'object',
  description: 'A payee: pay profile and roster entry. Checked row by row into the import\'s ValidationReport (not a 400).',
  required: ['payee_ref', 'monthly_basic', 'state_of_residence', 'starts_on'],
  properties: {
    payee_ref: { type: 'string', minLength: 1, maxLength: 255, pattern: CALLER_REF_PATTERN, description: 'Your reference for the payee; unique in the organisation.' },
    name: { type: ['string', 'null'], maxLength: 255 },
    monthly_basic: MoneyDoc, monthly_housing: MoneyDoc, monthly_transport: MoneyDoc, monthly_other_allowances: MoneyDoc,
    annual_rent_paid: MoneyDoc, annual_life_assurance_premium: MoneyDoc, annual_mortgage_interest: MoneyDoc,
    state_of_residence: { type: 'string', pattern: '^NG-[A-Z]{2}$', description: 'ISO 3166-2:NG code of the State (or FCT) of residence on 1 January.' },
    nhf_contributing: { type: 'boolean' },
    nhia_enrolled: { type: 'boolean' },
    pension_administrator: { type: ['string', 'null'] },
    bank_account: {
      type: ['object', 'null'], additionalProperties: false, required: ['bank_code', 'account_number'],
      description: 'Where net pay is paid; signed into the run\'s payout instruction. In CSV: bank_code, account_number, account_name columns.',
      properties: { bank_code: { type: 'string', pattern: '^(\\d{3}|\\d{5})$' }, account_number: { type: 'string', pattern: '^\\d{10}$' }, account_name: { type: ['string', 'null'], maxLength: 255 } },
    },
    starts_on: { type: 'string', format: 'date' },
    ends_on: { type: ['string', 'null'], format: 'date' },
  },
});
