/**
 * The allocation area's node-local process: the supply map of the whole cluster
 * (supply-replica.ts, fed between nodes by supply-bus.ts over the kernel's node bus) kept in step
 * with every worker transition, the soft state of the workers this node takes heartbeats for
 * (live.ts), and the node's heartbeat counters. The area's index.ts starts it; the operations that
 * ingest heartbeats (heartbeats.ts) and change or read a worker (workers.ts) run on it.
 *
 * Where a worker's facts live: the Worker actor's committed state is the one record of their
 * transitions; live.ts holds, on the node taking their heartbeats, the recent readings and a copy
 * of that committed state (replaced by each commit's state); the replica holds what the map needs
 * of both, on every node.
 */
import { ApiError, logOf, nodeBus, readings, serviceKey, subjectNumbers, type Platform } from '../../../kernel/index.ts';
import type { Committed } from '../../../runtime/index.ts';
import { LiveWorkers, type LiveWorker } from './live.ts';
import type { LoadedPolicy } from '../policy.ts';
import type { NetworkCrossCheckProvider } from '../providers/network-cross-check.ts';
import type { Neighbour, SupplyChange, SupplyMap } from './supply-map.ts';
import { SupplyBus } from './supply-bus.ts';
import { committedFacts, SupplyReplica, type SupplyRecord, type SupplyUpdate } from './supply-replica.ts';
import { Worker, workerActorId, type WorkerState } from './worker.ts';
import { WorkerDirectory } from './worker-directory.ts';
import { IngestCounters } from './counters.ts';
import { IntegrityFlag } from './integrity-flag.ts';

/** The allocation area's running service on a platform (registered in its start). */
export const ALLOCATION = serviceKey<AllocationService>('allocation');

/** The running allocation service of a platform. */
export const allocationService = (platform: Platform): AllocationService => platform.services.require(ALLOCATION);

export class AllocationService {
  /** Every worker of the cluster the supply map needs, with the map itself. */
  readonly replica: SupplyReplica;
  readonly live: LiveWorkers;
  readonly workers: WorkerDirectory;
  /** The replica's transport between nodes (cluster only). */
  readonly bus: SupplyBus | undefined;
  /** What this node's heartbeat path received and accepted, per organisation (counters.ts). */
  readonly counters: IngestCounters;
  private unsubscribe: (() => void) | undefined;

  constructor(
    readonly platform: Platform,
    readonly policy: LoadedPolicy,
    readonly network: NetworkCrossCheckProvider,
  ) {
    const p = policy.pack;
    this.workers = new WorkerDirectory(platform);
    this.counters = new IngestCounters(platform.clock.now());
    this.live = new LiveWorkers(this.workers, platform.clock, readings(platform), p);
    this.replica = new SupplyReplica(p, platform.clock, subjectNumbers(platform), (r, change, next) => this.refreshed(r, change, next));
    // no node bus: one process, whose replica is the whole map
    const bus = nodeBus(platform);
    const apply = (updates: SupplyUpdate[]) => {
      for (const u of updates) this.replica.apply(u);
    };
    this.bus = bus ? new SupplyBus(bus, apply, () => this.replica.all()) : undefined;
  }

  /** The map the nearest-N query reads (this node's copy of the cluster's). */
  get supply(): SupplyMap {
    return this.replica.map;
  }

  start(): void {
    // ahead: a request reads the supply its own turn changed (ActorSystem.onCommit); the bus only
    // runs in a cluster, whose journal is not ordered, so it still hears of durable commits only
    this.unsubscribe = this.platform.system.onCommit((c) => this.onCommit(c), { ahead: true });
    this.replica.start();
    this.bus?.start();
  }

  stop(): void {
    this.unsubscribe?.();
    this.bus?.stop();
    this.replica.stop();
    this.live.clear();
  }

  /** The worker's open integrity flag, if any (an integrity signal during an assignment). */
  openFlagOf(org: string, workerId: string): string | null {
    const c = this.replica.get(org, workerId)?.committed;
    if (c) return c.openFlag;
    return this.live.peek(org, workerId)?.state.open_flag_id ?? null;
  }

  /** The nearest eligible workers of the whole cluster (the query work orders rank from). */
  nearest(org: string, latitude: number, longitude: number, radiusMetres: number, limit: number): Neighbour[] {
    return this.replica.map.nearest(org, latitude, longitude, radiusMetres, limit);
  }

