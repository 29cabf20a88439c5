/**
 * Payouts routes (spec 2.11, 3 "Payout instruction" and "Individual payout", 4.10). Shapes the spec
 * does not show (payout, attempt, rail, settlement, account validation, reconciliation and the
 * funding account) are ours and recorded in docs/gaps.md#payouts. Event and audit-entry reads are
 * served for every module by the delivery area.
 */
import { callerOf, createDedupe, createdId, fieldError, idOf, isIdOf, ListQuery, listPage, type RouteRequest, route, type RouteDef, filteredList } from '../../kernel/index.ts';
import { deposit, execute, fundingAccountOf, fundingCheck } from './funding.ts';
import { ACCOUNT_VALIDATION_PREFIX, DISBURSEMENT_PREFIX, INSTRUCTION_PREFIX, RECONCILIATION_PREFIX, ROUTE_PLAN_PREFIX, SETTLEMENT_PREFIX } from './ids.ts';
import { PayoutInstruction } from './instruction.ts';
import { failInstruction, latestFundingCheck, routePlanOf, submitInstruction } from './instructions.ts';
import { Payout } from './payout.ts';
import { attemptOf, attemptsOf, listValidations, reversePayout, validationOf } from './payouts.ts';
import { listRails, railOf } from './rails.ts';
import { markUnknown, resolveInstruction, resolvePayout } from './resolution.ts';
import { RoutePlan } from './route-plan.ts';
import { makePlan } from './route-plans.ts';
import * as S from './schemas.ts';
import { Reconciliation } from './reconciliation.ts';
import { Settlement } from './settlement.ts';
import { exceptionOf, exceptionsOf, reconciliationOf, settle, settlementReceipt } from './settlements.ts';

const M = 'route';
const P = '/v1/payouts';
const gap = (what: string) => `${what} not shown by the spec; see docs/gaps.md#payouts.`;
const ask = (req: RouteRequest) => ({ ...callerOf(req), dedupeId: createDedupe(req) });
const instructionId = (req: RouteRequest) => idOf(req.params.instruction_id!, INSTRUCTION_PREFIX, 'payout instruction');
const payoutId = (req: RouteRequest) => idOf(req.params.payout_id!, DISBURSEMENT_PREFIX, 'payout');
const reconciliationId = (req: RouteRequest) => idOf(req.params.reconciliation_id!, RECONCILIATION_PREFIX, 'reconciliation');
const bodyId = (id: string, prefix: string, what: string, field: string) => {
  if (!isIdOf(id, prefix)) throw fieldError(`/${field}`, 'invalid_id', `${field} must be a ${what} id.`, `${field} is not a ${what} id (prefix ${prefix}).`);
  return id;
};

