/** Request schemas of the payouts routes (spec 2.11, 4.10; shapes not shown: docs/gaps.md#payouts). */
import { Type } from '@sinclair/typebox';
import { enumOf, listQueryWith, Money } from '../../kernel/index.ts';
import { INSTRUCTION_STATUSES } from './instruction.ts';
import { PAYOUT_STATUSES } from './payout.ts';

export const SignedInstructionBody = Type.Object({
  object: Type.Optional(Type.Literal('signed_payout_instruction')),
  algorithm: Type.Literal('ed25519', { description: 'Signature algorithm of the producing area.' }),
  key_id: Type.String({ minLength: 1, maxLength: 128, description: 'The producing area\u2019s signing key id.' }),
  document: Type.String({ minLength: 2, maxLength: 64_000_000, description: 'The exact signed bytes (UTF-8 JSON) as payroll or remittance produced them.' }),
  signature: Type.String({ minLength: 1, maxLength: 256, description: 'Base64 signature over document.' }),
}, { additionalProperties: false });

export const InstructionListQuery = listQueryWith({
  status: Type.Optional(enumOf(INSTRUCTION_STATUSES)),
  run_id: Type.Optional(Type.String({ minLength: 1, maxLength: 128 })),
});

const RailId = Type.String({ minLength: 1, maxLength: 64, pattern: '^route_multi_rail_rail_[a-z_]+$' });
const PlanFields = {
  primary_rail_id: Type.Optional(RailId),
  fallback_rail_ids: Type.Optional(Type.Array(RailId, { minItems: 1, maxItems: 8, uniqueItems: true })),
  max_attempts: Type.Optional(Type.Integer({ minimum: 1, maximum: 10 })),
};
export const PlanBody = Type.Object(PlanFields, { additionalProperties: false });
export const RoutePlanBody = Type.Object({ instruction_id: Type.String({ minLength: 1, maxLength: 128 }), ...PlanFields }, { additionalProperties: false });
export const RoutePlanListQuery = listQueryWith({ instruction_id: Type.Optional(Type.String({ minLength: 1, maxLength: 128 })) });

export const ReasonBody = Type.Object({ reason: Type.String({ minLength: 1, maxLength: 500 }) }, { additionalProperties: false });
export const PayoutListQuery = listQueryWith({
  instruction_id: Type.Optional(Type.String({ minLength: 1, maxLength: 128 })),
  status: Type.Optional(enumOf(PAYOUT_STATUSES)),
});
export const SettlementBody = Type.Object({ instruction_id: Type.String({ minLength: 1, maxLength: 128 }) }, { additionalProperties: false });
export const ByInstructionQuery = listQueryWith({ instruction_id: Type.Optional(Type.String({ minLength: 1, maxLength: 128 })) });
export const DepositBody = Type.Object({ amount: Money({ minimum: 1, description: 'Sandbox deposit, in minor units.' }) }, { additionalProperties: false });
