/**
 * Releasing held payouts (docs/gaps.md#payouts "Held payouts"; the record: payee-hold.ts, the
 * transition: payout.ts release). For each payout of the payee now due: read the payee's passport
 * (identity gate, spec 4.3) and, for a line signed without an account, the bank_account now on
 * the payee's pay profile (payroll's record: the amount stays the signed line's, spec 1 rule 10);
 * the rails of the instruction's plan that reach it; the name enquiry; then ask the payout to
 * release. A payout that left held is struck off the hold; one still held waits for the next cause.
 */
import { type Platform } from '../../kernel/index.ts';
import { identityGate } from '../identity/index.ts';
import { PayProfile } from '../payroll/index.ts';
import { PayoutInstruction } from './instruction.ts';
import { eligible } from './line-dispatch.ts';
import { isValidNuban } from './nuban.ts';
import { PayeeHold } from './payee-hold.ts';
import { type BankAccount, Payout, type PayoutState, type ReleasePayout } from './payout.ts';
import { ACTIVE_POLICY, railPolicy } from './policy.ts';
import { RoutePlan } from './route-plan.ts';
import { payoutsService } from './service.ts';

const SYSTEM = 'system';

export async function releaseHeld(platform: Platform, org: string, holdId: string): Promise<void> {
  const { system } = platform;
  const hold = await system.state(PayeeHold, holdId, org);
  const opts = { org, principal: SYSTEM, lane: 'system' as const };
  for (const payoutId of hold.due) {
    const p = await system.state(Payout, payoutId, org);
    if (p.status === 'held') await system.ask(Payout, payoutId, 'release', await releaseOf(platform, org, p), opts);
    const after = await system.state(Payout, payoutId, org);
    await system.ask(PayeeHold, holdId, after.status === 'held' ? 'checked' : 'released', { payout_id: payoutId }, opts);
  }
}

async function releaseOf(platform: Platform, org: string, p: PayoutState): Promise<ReleasePayout> {
  const { system } = platform;
  const account = p.account ?? (await profileAccount(platform, org, p.pay_profile_id ?? null));
  const s = await system.state(PayoutInstruction, p.instruction_id, org);
  const passport_live = !ACTIVE_POLICY.pack.passport.required || s.source !== 'run' || identityGate(platform).isLive(org, p.payee_ref);
  let rails: string[] = [];
  if (account && s.route_plan_id) {
    const plan = await system.state(RoutePlan, s.route_plan_id, org);
    rails = [plan.primary_rail_id, ...plan.fallback_rail_ids].filter((r) => eligible(railPolicy(r)!, account.bank_code, p.amount));
  }
  const validation = account && passport_live && rails.length ? await payoutsService(platform).calls.nameEnquiry(rails[0], account) : null;
  return { account, passport_live, validation, rails };
}

/** The account on the payee's pay profile now, when it is a valid NUBAN (intake checks signed lines the same way). */
async function profileAccount(platform: Platform, org: string, payProfileId: string | null): Promise<BankAccount | null> {
  if (!payProfileId) return null;
  const profile = await platform.system.state(PayProfile, payProfileId, org);
  const a = profile.bank_account;
  return a && isValidNuban(a.bank_code, a.account_number) ? { bank_code: a.bank_code, account_number: a.account_number, account_name: a.account_name ?? null } : null;
}
