/**
 * The payouts module's face (spec 1 rule 10, 2.11, 3, 4.10, 8): the area, and what a bench or
 * another area may use: the operations on instructions (submit, plan, fund, execute), this node's
 * rail figures, the sandbox rails' books, NUBAN, and the ids.
 */
import type { Area, Caller, Platform } from '../../kernel/index.ts';
import type { SignedPayoutInstruction } from '../payroll/index.ts';
import { RUN_PAYOUT_WAIT } from '../payroll/index.ts';
import { events } from './events.ts';
import { FundingAccount } from './funding-account.ts';
import { execute, fundingCheck, fundsArrived } from './funding.ts';
import { releaseHeld } from './holds.ts';
import { PayoutInstruction } from './instruction.ts';
import { submitInstruction } from './instructions.ts';
import { PayeeHold } from './payee-hold.ts';
import { Payout } from './payout.ts';
import { Reconciliation } from './reconciliation.ts';
import { RoutePlan } from './route-plan.ts';
import { makePlan, type PlanBody } from './route-plans.ts';
import { routes } from './routes.ts';
import { RunLink } from './run-link.ts';
import { linkRun, runPayoutWait } from './run-links.ts';
import { PAYOUTS, PayoutsService, payoutsService } from './service.ts';
import { Settlement } from './settlement.ts';

export { REMIT_INSTRUCTION_CHECK, type RemitInstructionCheck, type SignedLineFinding } from './remit-check.ts';
export { isValidNuban, nuban, nubanCheckDigit } from './nuban.ts';
export { fundingAccountIdOf, payoutIdOf, runInstructionIdOf, runLinkIdOf, INSTRUCTION_PREFIX, ROUTE_PLAN_PREFIX } from './ids.ts';
export type { PayoutsService } from './service.ts';
export type { PlanBody } from './route-plans.ts';
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
  kinds: [PayoutInstruction, Payout, RoutePlan, FundingAccount, RunLink, Settlement, Reconciliation, PayeeHold],
  routes,
  events,
  async start(platform) {
    // The process follows commits; the due work is operations, handed in here.
    const svc = new PayoutsService(platform, {
      linkRun: (org, id) => linkRun(platform, org, id),
      fundsArrived: (org, livemode) => fundsArrived(platform, org, livemode),
      releaseHeld: (org, id) => releaseHeld(platform, org, id),
    });
    platform.services.provide(PAYOUTS, svc);
    platform.services.provide(RUN_PAYOUT_WAIT, { waitOf: (org, runId) => runPayoutWait(platform, org, runId) });
    svc.start();
  },
  async stop(platform) {
    await platform.services.get(PAYOUTS)?.stop();
    platform.services.remove(PAYOUTS);
    platform.services.remove(RUN_PAYOUT_WAIT);
  },
};

/** The instruction operations and this node's rail figures and process (bench, tests and remittance legs). */
export const payouts = (platform: Platform) => {
  const svc = payoutsService(platform);
  return {
    rails: svc.rails,
    answers: svc.answers,
    failovers: svc.failovers,
    start: () => svc.start(),
    stop: () => svc.stop(),
    submit: (caller: Caller, env: SignedPayoutInstruction, id: string, dedupeId: string | undefined) => submitInstruction(platform, caller, env, id, dedupeId),
    makePlan: (caller: Caller, instructionId: string, body: PlanBody, planId: string) => makePlan(platform, caller, instructionId, body, planId),
    fundingCheck: (caller: Caller, id: string) => fundingCheck(platform, caller, id),
    execute: (caller: Caller, id: string) => execute(platform, caller, id),
  };
};
