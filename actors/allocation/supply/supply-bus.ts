/**
 * How the cluster's nodes keep one supply map (supply-replica.ts): every update a node makes to
 * its replica is also published on the core NATS subject `<ns>.allocation.supply` (soft state, no
 * JetStream: what is lost is rebuilt by the next heartbeat or commit), and every node applies what
 * the others publish. Updates are coalesced per worker and sent together once the current I/O
 * phase ends (setImmediate), at most BATCH per message, msgpack-encoded.
 *
 * A node that starts asks the others (`<ns>.allocation.supply.sync`) to publish the records they
 * hold, so it sees the workers who reported before it joined. The kernel's node bus carries the
 * messages (kernel/node-bus.ts); with none (one process) there is no SupplyBus: the one node's
 * replica is the map.
 */
import { Packr, Unpackr } from 'msgpackr';
import { randomBytes } from 'node:crypto';
import { logOf, type NodeBus } from '../../../kernel/index.ts';
import type { CommittedFacts, ReportFacts, SupplyRecord, SupplyUpdate } from './supply-replica.ts';

const TOPIC = 'allocation.supply';
const SYNC = `${TOPIC}.sync`;

/** Updates per message: well under NATS's 1 MiB max_payload at about 150 bytes each. */
const BATCH = 2000;

/** Wire form: positional arrays keep a message small. */
type WireCommitted = [number, boolean, number | null, boolean, string | null, boolean, string[], number, number];
type WireReport = [number, number | null, number | null];
type WireUpdate = [string, string, WireCommitted | null, WireReport | null];
interface Message {
  /** The sending node's bus id (a node ignores its own). */
  n: string;
  u?: WireUpdate[];
  /** A joining node asks for every record. */
  sync?: true;
}

const wireCommitted = (c: CommittedFacts): WireCommitted => [c.version, c.available, c.since, c.onAssignment, c.openFlag, c.suspended, c.external, c.completed, c.failed];
const fromWireCommitted = (w: WireCommitted): CommittedFacts => ({
  version: w[0],
  available: w[1],
  since: w[2],
  onAssignment: w[3],
  openFlag: w[4],
  suspended: w[5],
  external: w[6] as CommittedFacts['external'],
  completed: w[7],
  failed: w[8],
});
const wireReport = (r: ReportFacts): WireReport => [r.at, r.latitude, r.longitude];
const fromWireReport = (w: WireReport): ReportFacts => ({ at: w[0], latitude: w[1], longitude: w[2] });

export interface BusCounters {
  sent: number;
  messagesSent: number;
  received: number;
  bytesSent: number;
}

export class SupplyBus {
  readonly id = randomBytes(8).toString('hex');
  readonly counters: BusCounters = { sent: 0, messagesSent: 0, received: 0, bytesSent: 0 };
  private readonly pending = new Map<string, SupplyUpdate>();
  private scheduled: NodeJS.Immediate | undefined;
  private unsubscribes: (() => void)[] = [];
  private readonly packr = new Packr({ useRecords: false });
  private readonly unpackr = new Unpackr({ useRecords: false });

  constructor(
    private readonly bus: NodeBus,
    private readonly onUpdates: (updates: SupplyUpdate[]) => void,
    private readonly everything: () => Iterable<SupplyRecord>,
    private readonly log: (msg: string, e?: unknown) => void = (m, e) => logOf('allocation').error(`supply bus: ${m}`, e),
  ) {}

  start(): void {
    const failed = (e: Error) => this.log('subscription failed', e);
    const handle = (data: Uint8Array) => {
      let m: Message;
      try {
        m = this.unpackr.unpack(data) as Message;
      } catch (e) {
        return this.log('an undecodable message was dropped', e);
      }
      if (m.n === this.id) return;
      if (m.sync) return this.sendAll();
      if (!m.u) return;
      this.counters.received += m.u.length;
      this.onUpdates(m.u.map((w) => ({ org: w[0], workerId: w[1], committed: w[2] ? fromWireCommitted(w[2]) : null, report: w[3] ? fromWireReport(w[3]) : null })));
    };
    this.unsubscribes.push(this.bus.subscribe(TOPIC, handle, failed), this.bus.subscribe(SYNC, handle, failed));
    this.bus.publish(SYNC, this.packr.pack({ n: this.id, sync: true } satisfies Message));
  }

  stop(): void {
    this.flush();
    for (const stop of this.unsubscribes) stop();
    this.unsubscribes = [];
  }

  /** Queue an update (the latest per worker wins within one I/O phase). */
  send(u: SupplyUpdate): void {
    const k = `${u.org}\u0000${u.workerId}`;
    const held = this.pending.get(k);
    // two updates of one worker in one phase: keep the newer of each part
    if (held) this.pending.set(k, { ...u, committed: u.committed ?? held.committed, report: u.report ?? held.report });
    else this.pending.set(k, u);
    this.scheduled ??= setImmediate(() => this.flush());
  }

  flush(): void {
    if (this.scheduled) clearImmediate(this.scheduled);
    this.scheduled = undefined;
    if (!this.pending.size || this.bus.closed) return this.pending.clear();
    const all = [...this.pending.values()];
    this.pending.clear();
    for (let i = 0; i < all.length; i += BATCH) {
      const u = all.slice(i, i + BATCH).map((x): WireUpdate => [x.org, x.workerId, x.committed ? wireCommitted(x.committed) : null, x.report ? wireReport(x.report) : null]);
      const data = this.packr.pack({ n: this.id, u } satisfies Message);
      try {
        this.bus.publish(TOPIC, data);
      } catch (e) {
        this.log('publish failed (the next update of each worker repairs it)', e);
        return;
      }
      this.counters.sent += u.length;
      this.counters.messagesSent++;
      this.counters.bytesSent += data.length;
    }
  }

  /** A node joined: publish every record held here (merging makes the repeats from other nodes harmless). */
  private sendAll(): void {
    for (const r of this.everything()) this.send({ org: r.org, workerId: r.workerId, committed: r.committed, report: r.report });
  }
}
