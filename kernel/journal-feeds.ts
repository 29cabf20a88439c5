/**
 * Journal feeds for areas (docs/architecture.md, "Read models every node keeps"; DESIGN
 * "Reactions"). Two shapes, each with the platform's limits, log and settle() tracking:
 * - `platformFeed`: a reader of the global journal feed, by default one for the whole cluster (a
 *   lease; its cursor in the store, at least once), or one per node (`perNode`, cursor in memory
 *   from the feed's start). The per-node readers of a platform are members of one FeedGroup: the
 *   feed is read and decoded once for all of them, not once each (a start over a large journal
 *   rebuilds every read model in one pass);
 * - `NodeReadModel`: what a read model kept in memory on every node needs: the actor system's
 *   commits as they happen (so the next read on this node sees them) and, over durable stores
 *   (local and cluster), its own per-node feed: for rebuilding after a start from the journal on
 *   disk, and in a cluster for commits made on other nodes.
 */
import { type Committed, FeedGroup, type FeedMember, FeedReader, type MemberHandler } from '../runtime/index.ts';
import type { FeedEntry, FeedFilter } from '../stores/index.ts';
import type { Platform } from './area.ts';
import { logOf } from './base/index.ts';
import { type Checkpointed, restoreReadModel } from './read-model-checkpoints.ts';

/** The per-node readers of each platform (what this node keeps in memory from the journal) and their group. */
const perNodeReaders = new WeakMap<Platform, FeedGroup>();
/** Entries per read of the per-node group. */
const PER_NODE_BATCH = 1000;

/**
 * Resolves once every per-node reader has read the journal as it stood when asked: the read
 * models kept in memory (gates, the supply map) know every record on disk. createPlatform awaits
 * it, so a platform over durable stores serves no request against a half-built gate.
 */
export async function perNodeReadersCaughtUp(platform: Platform): Promise<void> {
  await perNodeReaders.get(platform)?.caughtUp();
}

/**
 * A per-node reader (`perNode`) is a member of its platform's group, whose batches hold
 * PER_NODE_BATCH entries; its model, when `kept`, takes back what it had read before the last stop
 * (read-model-checkpoints.ts) and the member reads on from there.
 */
export function platformFeed(platform: Platform, name: string, handle: MemberHandler, opts: { perNode: true; kept?: Checkpointed; wants?: FeedFilter }): FeedMember;
export function platformFeed(platform: Platform, name: string, handle: MemberHandler, opts?: { perNode?: false; batch?: number }): FeedReader;
export function platformFeed(platform: Platform, name: string, handle: MemberHandler, opts: { perNode?: boolean; batch?: number; kept?: Checkpointed; wants?: FeedFilter } = {}): FeedReader | FeedMember {
  const system = platform.system;
  const common = {
    stores: platform.stores,
    limits: system.limits,
    track: <T>(p: Promise<T>) => system.track(p),
    halted: () => system.stopping,
  };
  // every reader's lag is on the metrics under its name, while it reads on this node
  if (!opts.perNode) {
    const reader = new FeedReader({ ...common, name, batch: opts.batch ?? 1000, handle, log: (msg, err) => (err === undefined ? logOf(name).info(msg) : logOf(name).error(msg, err)) });
    system.feeds.add(name, () => (reader.leading ? reader.position : undefined));
    return reader;
  }
  let group = perNodeReaders.get(platform);
  if (!group) perNodeReaders.set(platform, (group = new FeedGroup({ ...common, name: 'per-node', batch: PER_NODE_BATCH, log: (msg, err) => (err === undefined ? logOf('per-node feed').info(msg) : logOf('per-node feed').error(msg, err)) })));
  const member = group.member(name, handle, opts.wants);
  if (opts.kept) restoreReadModel(platform, name, opts.kept, member);
  system.feeds.add(name, () => (member.stopping ? undefined : member.cursor));
  return member;
}

export interface ReadModelHandlers {
  /** A commit made on this node (its state after the commit is in hand). */
  onCommit(c: Committed): void;
  /** Entries of the journal feed (durable stores only): every commit since the journal began, this node's included. */
  onFeed(entries: FeedEntry[]): void;
  /** What the model took from the feed, kept between a stop and a start where the stores allow (read-model-checkpoints.ts). */
  kept?: Checkpointed;
  /** The feed's records onFeed reads (runtime FeedGroup.member): false only for a record it ignores whole. */
  wants?: FeedFilter;
}

export class NodeReadModel {
  private unsubscribe: (() => void) | undefined;
  private feed: FeedMember | undefined;

  constructor(
    private readonly platform: Platform,
    private readonly name: string,
    private readonly handlers: ReadModelHandlers,
  ) {}

  start(): void {
    // ahead: the request that made a turn reads this model next (ActorSystem.onCommit)
    this.unsubscribe = this.platform.system.onCommit((c) => this.handlers.onCommit(c), { ahead: true });
    if (this.platform.stores.durable) {
      this.feed = platformFeed(this.platform, this.name, async (entries) => this.handlers.onFeed(entries), { perNode: true, kept: this.handlers.kept, wants: this.handlers.wants });
      this.feed.start();
    }
  }

  async stop(): Promise<void> {
    this.unsubscribe?.();
    await this.feed?.stop();
  }

  /** Resolves once the feed read so far is applied (durable stores); at once over memory stores. */
  async caughtUp(): Promise<void> {
    await this.feed?.caughtUp();
  }
}
