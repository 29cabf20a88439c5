/**
 * What a waiting record waits for (docs/gaps.md "next_action"): a record that cannot move on by
 * itself carries `next_action`, the code of the cause, the words a person reads, and the call that
 * clears it, the way a payment intent says what its integrator must do next. `null` when the
 * record waits for nothing (it moves on by itself, or it has reached a final status). One shape
 * and one schema for every area, so an integrator reads a run, a payout and a work order alike.
 */
import { Type, type Static } from '@sinclair/typebox';

export const NextActionSchema = Type.Union(
  [
    Type.Object(
      {
        code: Type.String({ description: 'Why the record waits, e.g. fund_account, verify_payee_identity, accept_instruction_set.' }),
        message: Type.String({ description: 'The cause in words, with the figures that matter (the amount short, the payee).' }),
        call: Type.Union([
          Type.Object({ method: Type.String(), path: Type.String() }, { additionalProperties: false }),
          Type.Null(),
        ], { description: 'The API call that clears the cause, when one call does; null when it is outside the API (a deposit, a person at a registry).' }),
        details: Type.Optional(Type.Record(Type.String(), Type.Unknown(), { description: 'Figures of the cause, e.g. amount_short.' })),
      },
      { additionalProperties: false, 'x-spec-gap': true },
    ),
    Type.Null(),
  ],
  { description: 'What the record waits for; null when it waits for nothing. Filled gap: docs/gaps.md "next_action".' },
);

export type NextAction = Exclude<Static<typeof NextActionSchema>, null>;

/** A next action; `call` is the request that clears the cause, when there is one. */
export function nextAction(code: string, message: string, call?: { method: string; path: string } | null, details?: Record<string, unknown>): NextAction {
  return details ? { code, message, call: call ?? null, details } : { code, message, call: call ?? null };
}
