/**
 * Journal feeds for areas (docs/architecture.md, "Read models every node keeps"; DESIGN
 * "Reactions"). Two shapes, each with the platform's limits, log and settle() tracking:
 * - `platformFeed`: a reader of the global journal feed, by default one for the whole cluster (a
 *   lease; its cursor in the store, at least once), or one per node (`perNode`, cursor in memory
 *   from the feed's start);
 * - `NodeReadModel`: what a read model kept in memory on every node needs: the actor system's
 *   commits as they happen (so the next read on this node sees them) and, over durable stores
 *   (local and cluster), its own per-node feed: for rebuilding after a start from the journal on
 *   disk, and in a cluster for commits made on other nodes.
 */
import { type Committed, FeedReader, type FeedHandler } from '../runtime/index.ts';
import type { FeedEntry } from '../stores/index.ts';
import type { Platform } from './area.ts';

/** The per-node readers of each platform: what this node keeps in memory from the journal. */
const perNodeReaders = new WeakMap<Platform, Set<FeedReader>>();

/**
 * Resolves once every per-node reader has read the journal as it stood when asked: the read
 * models kept in memory (gates, the supply map) know every record on disk. createPlatform awaits
 * it, so a platform over durable stores serves no request against a half-built gate.
 */
export async function perNodeReadersCaughtUp(platform: Platform): Promise<void> {
  await Promise.all([...(perNodeReaders.get(platform) ?? [])].map((r) => r.caughtUp()));
}

export function platformFeed(platform: Platform, name: string, handle: FeedHandler, opts: { perNode?: boolean; batch?: number } = {}): FeedReader {
  const system = platform.system;
  const reader = new FeedReader({
    name,
    stores: platform.stores,
    batch: opts.batch ?? 1000,
    handle,
    limits: system.limits,
    log: (msg, err) => console.error(`[${name}] ${msg}`, err ?? ''),
    track: (p) => system.track(p),
    halted: () => system.stopping,
    perNode: opts.perNode,
  });
  if (opts.perNode) {
    let readers = perNodeReaders.get(platform);
    if (!readers) perNodeReaders.set(platform, (readers = new Set()));
    readers.add(reader);
  }
  return reader;
}

export interface ReadModelHandlers {
  /** A commit made on this node (its state after the commit is in hand). */
  onCommit(c: Committed): void;
  /** Entries of the journal feed (durable stores only): every commit since the journal began, this node's included. */
  onFeed(entries: FeedEntry[]): void;
}

export class NodeReadModel {
  private unsubscribe: (() => void) | undefined;
  private feed: FeedReader | undefined;

  constructor(
    private readonly platform: Platform,
    private readonly name: string,
    private readonly handlers: ReadModelHandlers,
  ) {}

  start(): void {
    this.unsubscribe = this.platform.system.onCommit((c) => this.handlers.onCommit(c));
    if (this.platform.stores.durable) {
      this.feed = platformFeed(this.platform, this.name, async (entries) => this.handlers.onFeed(entries), { perNode: true });
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
