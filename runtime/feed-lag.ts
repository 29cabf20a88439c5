/**
 * The lag of every reader of the journal feed on this node (docs/gaps.md#metrics): the journal
 * entries committed past each reader's position, counted at a scrape by one bounded read of the
 * feed per distinct position (readers that keep up share one, which answers nothing). A reader
 * says its position while it reads on this node: a shared reader on the node holding its lease
 * (reactions, the delivery feed), a per-node reader (a gate's read model) on every node. Put on
 * the runtime's board, so the gateway's metrics show it as they show the areas' figures.
 */
import type { Journal } from '../stores/index.ts';
import type { Figure, FigureBoard } from './figures.ts';

/** A reader's feed position now, or undefined while it does not read on this node. */
export type FeedPosition = () => number | undefined;

/** The lag is counted up to this many entries: one bounded read per distinct position at a scrape. */
export const FEED_LAG_CAP = 1_000;

const HELP = `Journal entries committed past a feed reader's position, on the node that reads it (counted up to ${FEED_LAG_CAP}).`;

export class FeedLag {
  private readonly readers = new Map<string, FeedPosition>();

  constructor(
    private readonly journal: Journal,
    board: FigureBoard,
  ) {
    board.add('feed-lag', () => this.figures());
  }

  /** Names a reader (its name is the metric's `reader` label); returns its removal. */
  add(name: string, position: FeedPosition): () => void {
    this.readers.set(name, position);
    return () => {
      if (this.readers.get(name) === position) this.readers.delete(name);
    };
  }

  async figures(): Promise<Figure[]> {
    const counted = new Map<number, Promise<number>>();
    const out: Array<Promise<Figure>> = [];
    for (const [reader, position] of this.readers) {
      const at = position();
      if (at === undefined) continue;
      let lag = counted.get(at);
      if (lag === undefined) counted.set(at, (lag = this.journal.readFeed(at, FEED_LAG_CAP).then((e) => e.length)));
      out.push(lag.then((value): Figure => ({ name: 'platform_feed_lag_entries', help: HELP, type: 'gauge', labels: { reader }, value })));
    }
    return Promise.all(out);
  }
}
