/** Request schemas of the remit routes (spec 4.9; shapes not shown: docs/gaps.md, "Remittance: remittances, legs, receipts, returns"). */
import { Type } from '@sinclair/typebox';
import { listQueryWith, Money, enumOf } from '../../../kernel/index.ts';
import { LEG_STATUSES } from './leg.ts';
import { REMITTANCE_STATUSES } from './remittance.ts';

const Period = Type.String({ pattern: '^[0-9]{4}-(0[1-9]|1[0-2])$', description: 'YYYY-MM.' });
const Id = (description: string) => Type.String({ minLength: 1, maxLength: 128, description });
const Text = Type.String({ minLength: 1, maxLength: 256 });

export const CreateRemittanceBody = Type.Object({
  instruction_set_id: Id('An accepted ingested instruction set (prefix remit_authority_rail_instruction_).'),
}, { additionalProperties: false });

export const RemittanceListQuery = listQueryWith({
  status: Type.Optional(enumOf(REMITTANCE_STATUSES)),
  period: Type.Optional(Period),
});

export const LegListQuery = listQueryWith({ status: Type.Optional(enumOf(LEG_STATUSES)) });

export const ReceiptBody = Type.Object({
  leg_id: Id('The paid leg the receipt is for (prefix remit_authority_rail_leg_).'),
  document: Type.Optional(Type.String({ minLength: 2, maxLength: 1_000_000, description: 'The authority\u2019s receipt exactly as its sandbox issued it (JSON text); its sha256 is kept with it in the vault.' })),
  fields: Type.Optional(Type.Object({
    authority_id: Type.Optional(Text),
    authority_code: Type.Optional(Text),
    levy: Type.Optional(Text),
    period: Type.Optional(Period),
    amount: Type.Optional(Money({ minimum: 0, description: 'The amount the receipt shows.' })),
    payment_reference: Type.Optional(Text),
    authority_receipt_no: Type.Optional(Text),
    paid_at: Type.Optional(Text),
    channel: Type.Optional(Text),
    payer_tax_id: Type.Optional(Text),
  }, { additionalProperties: false, description: 'The receipt\u2019s fields, when no document is sent.' })),
}, { additionalProperties: false });

export const PeriodQuery = Type.Object({ period: Period }, { additionalProperties: false });

export const ReturnListQuery = listQueryWith({ period: Type.Optional(Type.String({ pattern: '^[0-9]{4}(-(0[1-9]|1[0-2]))?$', description: 'YYYY-MM (monthly schedules) or YYYY (annual returns).' })) });