  /** The worker's soft state, its copy of the committed state no older than the replica has heard of. */
  liveWorker(org: string, workerId: string): LiveWorker | Promise<LiveWorker> {
    const got = this.live.get(org, workerId);
    return got instanceof Promise ? got.then((lw) => this.catchUp(lw)) : this.catchUp(got);
  }

  /** In a cluster the worker's commits happen on its owner: read the state again once a newer version is announced. */
  private catchUp(lw: LiveWorker): LiveWorker | Promise<LiveWorker> {
    const r = this.replica.at(lw.key);
    if (!r?.committed || r.committed.version <= (lw.state.version ?? 0)) return lw;
    return this.platform.system.state(Worker, lw.id, lw.org).then((s) => (this.live.mirror(lw.org, lw.workerId, s), lw));
  }

  /**
   * What this node knows of the worker into the supply replica, and to the other nodes when it
   * was news (`send`): the latest report with the committed facts it was judged under (so any node
   * that lost a part gets it back with the worker's next batch; each part is taken only when newer).
   */
  tellSupply(lw: LiveWorker, send: boolean): SupplyRecord {
    let report: SupplyUpdate['report'] = null;
    if (lw.lastReportAt !== undefined) {
      const i = lw.recent.positionedBefore(Infinity);
      report = { at: lw.lastReportAt, latitude: i >= 0 ? lw.recent.lat[i] : null, longitude: i >= 0 ? lw.recent.lng[i] : null };
    }
    const u: SupplyUpdate = { org: lw.org, workerId: lw.workerId, committed: (lw.committed ??= committedFacts(lw.state)), report };
    const r = this.replica.apply(u, lw.key);
    if (r.newer && send && this.bus) this.bus.send(u);
    return r.record;
  }

  /** A worker command's committed state into this node's copies (in a cluster its owner may be another node, whose announcement is still on its way). */
  mirror(org: string, workerId: string, s: WorkerState): void {
    this.live.mirror(org, workerId, s);
    this.replica.apply({ org, workerId, committed: committedFacts(s), report: null });
  }

  /** A command whose answer nobody waits for; a refusal is the actor's word, anything else is logged. */
  background(p: Promise<unknown>): void {
    this.platform.system.track(p).catch((e) => {
      if (!(e instanceof ApiError)) logOf('allocation').error('background command failed', e);
    });
  }

  // -- keeping the map in step ------------------------------------------------------------------

  /** After the replica refreshed a record: record a presence change on the worker, drop soft state no longer needed. */
  private refreshed(r: SupplyRecord, change: SupplyChange, next: number | undefined): void {
    const lw = this.live.atKey(r.key);
    if (!lw) return;
    // the node taking the worker's heartbeats records their presence (one node, not every replica)
    if (r.presence !== lw.presenceSent && lw.state.created_at > 0) {
      lw.presenceSent = r.presence;
      this.background(this.platform.system.ask(Worker, lw.id, 'record_presence', { presence: r.presence }, { org: lw.org, principal: 'system', lane: 'system' }));
    }
    // out of the map with nothing left to time: drop the soft state (rebuilt on the next heartbeat
    // from the actor and the ReadingStore), so it is held only for workers who are around
    if (next === undefined && change.excluded_because !== null) this.live.forget(lw.org, lw.workerId);
  }

  private onCommit(c: Committed): void {
    if (c.kind === Worker.kind) {
      const s = c.state as WorkerState;
      if (!s.worker_id) return; // a record of the old scheme: its adopter carries it (worker-directory.ts)
      this.live.mirror(c.org, s.worker_id, s);
      const u: SupplyUpdate = { org: c.org, workerId: s.worker_id, committed: committedFacts(s), report: null };
      if (this.replica.apply(u).newer) this.bus?.send(u);
      return;
    }
    if (c.kind === IntegrityFlag.kind) {
      for (const e of c.events) {
        if (e.type !== 'integrity_flag.upheld' && e.type !== 'integrity_flag.dismissed') continue;
        const d = e.data as { worker_id: string; suspends: boolean };
        // at once, rather than when the reaction's turn comes (it sends the same command, a no-op then)
        const payload = { flag_id: c.id, outcome: e.type === 'integrity_flag.upheld' ? ('upheld' as const) : ('dismissed' as const), suspends: d.suspends === true };
        this.background(this.platform.system.ask(Worker, workerActorId(c.org, d.worker_id), 'close_flag', payload, { org: c.org, principal: 'system', lane: 'system' }));
      }
    }
  }
}