export const routes: RouteDef[] = [
  // Instructions (spec 2.11, 3, 4.10).
  route({ method: 'GET', path: `${P}/instructions`, auth: 'key', module: M, idempotent: false, query: S.InstructionListQuery, summary: 'List payout instructions, newest first; filter status and run_id.',
    handler: (req) => {
      const q = req.query;
      const list = filteredList({ run: q.run_id, status: q.status });
      return listPage(req.platform.system, PayoutInstruction, req.org, list, q, 'desc');
    } }),
  route({ method: 'POST', path: `${P}/instructions`, auth: 'key', module: M, idempotent: true, status: 201, body: S.SignedInstructionBody, specGap: gap('The request body (the signed envelope) is'),
    summary: 'Submit a signed instruction as payroll or remittance produced it (no amount comes from the caller). A bad signature, a repeat or a line failing its check is quarantined, kept as evidence and never executed.',
    handler: (req) => submitInstruction(req.platform, callerOf(req), { object: 'signed_payout_instruction', ...req.body }, createdId(req, INSTRUCTION_PREFIX), createDedupe(req)) }),
  route({ method: 'GET', path: `${P}/instructions/{instruction_id}`, auth: 'key', module: M, idempotent: false, summary: 'Retrieve a payout instruction with its progress.',
    handler: (req) => req.platform.system.get(PayoutInstruction, instructionId(req), req.org) }),
  route({ method: 'GET', path: `${P}/instructions/{instruction_id}/route_plan`, auth: 'key', module: M, idempotent: false, summary: 'The instruction\u2019s route plan (404 until planned).',
    handler: async (req) => routePlanOf(req.platform, req.org, instructionId(req)) }),
  route({ method: 'GET', path: `${P}/instructions/{instruction_id}/funding_check`, auth: 'key', module: M, idempotent: false, summary: 'The latest funding check of the instruction (404 before the first).',
    handler: async (req) => latestFundingCheck(req.platform, req.org, instructionId(req)) }),
  route({ method: 'POST', path: `${P}/instructions/{instruction_id}/funding_check`, auth: 'key', module: M, idempotent: true, summary: 'Compare the instruction\u2019s total with what the funding account has available; a shortfall holds it in funding_pending.',
    handler: (req) => fundingCheck(req.platform, callerOf(req), instructionId(req)) }),
  route({ method: 'POST', path: `${P}/instructions/{instruction_id}/plan`, auth: 'key', module: M, idempotent: true, status: 201, body: S.PlanBody, specGap: gap('The body and answer of plan are'),
    summary: 'Make the instruction\u2019s route plan: a primary rail fixed now, ordered fallbacks, the reasoning, max_attempts. Rails may be named; otherwise the policy and recent rail health choose.',
    handler: (req) => makePlan(req.platform, callerOf(req), instructionId(req), req.body ?? {}, createdId(req, ROUTE_PLAN_PREFIX)) }),
  route({ method: 'POST', path: `${P}/instructions/{instruction_id}/execute`, auth: 'key', module: M, idempotent: true,
    summary: 'Execute a planned instruction: refused while route_plan_id is null; a funding shortfall holds it in funding_pending; otherwise funds are reserved and every line is paid by its own payout.',
    handler: (req) => execute(req.platform, callerOf(req), instructionId(req)) }),
  route({ method: 'POST', path: `${P}/instructions/{instruction_id}/fail`, auth: 'key', module: M, idempotent: true, body: S.ReasonBody, specGap: gap('The body of fail is'),
    summary: 'Fail an instruction that has not been executed. Refused once executing: a payout sent is never assumed failed.',
    handler: (req) => failInstruction(req.platform, ask(req), instructionId(req), req.body) }),
  route({ method: 'POST', path: `${P}/instructions/{instruction_id}/mark_unknown`, auth: 'key', module: M, idempotent: true, body: S.ReasonBody, specGap: gap('The body and effect of mark_unknown are'),
    summary: 'Mark every payout of an executing instruction still waiting for its rail unknown (for example after a rail outage); each is then resolved by its rail\u2019s status query.',
    handler: (req) => markUnknown(req.platform, callerOf(req), instructionId(req), req.body.reason) }),
  route({ method: 'POST', path: `${P}/instructions/{instruction_id}/resolve`, auth: 'key', module: M, idempotent: true, specGap: gap('The effect of resolve on an instruction is'),
    summary: 'Ask the status query now for every unknown or pending payout of the instruction.',
    handler: (req) => resolveInstruction(req.platform, callerOf(req), instructionId(req)) }),

  // Route plans.
  route({ method: 'GET', path: `${P}/route_plans`, auth: 'key', module: M, idempotent: false, query: S.RoutePlanListQuery, summary: 'List route plans, newest first; filter instruction_id.',
    handler: (req) => listPage(req.platform.system, RoutePlan, req.org, req.query.instruction_id ? `instruction:${req.query.instruction_id}` : 'all', req.query, 'desc') }),
  route({ method: 'POST', path: `${P}/route_plans`, auth: 'key', module: M, idempotent: true, status: 201, body: S.RoutePlanBody, specGap: gap('The body of POST route_plans is'),
    summary: 'Make the route plan of an instruction (the same as POST .../instructions/{id}/plan).',
    handler: (req) => {
      const { instruction_id, ...plan } = req.body;
      return makePlan(req.platform, callerOf(req), bodyId(instruction_id, INSTRUCTION_PREFIX, 'payout instruction', 'instruction_id'), plan, createdId(req, ROUTE_PLAN_PREFIX));
    } }),
  route({ method: 'GET', path: `${P}/route_plans/{route_plan_id}`, auth: 'key', module: M, idempotent: false, summary: 'Retrieve a route plan.',
    handler: (req) => req.platform.system.get(RoutePlan, idOf(req.params.route_plan_id!, ROUTE_PLAN_PREFIX, 'route plan'), req.org) }),

  // Rails.
  route({ method: 'GET', path: `${P}/rails`, auth: 'key', module: M, idempotent: false, specGap: gap('The rail record is'),
    summary: 'The rails payouts use: limits, reach, status-query timing, recent health and (sandbox) the documented test accounts.',
    handler: async (req) => listRails(req.platform, req.livemode) }),
  route({ method: 'GET', path: `${P}/rails/{rail_id}`, auth: 'key', module: M, idempotent: false, specGap: gap('The rail record is'), summary: 'Retrieve a rail.',
    handler: async (req) => railOf(req.platform, req.livemode, req.params.rail_id!) }),

  // Payouts and attempts.
  route({ method: 'GET', path: `${P}/payouts`, auth: 'key', module: M, idempotent: false, query: S.PayoutListQuery, specGap: gap('The payout list is'),
    summary: 'List payouts: of one instruction in line order (filter instruction_id), else newest first; filter status.',
    handler: (req) => {
      const q = req.query;
      if (q.instruction_id) return listPage(req.platform.system, Payout, req.org, q.status ? `instruction:${q.instruction_id}:status:${q.status}` : `instruction:${q.instruction_id}`, q, 'asc');
      return listPage(req.platform.system, Payout, req.org, q.status ? `status:${q.status}` : 'all', q, 'desc');
    } }),
  route({ method: 'GET', path: `${P}/payouts/{payout_id}`, auth: 'key', module: M, idempotent: false, specGap: gap('The payout record is'), summary: 'Retrieve a payout: its status, rails and current attempt.',
    handler: (req) => req.platform.system.get(Payout, payoutId(req), req.org) }),
  route({ method: 'POST', path: `${P}/payouts/{payout_id}/resolve`, auth: 'key', module: M, idempotent: true, specGap: gap('The answer of resolve is'),
    summary: 'Ask the rail\u2019s status query now for an unknown or pending payout (409 otherwise); settled, failed (then the next rail) or still unknown.',
    handler: (req) => resolvePayout(req.platform, callerOf(req), payoutId(req)) }),
  route({ method: 'POST', path: `${P}/payouts/{payout_id}/reverse`, auth: 'key', module: M, idempotent: true, body: S.ReasonBody, specGap: gap('Reversing a payout is'),
    summary: 'Record that a settled payout was returned by the payee\u2019s bank (a return the bank reported outside the rail\u2019s statement); 409 unless settled. The payee is then not paid, the net pay is owed again and the instruction\u2019s ledger posting is reversed for the amount.',
    handler: (req) => reversePayout(req.platform, ask(req), payoutId(req), req.body) }),
  route({ method: 'GET', path: `${P}/payouts/{payout_id}/attempts`, auth: 'key', module: M, idempotent: false, query: ListQuery, specGap: gap('The attempt record is'), summary: 'The payout\u2019s attempts, first first.',
    handler: async (req) => attemptsOf(req.platform, req.org, payoutId(req), req.query) }),
  route({ method: 'GET', path: `${P}/payouts/{payout_id}/attempts/{attempt_id}`, auth: 'key', module: M, idempotent: false, specGap: gap('The attempt record is'), summary: 'Retrieve an attempt.',
    handler: async (req) => attemptOf(req.platform, req.org, payoutId(req), req.params.attempt_id) }),

  // Account validations (name enquiries made before paying).
  route({ method: 'GET', path: `${P}/account_validations`, auth: 'key', module: M, idempotent: false, query: ListQuery, specGap: gap('The account validation record is'),
    summary: 'Name enquiries made before paying, newest first.', handler: async (req) => listValidations(req.platform, req.org, req.query) }),
  route({ method: 'GET', path: `${P}/account_validations/{account_validation_id}`, auth: 'key', module: M, idempotent: false, specGap: gap('The account validation record is'), summary: 'Retrieve an account validation.',
    handler: async (req) => validationOf(req.platform, req.org, idOf(req.params.account_validation_id!, ACCOUNT_VALIDATION_PREFIX, 'account validation')) }),

  // The sandbox funding account.
  route({ method: 'GET', path: `${P}/funding_account`, auth: 'key', module: M, idempotent: false, specGap: gap('The funding account is'),
    summary: 'The organisation\u2019s funding account in this realm: balance, reserved, available.',
    handler: async (req) => fundingAccountOf(req.platform, req.org, req.livemode) }),
  route({ method: 'POST', path: `${P}/funding_account/deposits`, auth: 'key', module: M, idempotent: true, body: S.DepositBody, specGap: gap('How a sandbox funding account is funded is'),
    summary: 'Fund the sandbox funding account (sandbox realm only; a live account is funded by bank transfer).',
    handler: (req) => deposit(req.platform, ask(req), req.body.amount as { amount: number; currency: string }, req.requestId) }),

  // Settlements and reconciliations.
  route({ method: 'POST', path: `${P}/settlements`, auth: 'key', module: M, idempotent: true, status: 201, body: S.SettlementBody, specGap: gap('The settlement record is'),
    summary: 'Settle a final instruction: what settled per rail, a receipt, and each rail\u2019s statement reconciled against our payouts (one settlement per instruction).',
    handler: (req) => settle(req.platform, callerOf(req), bodyId(req.body.instruction_id, INSTRUCTION_PREFIX, 'payout instruction', 'instruction_id')) }),
  route({ method: 'GET', path: `${P}/settlements`, auth: 'key', module: M, idempotent: false, query: S.ByInstructionQuery, specGap: gap('The settlement list is'), summary: 'List settlements, newest first.',
    handler: (req) => listPage(req.platform.system, Settlement, req.org, req.query.instruction_id ? `instruction:${req.query.instruction_id}` : 'all', req.query, 'desc') }),
  route({ method: 'GET', path: `${P}/settlements/{settlement_id}`, auth: 'key', module: M, idempotent: false, specGap: gap('The settlement record is'), summary: 'Retrieve a settlement.',
    handler: (req) => req.platform.system.get(Settlement, idOf(req.params.settlement_id!, SETTLEMENT_PREFIX, 'settlement'), req.org) }),
  route({ method: 'GET', path: `${P}/settlements/{settlement_id}/receipt`, auth: 'key', module: M, idempotent: false, specGap: gap('The settlement receipt is'),
    summary: 'The settlement\u2019s receipt: totals per rail and the digest that covers them.',
    handler: async (req) => settlementReceipt(req.platform, req.org, idOf(req.params.settlement_id!, SETTLEMENT_PREFIX, 'settlement')) }),
  route({ method: 'GET', path: `${P}/reconciliations`, auth: 'key', module: M, idempotent: false, query: S.ByInstructionQuery, specGap: gap('The reconciliation record is'), summary: 'List reconciliations, newest first; filter instruction_id.',
    handler: (req) => listPage(req.platform.system, Reconciliation, req.org, req.query.instruction_id ? `instruction:${req.query.instruction_id}` : 'all', req.query, 'desc') }),
  route({ method: 'GET', path: `${P}/reconciliations/{reconciliation_id}`, auth: 'key', module: M, idempotent: false, specGap: gap('The reconciliation record is'), summary: 'Retrieve a reconciliation.',
    handler: async (req) => reconciliationOf(req.platform, req.org, reconciliationId(req)) }),
  route({ method: 'GET', path: `${P}/reconciliations/{reconciliation_id}/exceptions`, auth: 'key', module: M, idempotent: false, query: ListQuery, specGap: gap('The reconciliation exception is'),
    summary: 'Every mismatch between the rail\u2019s statement and our payouts.',
    handler: async (req) => exceptionsOf(req.platform, req.org, reconciliationId(req), req.query) }),
  route({ method: 'GET', path: `${P}/reconciliations/{reconciliation_id}/exceptions/{exception_id}`, auth: 'key', module: M, idempotent: false, specGap: gap('The reconciliation exception is'), summary: 'Retrieve a reconciliation exception.',
    handler: async (req) => exceptionOf(req.platform, req.org, reconciliationId(req), req.params.exception_id!) }),
];
