/**
 * Identifier prefixes of the remit part. Spec 2.10 fixes remit_authority_rail_remittance_ (the
 * remittance a payout instruction names, spec 2.11); the others are ours (docs/gaps.md,
 * "Remittance: remittances, legs, receipts, returns"), formed the same way, none a prefix of
 * another. Records named by what they belong to have derived ids.
 */
import { derivedId } from '../../../kernel/index.ts';

export const REMITTANCE_PREFIX = 'remit_authority_rail_remittance_';
export const LEG_PREFIX = 'remit_authority_rail_leg_';
export const RECEIPT_PREFIX = 'remit_authority_rail_receipt_';
export const RETURN_PREFIX = 'remit_authority_rail_return_';
/** Spec 2.11: a route plan's prefix (a leg's instruction is planned with the payouts defaults). */
export const ROUTE_PLAN_PREFIX = 'route_multi_rail_route_plan_';
/** Spec 2.11: a payout instruction's prefix. */
export const PAYOUT_INSTRUCTION_PREFIX = 'route_multi_rail_payout_';

/** One remittance per accepted instruction set: remitting a set twice would pay its authorities twice. */
export const remittanceIdOf = (org: string, instructionSetId: string): string => derivedId(REMITTANCE_PREFIX, [org, 'remittance', instructionSetId]);
/** One leg per authority of a remittance. */
export const legIdOf = (remittanceId: string, authorityId: string): string => derivedId(LEG_PREFIX, [remittanceId, authorityId]);
/** A leg's monthly schedule (the return that goes with its payment). */
export const scheduleIdOf = (legId: string): string => derivedId(RETURN_PREFIX, [legId, 'schedule']);
/** The annual employer return (Form H1) of an organisation to one State IRS for one income year. */
export const annualReturnIdOf = (org: string, livemode: boolean, authorityId: string, year: string): string => derivedId(RETURN_PREFIX, [org, livemode ? 'live' : 'test', authorityId, year, 'annual']);

const SUFFIX = 22;
/**
 * The payout instruction of a leg's n-th payment attempt: the leg's own suffix, `R`, the attempt
 * number. A payouts event names the instruction; this reads the leg and attempt back from it, so
 * the outcome reaches the leg by reaction with no lookup.
 */
export const attemptInstructionId = (legId: string, attempt: number): string => `${PAYOUT_INSTRUCTION_PREFIX}${legId.slice(LEG_PREFIX.length)}R${attempt}`;
export function legOfInstruction(instructionId: string): { leg_id: string; attempt: number } | undefined {
  if (!instructionId.startsWith(PAYOUT_INSTRUCTION_PREFIX)) return undefined;
  const rest = instructionId.slice(PAYOUT_INSTRUCTION_PREFIX.length);
  if (rest.length < SUFFIX + 2 || rest[SUFFIX] !== 'R') return undefined;
  const attempt = Number(rest.slice(SUFFIX + 1));
  if (!Number.isSafeInteger(attempt) || attempt < 1) return undefined;
  return { leg_id: `${LEG_PREFIX}${rest.slice(0, SUFFIX)}`, attempt };
}
/** The instruction_ref of an attempt: distinct per attempt, so payouts' derived idempotency key pays each once. */
export const attemptRef = (legId: string, attempt: number): string => `${legId}:attempt:${attempt}`;
