/**
 * Cascade removal (spec 6: "A revocation of identity or a lapse of legal standing removes the
 * worker from every live allocation cascade and cancels unstarted assignments within 60 seconds";
 * spec 8: 60 s at most). One reader of the journal feed for the cluster (at least once, its cursor
 * kept in the store) watches the other modules' events that end a worker's eligibility:
 *   identity     passport.ended                                       -> identity_revoked
 *   engagements  engagement.lapsed / .terminated / .disputed          -> legal_standing_lapsed
 *   credentials  licence.expired (only work needing that occupation)  -> licence_lapsed
 *   allocation   integrity_flag.upheld that suspends                  -> integrity_flag_upheld
 * and withdraws the worker's pending offers in every live work order, found through the work
 * orders' `pending_worker:` lists (never a scan): each withdrawal is the work order's own recorded
 * transition and event, and its cascade moves on to the next candidate. The worker's assignments not
 * yet started are cancelled the same way (`unstarted_worker:` lists). It reacts; it never polls.
 */
import type { FeedReader } from '../../../runtime/index.ts';
import { type Platform, platformFeed, serviceKey } from '../../../kernel/index.ts';
import type { FeedEntry } from '../../../stores/index.ts';
import { LICENCE_EXPIRED, LICENCE_KIND } from '../../credentials/index.ts';
import { STANDING_DISPUTED, STANDING_KIND, STANDING_LAPSED, STANDING_TERMINATED } from '../../engagements/index.ts';
import { PASSPORT_ENDED, PASSPORT_KIND } from '../../identity/index.ts';
import { IntegrityFlag } from '../supply/integrity-flag.ts';
import { workerActorId } from '../supply/worker.ts';
import { pendingList, WorkOrder } from './work-order.ts';
import { Assignment } from '../assignments/assignment.ts';

export const CASCADE_REMOVAL = serviceKey<CascadeRemoval>('allocation-cascade-removal');

export interface Removal {
  org: string;
  worker_id: string;
  reason: 'identity_revoked' | 'legal_standing_lapsed' | 'licence_lapsed' | 'integrity_flag_upheld';
  occupation_code?: string;
  event_id: string;
}

function str(v: unknown): string | undefined {
  return typeof v === 'string' && v.length > 0 ? v : undefined;
}

/** The removal an event calls for, if any (every event of the feed passes here). */
export function removalOf(entry: FeedEntry): Removal | undefined {
  const dot = entry.stream.indexOf('.');
  const kind = entry.stream.slice(0, dot);
  const e = entry.event;
  const d = (e.data ?? {}) as Record<string, unknown>;
  let worker: string | undefined;
  let reason: Removal['reason'] | undefined;
  let occupation: string | undefined;
  if (kind === PASSPORT_KIND && e.type === PASSPORT_ENDED) [worker, reason] = [str(d.subject_ref), 'identity_revoked'];
  else if (kind === STANDING_KIND && (e.type === STANDING_LAPSED || e.type === STANDING_TERMINATED || e.type === STANDING_DISPUTED)) [worker, reason] = [str(d.worker_ref), 'legal_standing_lapsed'];
  else if (kind === LICENCE_KIND && e.type === LICENCE_EXPIRED) [worker, reason, occupation] = [str(d.subject_ref), 'licence_lapsed', str(d.occupation_code)];
  else if (kind === IntegrityFlag.kind && e.type === 'integrity_flag.upheld' && d.suspends === true) [worker, reason] = [str(d.worker_id), 'integrity_flag_upheld'];
  if (!worker || !reason) return undefined;
  return { org: e.org, worker_id: worker, reason, ...(occupation ? { occupation_code: occupation } : {}), event_id: e.id };
}

export class CascadeRemoval {
  private feed: FeedReader | undefined;

  constructor(private readonly platform: Platform) {}

  start(): void {
    this.feed = platformFeed(this.platform, 'allocation-cascade-removal', (entries) => this.handle(entries), { batch: 500 });
    this.feed.start();
  }

  async stop(): Promise<void> {
    await this.feed?.stop();
  }

  private async handle(entries: FeedEntry[]): Promise<void> {
    for (const entry of entries) {
      const r = removalOf(entry);
      if (r) await this.remove(r);
    }
  }

  /** Withdraws the worker's pending offers in every live work order of the organisation. */
  async remove(r: Removal): Promise<number> {
    const { system } = this.platform;
    // The list shrinks as offers are withdrawn: read it whole first, then withdraw.
    const all: string[] = [];
    for await (const ids of system.eachIds(WorkOrder, r.org, pendingList(r.org, r.worker_id))) all.push(...ids);
    const withdraw = { worker_id: r.worker_id, reason: r.reason, ...(r.occupation_code ? { occupation_code: r.occupation_code } : {}) };
    // Each work order is its own actor: their withdrawals run side by side (spec 8's 60 s is for all
    // of a worker's cascades; a worker may be in thousands), IN_FLIGHT at a time.
    await inParallel(all, (id) => system.ask(WorkOrder, id, 'withdraw_worker', withdraw, { org: r.org, principal: 'system', lane: 'system', noReply: true, dedupeId: `cascade:${r.event_id}:${id}` }));
    // ... and cancels their unstarted assignments (spec 6).
    const unstarted: string[] = [];
    for await (const ids of system.eachIds(Assignment, r.org, `unstarted_worker:${workerActorId(r.org, r.worker_id)}`)) unstarted.push(...ids);
    await inParallel(unstarted, (id) => system.ask(Assignment, id, 'cancel_for_removal', { reason: r.reason }, { org: r.org, principal: 'system', lane: 'system', noReply: true, dedupeId: `cascade:${r.event_id}:${id}` }));
    return all.length + unstarted.length;
  }
}

/**
 * Commands to distinct actors in flight at once; the first failure is thrown once all settled (the
 * feed retries the entry). A withdrawal on another node is a request there and a journal append
 * before its answer, so the removal of a worker from many cascades is waves of round trips: the
 * wider a wave, the fewer of them within spec 6's 60 seconds. Each goes to another actor's mailbox, so none of them fills one.
 */
const IN_FLIGHT = 1024;

async function inParallel(ids: readonly string[], send: (id: string) => Promise<unknown>): Promise<void> {
  let next = 0;
  let failure: unknown;
  await Promise.all(
    Array.from({ length: Math.min(IN_FLIGHT, ids.length) }, async () => {
      while (next < ids.length) {
        const id = ids[next++];
        try {
          await send(id);
        } catch (e) {
          failure ??= e;
        }
      }
    }),
  );
  if (failure !== undefined) throw failure;
}
