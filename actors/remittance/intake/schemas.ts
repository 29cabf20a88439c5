/** Request schemas of the intake routes (spec 2.10, 4.9; bodies not shown: docs/gaps.md, "Remittance: intake, authorities, obligations"). */
import { Type } from '@sinclair/typebox';
import { listQueryWith, Money, enumOf } from '../../../kernel/index.ts';
import { LEVY_CODES } from '../authorities/index.ts';
import { SET_STATUSES } from './instruction-set.ts';
import { MAX_CSV_ROWS } from './csv.ts';

const Period = Type.String({ pattern: '^\\d{4}-(0[1-9]|1[0-2])$', description: 'YYYY-MM.' });
const PayDate = Type.String({ pattern: '^\\d{4}-\\d{2}-\\d{2}$', description: 'The pay date due dates count from (YYYY-MM-DD); the run\u2019s when run_id is given.' });
const Ref = Type.String({ minLength: 1, maxLength: 255 });
const Count = Type.Optional(Type.Union([Type.Integer({ minimum: 0 }), Type.Null()]));
const RunId = Type.Optional(Type.Union([Type.String({ minLength: 1, maxLength: 128, pattern: '^run_enterprise_[0-9A-Za-z]+$' }), Type.Null()]));

export const InstructionsBody = Type.Object({
  paye: Type.Array(Type.Object({
    authority_id: Type.Optional(Type.Union([Type.String({ minLength: 1, maxLength: 128 }), Type.Null()])),
    jurisdiction: Type.String({ minLength: 1, maxLength: 16, description: 'ISO 3166-2:NG State of residence (fixed on 1 January).' }),
    amount: Money({}),
    payee_count: Count,
    reconciliation_reference: Ref,
  }, { additionalProperties: false }), { maxItems: 200 }),
  pension: Type.Array(Type.Object({
    administrator_id: Type.String({ minLength: 1, maxLength: 255, description: 'The PFA: its code, authority id or official name.' }),
    administrator_name: Type.Optional(Type.Union([Type.String({ maxLength: 255 }), Type.Null()])),
    employee_amount: Type.Optional(Type.Union([Money({}), Type.Null()])),
    employer_amount: Type.Optional(Type.Union([Money({}), Type.Null()])),
    amount: Money({}),
    payee_count: Count,
    reconciliation_reference: Ref,
  }, { additionalProperties: false }), { maxItems: 200 }),
  levies: Type.Array(Type.Object({
    code: enumOf(LEVY_CODES),
    amount: Money({}),
    reconciliation_reference: Ref,
  }, { additionalProperties: false }), { maxItems: 20 }),
  totals: Type.Object({ total: Money({}) }, { additionalProperties: false }),
}, { additionalProperties: false });

export const SubmitBody = Type.Object({
  period: Period,
  run_id: RunId,
  pay_date: Type.Optional(PayDate),
  instructions: InstructionsBody,
}, { additionalProperties: false });

export const ImportBody = Type.Object({
  format: Type.Literal('csv'),
  csv: Type.String({ minLength: 1, maxLength: 2_000_000, description: `The file, RFC 4180, at most ${MAX_CSV_ROWS} rows; columns in docs/gaps.md.` }),
  period: Period,
  run_id: RunId,
  pay_date: Type.Optional(PayDate),
}, { additionalProperties: false });

export const SetListQuery = listQueryWith({
  status: Type.Optional(enumOf(SET_STATUSES)),
  period: Type.Optional(Period),
});

export const OverrideBody = Type.Object({
  reason_code: Type.String({ minLength: 1, maxLength: 64, description: 'One of the published override reason codes (GET /v1/remittance/reason_codes).' }),
  note: Type.Optional(Type.Union([Type.String({ maxLength: 1000 }), Type.Null()])),
}, { additionalProperties: false });

export const RejectBody = Type.Object({ reason: Type.Optional(Type.Union([Type.String({ maxLength: 1000 }), Type.Null()])) }, { additionalProperties: false });
