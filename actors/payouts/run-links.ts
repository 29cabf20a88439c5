/**
 * The run link's steps that need I/O (spec 1 rule 10; the actor and its table: run-link.ts): on
 * link.requested or a retry, submit the run's signed instruction (or close the link with a note
 * when there is nothing to pay); on link.outcome_due, carry the instruction's outcome to the run.
 * Each step is idempotent (derived instruction id, dedupe ids), so the link's reminder repeats it
 * safely after a node dies in between.
 */
import { type Caller, derivedId, isApiError, type Platform } from '../../kernel/index.ts';
import { payoutInstructionFor, Run, type SignedPayoutInstruction } from '../payroll/index.ts';
import { accountOf, parseDocument } from './intake.ts';
import { PayoutInstruction } from './instruction.ts';
import { RunLink, type RunLinkState, type RunOutcome } from './run-link.ts';

const SYSTEM = 'system';

/** Submits an instruction as intake does (submission.ts). */
export interface Submitter {
  submit(caller: Caller, env: SignedPayoutInstruction, id: string, dedupeId: string | undefined): Promise<unknown>;
}

export async function linkRun(platform: Platform, submitter: Submitter, org: string, linkId: string): Promise<void> {
  const link = await platform.system.state<RunLinkState>(RunLink, linkId, org);
  if (link.status === 'requested') await submitRun(platform, submitter, org, linkId, link);
  else if (link.status === 'outcome_due' && link.outcome) await deliverOutcome(platform, org, linkId, link, link.outcome);
}

async function submitRun(platform: Platform, submitter: Submitter, org: string, linkId: string, link: RunLinkState): Promise<void> {
  const { system } = platform;
  const opts = { org, principal: SYSTEM, lane: 'system' as const };
  const env = await payoutInstructionFor(system, org, link.run_id);
  if (!env) {
    await system.ask(RunLink, linkId, 'submitted', { instruction_id: null, note: 'The run has no net pay to pay out.' }, opts);
    return;
  }
  const lines = parseDocument(env.document)?.lines ?? [];
  if (!lines.some((l) => accountOf(l) !== null)) {
    // No payee of the run has a bank account on its pay profile (docs/gaps.md#payouts): every line would be held.
    await system.ask(RunLink, linkId, 'submitted', { instruction_id: null, note: 'The run\u2019s signed instruction carries no bank account on any line; set bank_account on the pay profiles and pay it by a later run.' }, opts);
    return;
  }
  const run = await system.state<{ livemode: boolean }>(Run, link.run_id, org);
  const id = derivedId(PayoutInstruction.prefix, [org, 'run_link', link.run_id]);
  await submitter.submit({ org, livemode: run.livemode, principal: SYSTEM }, env, id, `run_link:${link.run_id}`);
  await system.ask(RunLink, linkId, 'submitted', { instruction_id: id }, opts);
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
