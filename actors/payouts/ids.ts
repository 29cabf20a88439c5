/**
 * Identifier prefixes of the payouts module. Spec 2.11 fixes route_multi_rail_payout_
 * (PayoutInstruction) and route_multi_rail_route_plan_ (RoutePlan) and remit_authority_rail_remittance_
 * for remittance ids; the others are ours (docs/gaps.md#payouts), formed the same way and chosen so
 * that none is a prefix of another. Ids a record can be named by without a lookup are derived.
 */
import { derivedId } from '../../kernel/index.ts';

export const INSTRUCTION_PREFIX = 'route_multi_rail_payout_';
export const ROUTE_PLAN_PREFIX = 'route_multi_rail_route_plan_';
export const REMITTANCE_PREFIX = 'remit_authority_rail_remittance_';
export const DISBURSEMENT_PREFIX = 'route_multi_rail_disbursement_';
export const ATTEMPT_PREFIX = 'route_multi_rail_attempt_';
export const ACCOUNT_VALIDATION_PREFIX = 'route_multi_rail_account_validation_';
export const FUNDING_ACCOUNT_PREFIX = 'route_multi_rail_funding_account_';
export const SETTLEMENT_PREFIX = 'route_multi_rail_settlement_';
export const RECONCILIATION_PREFIX = 'route_multi_rail_reconciliation_';
export const EXCEPTION_PREFIX = 'route_multi_rail_recon_exception_';
export const RUN_LINK_PREFIX = 'route_multi_rail_run_link_';
export const RAIL_PREFIX = 'route_multi_rail_rail_';
export const PAYEE_HOLD_PREFIX = 'route_multi_rail_payee_hold_';

/** One payout per instruction line (the design card: every payout is an actor). */
export const payoutIdOf = (instructionId: string, line: number): string => derivedId(DISBURSEMENT_PREFIX, [instructionId, String(line)]);
/** The n-th attempt (1-based) of a payout; its id is also the transfer reference sent to the rail. */
export const attemptIdOf = (payoutId: string, n: number): string => `${ATTEMPT_PREFIX}${payoutId.slice(DISBURSEMENT_PREFIX.length)}${n}`;
export const payoutIdOfAttempt = (attemptId: string): string => `${DISBURSEMENT_PREFIX}${attemptId.slice(ATTEMPT_PREFIX.length, -1)}`;
export const validationIdOf = (payoutId: string): string => `${ACCOUNT_VALIDATION_PREFIX}${payoutId.slice(DISBURSEMENT_PREFIX.length)}`;
export const payoutIdOfValidation = (id: string): string => `${DISBURSEMENT_PREFIX}${id.slice(ACCOUNT_VALIDATION_PREFIX.length)}`;
/** The sandbox funding account of an organisation in a realm. */
export const fundingAccountIdOf = (org: string, livemode: boolean): string => derivedId(FUNDING_ACCOUNT_PREFIX, [org, livemode ? 'live' : 'test']);
/** The instruction the run link submits for a payroll run (one net-pay instruction per run). */
export const runInstructionIdOf = (org: string, runId: string): string => derivedId(INSTRUCTION_PREFIX, [org, 'run_link', runId]);
/** The link between a payroll run and the instruction its execution submitted. */
export const runLinkIdOf = (org: string, runId: string): string => derivedId(RUN_LINK_PREFIX, [org, runId]);
export const reconciliationIdOf = (settlementId: string, railId: string): string => derivedId(RECONCILIATION_PREFIX, [settlementId, railId]);
export const exceptionIdOf = (reconciliationId: string, n: number): string => `${EXCEPTION_PREFIX}${reconciliationId.slice(RECONCILIATION_PREFIX.length)}x${n}`;
/** The held payouts of one payee of an organisation (internal: released when their cause clears). */
export const payeeHoldIdOf = (org: string, payeeRef: string): string => derivedId(PAYEE_HOLD_PREFIX, [org, payeeRef]);
