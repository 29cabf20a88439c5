/**
 * The payouts module's face (spec 1 rule 10, 2.11, 3, 4.10, 8): the area, and what a bench or
 * another area may use: the service (submit, plan, fund, execute, settle), the sandbox rails' books,
 * NUBAN, and the ids.
 */
import type { Area, Platform } from '../../kernel/index.ts';
import { events } from './events.ts';
import { FundingAccount } from './funding-account.ts';
import { PayoutInstruction } from './instruction.ts';
import { Payout } from './payout.ts';
import { RoutePlan } from './route-plan.ts';
import { routes } from './routes.ts';
import { RunLink } from './run-link.ts';
import { PAYOUTS, PayoutsService } from './service.ts';
import { Reconciliation } from './reconciliation.ts';
import { Settlement } from './settlement.ts';

export { REMIT_INSTRUCTION_CHECK, type RemitInstructionCheck, type SignedLineFinding } from './remit-check.ts';
export { isValidNuban, nuban, nubanCheckDigit } from './nuban.ts';
export { fundingAccountIdOf, payoutIdOf, runLinkIdOf, INSTRUCTION_PREFIX } from './ids.ts';
export { PayoutsService, type PlanBody } from './service.ts';
export type { InstructionState } from './instruction.ts';
export type { PayoutState } from './payout.ts';
export type { Rail, StatementEntry } from './providers/index.ts';
export { sandboxRails } from './providers/index.ts';
export { ACTIVE_POLICY as PAYOUTS_POLICY } from './policy.ts';
export const INSTRUCTION_KIND = PayoutInstruction.kind;
export const PAYOUT_KIND = Payout.kind;
export const FUNDING_ACCOUNT_KIND = FundingAccount.kind;

export const area: Area = {
  name: 'payouts',
  kinds: [PayoutInstruction, Payout, RoutePlan, FundingAccount, RunLink, Settlement, Reconciliation],
  routes,
  events,
  async start(platform) {
    const svc = new PayoutsService(platform);
    platform.services.provide(PAYOUTS, svc);
    svc.start();
  },
  async stop(platform) {
    await platform.services.get(PAYOUTS)?.stop();
    platform.services.remove(PAYOUTS);
  },
};

/** The payouts service of a platform (bench and operator use). */
export const payouts = (platform: Platform): PayoutsService => platform.services.require(PAYOUTS);
