/**
 * Where an organisation's worker is kept (spec 2.8, 4.7: a worker_id is the caller's own
 * subject_ref, so two organisations may mean two people by one string). The Worker actor of
 * (org, worker_id) is workerActorId(org, worker_id) and its readings are kept under the same id.
 *
 * Records of the old scheme (actor id and ReadingStore key = the raw worker_id, whichever
 * organisation used it first) are adopted on first use: when no record exists under the new id
 * and one of this organisation exists under the raw worker_id, its state is carried over by one
 * `adopt` command, then its readings in the retention window are copied and a flag decided
 * while it waited is applied. docs/gaps.md#allocation says why it is lazy.
 */
import { isApiError, notFound, type Platform, readings } from '../../../kernel/index.ts';
import { IntegrityFlag } from './integrity-flag.ts';
import { Worker, workerActorId, type WorkerState } from './worker.ts';

const isCode = (e: unknown, ...codes: string[]) => isApiError(e) && codes.includes(e.code);

export class WorkerDirectory {
  /** Adoptions under way on this node, so concurrent first uses run one. */
  private readonly adopting = new Map<string, Promise<boolean>>();

  constructor(private readonly platform: Platform) {}

  /** The committed state of the organisation's worker; 404 naming the worker_id when there is none. */
  async state(org: string, workerId: string): Promise<WorkerState> {
    const id = workerActorId(org, workerId);
    try {
      return await this.platform.system.state(Worker, id, org);
    } catch (e) {
      if (!isCode(e, 'not_found')) throw e;
    }
    if (!(await this.adopt(org, workerId))) throw notFound('worker', workerId);
    return this.platform.system.state(Worker, id, org);
  }

  /** The actor id, once a record of the old scheme (if any) is adopted: call before a command that creates. */
  async prepare(org: string, workerId: string): Promise<string> {
    try {
      await this.state(org, workerId);
    } catch (e) {
      if (!isCode(e, 'not_found')) throw e;
    }
    return workerActorId(org, workerId);
  }

  private adopt(org: string, workerId: string): Promise<boolean> {
    const k = `${org}\u0000${workerId}`;
    let p = this.adopting.get(k);
    if (!p) {
      p = this.adoptOnce(org, workerId).finally(() => this.adopting.delete(k));
      this.adopting.set(k, p);
    }
    return p;
  }

  /** True when a record now exists under the new id (adopted here or by a concurrent caller). */
  private async adoptOnce(org: string, workerId: string): Promise<boolean> {
    const { system } = this.platform;
    const store = readings(this.platform);
    let legacy: WorkerState;
    try {
      legacy = await system.state(Worker, workerId, org);
    } catch (e) {
      // none, or another organisation's: that one is theirs to adopt
      if (isCode(e, 'not_found', 'organisation_mismatch')) return false;
      throw e;
    }
    // a record of the new scheme whose actor id the caller used as a worker_id is not a legacy one
    if (legacy.worker_id) return false;
    const id = workerActorId(org, workerId);
    const opts = { org, principal: 'system' };
    const adopted = (await system.ask(Worker, id, 'adopt', { worker_id: workerId, legacy }, opts)) === true;
    if (!adopted) return true;
    // only the adopter copies, so the readings are copied once (a crash before this loses them)
    const copied = await store.range(workerId, -Infinity, Infinity);
    if (copied.length) await store.append(id, copied);
    // a decision reaching the new id before the adoption was refused there (404): apply it now
    if (legacy.open_flag_id !== null) {
      const flag = await system.state(IntegrityFlag, legacy.open_flag_id, org).catch((e: unknown) => {
        if (isCode(e, 'not_found')) return undefined; // not raised yet: its reaction still comes
        throw e;
      });
      if (flag && flag.status !== 'open') await system.ask(Worker, id, 'close_flag', { flag_id: flag.id, outcome: flag.status, suspends: flag.suspends }, opts);
    }
    return true;
  }
}
