/**
 * Resolving payouts whose outcome is not known (spec 2.11, 4.10 resolve and mark_unknown): asking a
 * rail's status query now, for one payout or every unknown or pending one of an instruction, and
 * marking an instruction's sending and pending payouts unknown when an operator says their answers
 * are lost. Each answer is recorded on the payout actor as a reminder's would be.
 */
import { ApiError, type Caller, type Platform } from '../../kernel/index.ts';
import { PayoutInstruction } from './instruction.ts';
import { Payout, type PayoutState } from './payout.ts';
import { payoutsService } from './service.ts';

/** Every payout of an instruction in a status, as states. */
export async function* payoutsOf(platform: Platform, org: string, instructionId: string, status?: string): AsyncGenerator<PayoutState[]> {
  const list = status ? `instruction:${instructionId}:status:${status}` : `instruction:${instructionId}`;
  for await (const ids of platform.system.eachIds(Payout, org, list)) {
    yield await Promise.all(ids.map((pid) => platform.system.state(Payout, pid, org)));
  }
}

/** POST /v1/payouts/payouts/{id}/resolve: ask the rail now (409 unless the payout waits for an answer). */
export async function resolvePayout(platform: Platform, caller: Caller, payoutId: string): Promise<unknown> {
  const s = await platform.system.state(Payout, payoutId, caller.org);
  const a = s.attempts[s.attempts.length - 1];
  if (!a || (s.status !== 'unknown' && s.status !== 'pending')) throw new ApiError('conflict', `Payout ${payoutId} is ${s.status}; only an unknown or pending payout is resolved by asking its rail.`, { status: s.status });
  await payoutsService(platform).calls.query(caller.org, payoutId, a.id, a.rail_id);
  return platform.system.get(Payout, payoutId, caller.org);
}

export async function markUnknown(platform: Platform, caller: Caller, id: string, reason: string): Promise<unknown> {
  await platform.system.ask(PayoutInstruction, id, 'mark_unknown', { reason }, caller);
  let marked = 0;
  for (const status of ['sending', 'pending']) {
    for await (const page of payoutsOf(platform, caller.org, id, status)) {
      for (const p of page) {
        if (p.status !== 'sending' && p.status !== 'pending') continue;
        await platform.system.ask(Payout, p.id, 'mark_unknown', { reason }, { ...caller, dedupeId: `mark_unknown:${caller.requestId ?? reason}` });
        marked++;
      }
    }
  }
  return { ...((await platform.system.get(PayoutInstruction, id, caller.org)) as object), marked_unknown: marked };
}

/** Asks the rail about every unknown or pending payout of the instruction, then reports the finals. */
export async function resolveInstruction(platform: Platform, caller: Caller, id: string): Promise<unknown> {
  const { calls, outcomes } = payoutsService(platform);
  await platform.system.ask(PayoutInstruction, id, 'resolve', {}, caller);
  let asked = 0;
  for (const status of ['unknown', 'pending']) {
    for await (const page of payoutsOf(platform, caller.org, id, status)) {
      await Promise.all(page.filter((p) => p.status === status).map((p) => {
        asked++;
        const a = p.attempts[p.attempts.length - 1];
        return calls.query(caller.org, p.id, a.id, a.rail_id);
      }));
    }
  }
  await outcomes.flush();
  return { ...((await platform.system.get(PayoutInstruction, id, caller.org)) as object), status_queries_asked: asked };
}
