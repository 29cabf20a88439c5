/**
 * The run link's steps that need I/O (spec 1 rule 10; the actor and its table: run-link.ts): on
 * link.requested or a retry, submit the run's signed instruction, plan it and (policy
 * run_instructions.execution on_run_execution: the run was approved by a person, spec 3, 8)
 * execute it; a funding shortfall leaves it in funding_pending with next_action fund_account,
 * and the next deposit executes it (funding.ts fundsArrived). On link.outcome_due, carry the
 * instruction's outcome to the run. Each step is idempotent (derived ids, dedupe ids, status
 * checks), so the link's reminder repeats it safely after a node dies in between. A run none of
 * whose lines carries an account is not submitted (each line would be held); the link notes it
 * and the run's next_action says so.
 */
import { type Caller, derivedId, isApiError, nextAction, type NextAction, type Platform } from '../../kernel/index.ts';
import { payoutInstructionFor, Run } from '../payroll/index.ts';
import { execute } from './funding.ts';
import { ROUTE_PLAN_PREFIX, runInstructionIdOf, runLinkIdOf } from './ids.ts';
import { accountOf, parseDocument } from './intake.ts';
import { instructionNextAction, PayoutInstruction } from './instruction.ts';
import { submitInstruction } from './instructions.ts';
import { ACTIVE_POLICY } from './policy.ts';
import { RunLink, type RunLinkState, type RunOutcome } from './run-link.ts';
import { makePlan } from './route-plans.ts';

const SYSTEM = 'system';
const NO_ACCOUNT_NOTE = 'No line of the run\u2019s signed instruction carries a bank account; set bank_account on the pay profiles and pay them by a later run.';

export async function linkRun(platform: Platform, org: string, linkId: string): Promise<void> {
  const link = await platform.system.state(RunLink, linkId, org);
  if (link.status === 'requested') await submitRun(platform, org, linkId, link);
  else if (link.status === 'outcome_due' && link.outcome) await deliverOutcome(platform, org, linkId, link, link.outcome);
}

async function submitRun(platform: Platform, org: string, linkId: string, link: RunLinkState): Promise<void> {
  const { system } = platform;
  const opts = { org, principal: SYSTEM, lane: 'system' as const };
  const env = await payoutInstructionFor(system, org, link.run_id);
  if (!env) {
    await system.ask(RunLink, linkId, 'submitted', { instruction_id: null, note: 'The run has no net pay to pay out.' }, opts);
    return;
  }
  const lines = parseDocument(env.document)?.lines ?? [];
  if (!lines.some((l) => accountOf(l) !== null)) {
    // No payee of the run has a bank account (docs/gaps.md#payouts): every line would be held, so nothing is submitted.
    await system.ask(RunLink, linkId, 'submitted', { instruction_id: null, note: NO_ACCOUNT_NOTE }, opts);
    return;
  }
  const run = await system.state(Run, link.run_id, org);
  const caller: Caller = { org, livemode: run.livemode, principal: SYSTEM };
  const id = runInstructionIdOf(org, link.run_id);
  await submitInstruction(platform, caller, env, id, `run_link:${link.run_id}`);
  await payRun(platform, caller, id);
  await system.ask(RunLink, linkId, 'submitted', { instruction_id: id }, opts);
}

/** Plans the run's instruction and, when the policy pays runs by reaction, executes it (a shortfall waits for funds). */
async function payRun(platform: Platform, caller: Caller, id: string): Promise<void> {
  const s = await platform.system.state(PayoutInstruction, id, caller.org);
  if (s.status === 'quarantined' || s.status === 'failed') return; // kept as evidence; its record says why
  if (s.route_plan_id === null) await makePlan(platform, caller, id, {}, derivedId(ROUTE_PLAN_PREFIX, [id, 'plan']));
  if (ACTIVE_POLICY.pack.run_instructions.execution !== 'on_run_execution') return;
  try {
    await execute(platform, caller, id);
  } catch (e) {
    // A shortfall is recorded on the instruction (funding_pending, next_action fund_account); a deposit resumes it.
    if (!isApiError(e) || e.code !== 'conflict') throw e;
  }
}

/** A refusal by the run (4xx) is noted on the link and closes it; anything else is tried again. */
async function deliverOutcome(platform: Platform, org: string, linkId: string, link: RunLinkState, outcome: RunOutcome): Promise<void> {
  const { system } = platform;
  const opts = { org, principal: SYSTEM, lane: 'system' as const };
  let note: string | undefined;
  try {
    await system.ask(Run, link.run_id, 'record_payout_outcome', { outcome }, { ...opts, dedupeId: `payout_outcome:${link.instruction_id}` });
  } catch (e) {
    if (!isApiError(e) || e.status >= 500) throw e;
    note = `The run refused the outcome: ${e.message}`;
  }
  await system.ask(RunLink, linkId, 'outcome_delivered', { note }, opts);
}

/**
 * What an executing run waits for in payouts (payroll's RUN_PAYOUT_WAIT; docs/gaps.md "next_action"):
 * its instruction's next_action (funds, payees' identity or accounts); null before the link has
 * submitted it (that happens by itself) and once it is final.
 */
export async function runPayoutWait(platform: Platform, org: string, runId: string): Promise<NextAction | null> {
  try {
    return instructionNextAction(await platform.system.state(PayoutInstruction, runInstructionIdOf(org, runId), org));
  } catch (e) {
    if (!isApiError(e) || e.code !== 'not_found') throw e;
  }
  const link = await platform.system.state(RunLink, runLinkIdOf(org, runId), org).catch((e) => {
    if (isApiError(e) && e.code === 'not_found') return null;
    throw e;
  });
  if (link?.note !== NO_ACCOUNT_NOTE) return null;
  return nextAction('add_payee_account', link.note, { method: 'PATCH', path: '/v1/pay_profiles/{pay_profile_id}' });
}
