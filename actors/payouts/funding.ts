/**
 * Funding an instruction (spec 2.11, 4.10 funding check; the account: funding-account.ts): the
 * check compares the instruction's total with what the organisation's funding account holds
 * available, and execution reserves the total before the instruction starts executing, so an
 * instruction short of funds is held in funding_pending rather than paid in part. A sandbox
 * account is funded by a deposit in the policy's currency; a live one by bank transfer. A run's
 * instruction the run link paid waits in funding_pending with next_action fund_account and is
 * executed when a deposit makes it fit (fundsArrived), with no further call (docs/gaps.md#payouts).
 */
import { ApiError, type Caller, fieldError, isApiError, type Platform } from '../../kernel/index.ts';
import { availableOf, FundingAccount } from './funding-account.ts';
import { fundingAccountIdOf } from './ids.ts';
import { isRunLinkInstruction } from './run-link.ts';
import { type FundingCheck, fundingCheckView, type InstructionState, PayoutInstruction } from './instruction.ts';
import { ACTIVE_POLICY } from './policy.ts';

/** What the organisation's funding account holds available in a realm (0 while it has none). */
export async function available(platform: Platform, org: string, livemode: boolean): Promise<number> {
  try {
    return availableOf(await platform.system.state(FundingAccount, fundingAccountIdOf(org, livemode), org));
  } catch (e) {
    if (isApiError(e) && e.code === 'not_found') return 0;
    throw e;
  }
}

async function computeFunding(platform: Platform, org: string, s: InstructionState): Promise<FundingCheck> {
  const avail = await available(platform, org, s.livemode);
  const shortfall = Math.max(0, s.total - avail);
  return { sufficient: shortfall === 0, required_amount: s.total, available_amount: avail, shortfall, checked_at: platform.clock.now() };
}

export async function fundingCheck(platform: Platform, caller: Caller, id: string): Promise<ReturnType<typeof fundingCheckView>> {
  const s = await platform.system.state(PayoutInstruction, id, caller.org);
  const check = await computeFunding(platform, caller.org, s);
  await platform.system.ask(PayoutInstruction, id, 'record_funding_check', check, caller);
  return fundingCheckView(s, check);
}

/** Reserves the total, then executes; a shortfall is recorded and answered 409. */
export async function execute(platform: Platform, caller: Caller, id: string): Promise<unknown> {
  const { system } = platform;
  const s = await system.state(PayoutInstruction, id, caller.org);
  if (s.status === 'executing' || s.status === 'settled' || s.status === 'partially_settled') return PayoutInstruction.view(s);
  if (s.status !== 'planned' || s.route_plan_id === null) return system.ask(PayoutInstruction, id, 'execute', { check: { sufficient: false, required_amount: s.total, available_amount: 0, shortfall: s.total, checked_at: 0 } }, caller); // the actor refuses with the reason
  const check = await computeFunding(platform, caller.org, s);
  if (!check.sufficient) {
    await system.ask(PayoutInstruction, id, 'record_funding_check', check, caller);
    throw new ApiError('conflict', `The funding account is short by ${check.shortfall} kobo (${check.required_amount} required, ${check.available_amount} available); instruction ${id} is held in funding_pending.`, { shortfall: check.shortfall });
  }
  try {
    await system.ask(FundingAccount, fundingAccountIdOf(caller.org, s.livemode), 'reserve', { instruction_id: id, amount: s.total }, { ...caller, dedupeId: `reserve:${id}` });
  } catch (e) {
    if (isApiError(e) && e.code === 'conflict') await system.ask(PayoutInstruction, id, 'record_funding_check', { ...check, sufficient: false }, caller);
    throw e;
  }
  return system.ask(PayoutInstruction, id, 'execute', { check }, { ...caller, dedupeId: `execute:${id}` });
}

/**
 * POST /v1/payouts/funding_account/deposits: the reference is the request's id. Not async, so a
 * deposit in another currency throws at the call, before the account is asked.
 */
export function deposit(platform: Platform, caller: Caller & { dedupeId?: string }, amount: { amount: number; currency: string }, reference: string): Promise<unknown> {
  if (amount.currency !== ACTIVE_POLICY.pack.currency) throw fieldError('/amount/currency', 'currency_not_supported', `Only ${ACTIVE_POLICY.pack.currency}.`, `The funding account holds ${ACTIVE_POLICY.pack.currency}.`);
  return platform.system.ask(FundingAccount, fundingAccountIdOf(caller.org, caller.livemode), 'deposit', { amount: amount.amount, livemode: caller.livemode, reference }, caller);
}

/** GET /v1/payouts/funding_account: an account never funded reads as zero. */
export async function fundingAccountOf(platform: Platform, org: string, livemode: boolean): Promise<unknown> {
  const id = fundingAccountIdOf(org, livemode);
  try {
    return await platform.system.get(FundingAccount, id, org);
  } catch (e) {
    if (!isApiError(e) || e.code !== 'not_found') throw e;
    const zero = { amount: 0, currency: ACTIVE_POLICY.pack.currency };
    return { id, object: 'funding_account', livemode, mocked: true, balance: zero, reserved: zero, available: zero, deposit_count: 0, updated_at: null };
  }
}

/**
 * A deposit arrived: each run instruction waiting for funds in this realm, oldest first, is checked
 * again and executed when it now fits (a person approved its run; the policy's execution mode
 * says whether its payouts wait for another call). One still short stays in funding_pending.
 */
export async function fundsArrived(platform: Platform, org: string, livemode: boolean): Promise<void> {
  if (ACTIVE_POLICY.pack.run_instructions.execution !== 'on_run_execution') return;
  const caller: Caller = { org, livemode, principal: 'system' };
  for await (const ids of platform.system.eachIds(PayoutInstruction, org, 'status:funding_pending', 'asc')) {
    for (const id of ids) {
      const s = await platform.system.state(PayoutInstruction, id, org);
      if (s.status !== 'funding_pending' || s.livemode !== livemode || !isRunLinkInstruction(org, s)) continue;
      const check = await fundingCheck(platform, caller, id);
      if (!check.sufficient || s.route_plan_id === null) continue;
      try {
        await execute(platform, caller, id);
      } catch (e) {
        // Another instruction took the funds first: this one is back in funding_pending, named there.
        if (!isApiError(e) || e.code !== 'conflict') throw e;
      }
    }
  }
}
