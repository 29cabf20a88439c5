/**
 * A dead node's unwritten list and timer changes, recovered from the journal (DESIGN "Stores": the
 * journal is the outbox; runtime/activation.ts "Effects after a takeover"). A commit's changes are
 * written after its append, so a node killed between the two leaves them unwritten, and activation
 * writes them again only for an actor that is activated again, which an actor nothing else
 * addresses (a consent token waiting to expire) may never be. So a node that takes shards over from
 * lapsed leases reads the journal's appends since the earliest moment their changes may be missing
 * (ClusterNode.recoverSince) and activates every actor of those shards found there whose kind keeps
 * lists or timers: its activation writes them. A dead node's shards lapse together, so takeovers
 * close in time share one read.
 */
import type { Journal } from '../../stores/index.ts';
import type { ActorSystem } from '../system.ts';
import { shardOfStream } from './shards.ts';

/** Takeovers within this long of each other are recovered by one read of the journal. */
const GATHER_MS = 250;
/** Actors activated at once. */
const PARALLEL = 64;

export interface TakeoverRecoveryOptions {
  system: ActorSystem;
  journal: Journal;
  shards: number;
  /** When this node took the shard over from a lapsed lease (undefined: never). */
  takenOverAt(shard: number): number | undefined;
  /** The earliest append time whose changes may be missing after that takeover. */
  recoverSince(takenOverAt: number): number;
  holds(shard: number): boolean;
  log: (msg: string, err?: unknown) => void;
}

export class TakeoverRecovery {
  private readonly pending = new Set<number>();
  /** The takeover each shard was last recovered for: a shard gained again by hand-over needs nothing. */
  private readonly done = new Map<number, number>();
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  private stopped = false;

  constructor(private readonly opts: TakeoverRecoveryOptions) {}

  /** The lease table gave this node `shard`; recovers it if that was a takeover not yet recovered. */
  gained(shard: number): void {
    const at = this.opts.takenOverAt(shard);
    if (this.stopped || at === undefined || this.done.get(shard) === at || !this.opts.journal.appendedSince) return;
    this.done.set(shard, at);
    this.pending.add(shard);
    this.timer ??= setTimeout(() => {
      this.timer = undefined;
      void this.next();
    }, GATHER_MS);
  }

  /** Resolves once no recovery runs (tests; stop). */
  async idle(): Promise<void> {
    while (this.running || this.timer) await (this.running ?? new Promise((r) => setTimeout(r, GATHER_MS)));
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    await this.running;
  }

  private async next(): Promise<void> {
    if (this.running) await this.running;
    if (this.pending.size === 0 || this.stopped) return;
    const shards = new Set(this.pending);
    this.pending.clear();
    this.running = this.recover(shards).finally(() => (this.running = undefined));
    await this.running;
    if (this.pending.size) void this.next();
  }

  private async recover(shards: ReadonlySet<number>): Promise<void> {
    const { system, journal, log } = this.opts;
    const since = Math.min(...[...shards].map((s) => this.opts.recoverSince(this.opts.takenOverAt(s)!)));
    const actors = new Map<string, string>();
    // the kinds whose commits have list or timer changes, looked up once rather than per append read
    const withEffects = new Set(system.kindNames.filter((k) => system.kind(k).indexes || system.kind(k).timers));
    try {
      await journal.appendedSince!(since, (stream, org) => {
        if (!shards.has(shardOfStream(stream, this.opts.shards))) return;
        if (withEffects.has(stream.slice(0, stream.indexOf('.')))) actors.set(stream, org);
      });
    } catch (e) {
      log(`reading the journal to recover ${shards.size} shard(s) taken over failed; their actors' lists and timers are written when each is next activated`, e);
      return;
    }
    const todo = [...actors];
    let recovered = 0;
    const worker = async () => {
      for (let item = todo.pop(); item && !this.stopped; item = todo.pop()) {
        const [stream, org] = item;
        if (!this.opts.holds(shardOfStream(stream, this.opts.shards))) continue;
        const dot = stream.indexOf('.');
        await system.get(stream.slice(0, dot), stream.slice(dot + 1), org).then(
          () => recovered++,
          (e) => log(`activating ${stream.slice(0, 80)} to recover its lists and timers failed`, e),
        );
      }
    };
    await Promise.all(Array.from({ length: PARALLEL }, worker));
    if (recovered) log(`activated ${recovered} actor(s) of ${shards.size} shard(s) taken over, writing their lists and timers again`);
  }
}
