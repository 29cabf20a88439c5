/**
 * One reading of the journal feed for every per-node reader of a node (kernel platformFeed,
 * perNode). Such a reader keeps a read model in memory (a gate, the supply map) and reads the whole
 * feed from its start after every start; reading it once per reader would fetch and decode every
 * record once per reader, so a start with a large journal would take that many times as long. The
 * group reads each batch once, with a per-node FeedReader of its own, and hands it to every member.
 *
 * Each member keeps its own cursor, in memory, as a per-node FeedReader does: it is handed only the
 * entries past it, in feed order, each once while it runs, and its handler may end a batch early
 * (the group's pass then ends there too, and the rest is read at the next append). A member that
 * starts behind the group's reader (it joined late, or stopped and started again) sends the
 * reader back to its cursor: that stretch is read again and handed to the members behind only.
 */
import { firstAfter, type FeedEntry, type FeedFilter } from '../stores/index.ts';
import { type FeedProgress, FeedReader, type FeedReaderOptions } from './feed-reader.ts';

/** Handles one batch of a member, as a FeedReader's handler does; `reader.stopping` is the member's. */
export type MemberHandler = (entries: FeedEntry[], reader: FeedProgress) => Promise<number | void>;

export type FeedGroupOptions = Omit<FeedReaderOptions, 'handle' | 'perNode'>;

export class FeedGroup {
  private readonly members = new Set<FeedMember>();
  private readonly reader: FeedReader;
  /** A member has joined since the group was made. */
  private begun = false;
  /** What the reader reads (refilter). */
  private only: FeedFilter | undefined;

  constructor(opts: FeedGroupOptions) {
    this.reader = new FeedReader({ ...opts, perNode: true, handle: (entries) => this.fanOut(entries), only: () => this.only });
  }

  /**
   * A new member, not yet started; `name` says whose handler failed in the group's log. `wants`
   * says which records its handler reads: while every member says so, the group reads only the
   * records one of them wants (a start over a large journal then reads the events of those alone).
   * A member is still handed whatever the batch holds, and ignores what it does not read.
   */
  member(name: string, handle: MemberHandler, wants?: FeedFilter): FeedMember {
    return new FeedMember(this, name, handle, wants);
  }

  /** Resolves once the feed has been read to its end (as of the call) for every running member. */
  caughtUp(): Promise<void> {
    return this.reader.caughtUp();
  }

  get idle(): boolean {
    return this.reader.idle;
  }

  /**
   * For FeedMember.start. The first member to join sets where the group begins reading: its cursor
   * is past 0 when it took back what it had read before a restart (kernel read-model-checkpoints),
   * and a later member behind it sends the reader back as any late member does.
   */
  join(m: FeedMember): void {
    if (!this.begun) {
      this.begun = true;
      if (m.cursor > 0) this.reader.startAt(m.cursor);
    }
    this.members.add(m);
    this.refilter();
    this.reader.rewind(m.cursor);
    this.reader.start();
  }

  /** For FeedMember.stop: the reader stops with the last member (and keeps its cursor for the next). */
  async leave(m: FeedMember): Promise<void> {
    this.members.delete(m);
    this.refilter();
    if (this.members.size === 0) await this.reader.stop();
  }

  /** The records some member reads, when every member says which it reads. */
  private refilter(): void {
    const wants = [...this.members].map((m) => m.wants);
    this.only = wants.length && wants.every((w) => w !== undefined) ? (stream, from) => wants.some((w) => w!(stream, from)) : undefined;
  }

  /**
   * Hands the batch to every running member at once and reports it finished up to the members'
   * lowest cursor: a member that ended early is read to again from there, as its own reader would.
   */
  private async fanOut(entries: FeedEntry[]): Promise<number> {
    const last = entries[entries.length - 1].position;
    const taking = [...this.members];
    // every member's handling ends before a failure is reported: the batch is read again only
    // once none of them is still in it, so none is handed an entry twice
    const taken = await Promise.allSettled(taking.map((m) => m.take(entries, last)));
    for (const t of taken) if (t.status === 'rejected') throw t.reason;
    let lowest = last;
    for (const m of taking) if (!m.stopping && m.cursor < lowest) lowest = m.cursor;
    return lowest === last ? entries.length : firstAfter(entries, lowest);
  }
}

/** One reader of a group: started, stopped and awaited as a FeedReader is. */
export class FeedMember {
  /** Position of the last entry this member finished. */
  cursor = 0;
  private stopped = true;
  private inHand: Promise<unknown> | undefined;

  constructor(
    private readonly group: FeedGroup,
    readonly name: string,
    private readonly handle: MemberHandler,
    /** The records its handler reads (FeedGroup.member); none: every record. */
    readonly wants?: FeedFilter,
  ) {}

  /** True once stop() was called: a handler in the middle of a batch may end it early. */
  get stopping(): boolean {
    return this.stopped;
  }

  get idle(): boolean {
    return this.stopped || this.group.idle;
  }

  start(): void {
    if (!this.stopped) return;
    this.stopped = false;
    this.group.join(this);
  }

  /** Waits for the batch in hand; the group reads on for the other members. */
  async stop(): Promise<void> {
    if (this.stopped) return;
    this.stopped = true;
    const left = this.group.leave(this);
    await this.inHand?.catch(() => undefined);
    await left;
  }

  /** Resolves once the feed has been read to its end (as of the call). */
  caughtUp(): Promise<void> {
    return this.group.caughtUp();
  }

  /** For FeedGroup: the entries of the batch past this member's cursor, if any. */
  async take(entries: FeedEntry[], last: number): Promise<void> {
    if (this.stopped || last <= this.cursor) return;
    const mine = entries[0].position > this.cursor ? entries : entries.slice(firstAfter(entries, this.cursor));
    const handled = this.handle(mine, this).catch((e) => {
      throw new Error(`${this.name}: handling entries ${mine[0].position} to ${mine[mine.length - 1].position} failed`, { cause: e });
    });
    this.inHand = handled;
    const done = (await handled) ?? mine.length;
    if (done > 0) this.cursor = mine[done - 1].position;
  }
}
