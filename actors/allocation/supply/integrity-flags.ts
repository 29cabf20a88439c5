/**
 * The integrity flag operation the routes call (spec 3 "Integrity flag", 4.7 adjudicate): a person
 * decides an open flag once, and the worker it names learns the decision before the answer goes.
 */
import { type Caller, isApiError, type Platform } from '../../../kernel/index.ts';
import { type AdjudicateCommand, IntegrityFlag } from './integrity-flag.ts';
import { Worker, workerActorId } from './worker.ts';

type Decided = { worker_id: string; status: 'upheld' | 'dismissed'; suspends: boolean };

/** POST .../integrity_flags/{integrity_flag_id}/adjudicate: the decided flag. */
export async function adjudicateFlag(platform: Platform, caller: Caller, id: string, body: AdjudicateCommand): Promise<Decided> {
  const flag = (await platform.system.ask(IntegrityFlag, id, 'adjudicate', body, caller)) as Decided;
  // The decision reaches the worker before the answer does, so a signal sent after this answer
  // opens a new flag (spec 3) rather than landing on the decided one. The service's commit
  // listener and the reaction send the same command later: a no-op then.
  try {
    await platform.system.ask(Worker, workerActorId(caller.org, flag.worker_id), 'close_flag', { flag_id: id, outcome: flag.status, suspends: flag.suspends }, { org: caller.org, principal: 'system', lane: 'system' });
  } catch (e) {
    // a worker still held under the old record scheme: adoption applies the decision (worker-directory.ts)
    if (!isApiError(e) || e.code !== 'not_found') throw e;
  }
  return flag;
}
