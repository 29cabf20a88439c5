/**
 * Journal on one JetStream stream, one subject per actor (DESIGN "Sharding").
 *
 * One append is one message holding all of its events, so a multi-event commit is atomic (the
 * 2.9 server has no atomic batch publish). The message is msgpack `[first, prev, events, name?]`:
 *   first  the version of its first event (the last is first + events.length - 1),
 *   prev   the stream sequence of the subject's previous message (0 for none),
 *   name   the stream name, only when its subject is hashed (names.ts: a name too long for a
 *          subject), so the feed can still say whose events they are,
 * and is published with `Nats-Expected-Last-Subject-Sequence` set to that previous sequence, so
 * a writer holding a stale view of the actor (a node that lost its shard) is refused by the
 * server itself. The feed position of an event is `seq * 1024 + index in its message`: strictly
 * increasing and resumable mid-message; stream sequences are dense because nothing is deleted.
 */
import { DeliverPolicy, type JetStreamClient, type JetStreamManager, type StoredMsg } from '@nats-io/jetstream';
import type { NatsConnection } from '@nats-io/transport-node';
import { pack, unpack } from './codec.ts';
import { rideOut } from './election.ts';
import { VersionConflictError, type FeedEntry, type Journal, type StoredEvent } from '../types.ts';
import { FeedMessages } from './feed-messages.ts';
import { isHashedSubject, nameOf, subjectOf } from './names.ts';
import { PublishAcks } from './publish-acks.ts';

/** Positions per stream message: the most events one append may carry. */
export const EVENTS_PER_MESSAGE = 1024;
/** Server error code for a failed Nats-Expected-Last-Subject-Sequence check. */
const WRONG_LAST_SEQUENCE = 10071;
/** Beyond this many messages, reading an actor walks forward with a consumer, not backward by gets. */
const WALK_LIMIT = 32;
/** Actors whose last (version, seq) is remembered, to skip a lookup before each append. */
const TIP_CACHE = 50_000;
/** Direct gets in flight per feed read round. */
const FEED_PARALLEL = 128;
/** Feed messages kept for the node's other readers (feed-messages.ts). */
const FEED_MESSAGES_KEPT = 16_384;
/** After an append watcher ended on its own, the wait before another is started (readers probe meanwhile). */
const WATCH_RETRY_MS = 1_000;

interface Tip {
  version: number;
  seq: number;
  /** The actor's subject (names.ts), worked out once per remembered actor rather than per append. */
  subject: string;
}

/** A stored commit: [version of its first event, sequence of the subject's previous message, events, name of a hashed subject]. */
type Commit = [first: number, prev: number, events: StoredEvent[], name?: string];
const commitOf = (m: StoredMsg): Commit => unpack(m.data) as Commit;
const lastVersion = (c: Commit): number => c[0] + c[2].length - 1;
/** A feed message as the readers use it: decoded once, shared by the node's readers. */
interface FeedMessage {
  seq: number;
  name: string;
  events: StoredEvent[];
}

export interface JournalNames {
  stream: string;
  prefix: string;
}

export class JetStreamJournal implements Journal {
  private readonly tips = new Map<string, Tip>();
  private readonly listeners = new Set<() => void>();
  private watcher?: { stop(): void };
  private notifyQueued = false;
  private closed = false;
  private readonly feedMessages = new FeedMessages<FeedMessage>((seq) => this.feedMessage(seq), FEED_MESSAGES_KEPT);
  /** Appends, published together once per event-loop turn and acknowledged through one inbox. */
  private readonly acks: PublishAcks;

  constructor(
    private readonly nc: NatsConnection,
    private readonly js: JetStreamClient,
    private readonly jsm: JetStreamManager,
    private readonly names: JournalNames,
    /**
     * Direct gets may be answered by any replica, which can lag the leader; with replicas > 1 reads
     * go to the leader (STREAM.MSG.GET) so an actor always reads its own appends.
     */
    private readonly direct = true,
    /** The node's publishes acknowledged through one inbox, shared with its buckets' puts (bucket-puts.ts). */
    acks?: PublishAcks,
  ) {
    this.acks = acks ?? new PublishAcks(nc);
  }

  private get(query: { seq: number } | { last_by_subj: string }): Promise<StoredMsg | null> {
    return this.direct ? this.jsm.direct.getMessage(this.names.stream, query) : this.jsm.streams.getMessage(this.names.stream, query);
  }

  /**
   * One message of an actor's stream, ridden out as the buckets' reads are (election.ts): a get
   * sent while the stream has no leader is never answered, so it is sent again after a short wait
   * instead of waiting out the client's time-out. An actor activated during an election then loads
   * as soon as the stream has a leader again, rather than failing its turn (and every command
   * queued behind it) after it. The feed's gets are not: up to FEED_PARALLEL go out at once, and
   * on a busy server sending those again would only add to what it has to answer; a feed reader
   * that fails reads again after its own backoff.
   */
  private load(query: { seq: number } | { last_by_subj: string }): Promise<StoredMsg | null> {
    return rideOut('read', () => this.get(query));
  }

  static async ensureStream(jsm: JetStreamManager, names: JournalNames, replicas: number): Promise<void> {
    const config = { name: names.stream, subjects: [`${names.prefix}.>`], allow_direct: true, num_replicas: replicas, max_msg_size: 4 << 20 };
    await ensure(jsm, names.stream, () => jsm.streams.add(config));
  }

  async append(stream: string, expectedVersion: number, events: StoredEvent[]): Promise<void> {
    if (events.length === 0) return;
    if (events.length > EVENTS_PER_MESSAGE) throw new RangeError(`at most ${EVENTS_PER_MESSAGE} events per append`);
    events.forEach((e, i) => {
      if (e.version !== expectedVersion + i + 1) throw new VersionConflictError(stream, expectedVersion + i + 1, e.version);
    });
    let tip = this.tips.get(stream);
    const subject = tip?.subject ?? subjectOf(this.names.prefix, stream);
    if (!tip || tip.version !== expectedVersion) tip = await this.tipOf(subject);
    if (tip.version !== expectedVersion) throw new VersionConflictError(stream, expectedVersion, tip.version);
    let seq: number;
    try {
      const commit: Commit = isHashedSubject(this.names.prefix, subject) ? [expectedVersion + 1, tip.seq, events, stream] : [expectedVersion + 1, tip.seq, events];
      const data = pack(commit);
      seq = (await this.acks.publish(subject, data, tip.seq)).seq;
    } catch (err) {
      if ((err as { code?: unknown }).code !== WRONG_LAST_SEQUENCE && !/wrong last sequence/i.test(String((err as Error).message))) throw err;
      this.tips.delete(stream);
      const actual = await this.tipOf(subject);
      throw new VersionConflictError(stream, expectedVersion, actual.version);
    }
    this.remember(stream, { version: expectedVersion + events.length, seq, subject });
    // The node's feed readers take its own appends from here, as they take others' from the
    // watcher: poked by this append, they would otherwise fetch the message before the watcher
    // hands it over (a direct get per commit per node).
    this.feedMessages.have(seq, { seq, name: stream, events });
    this.notify();
  }

  async read(stream: string, afterVersion: number): Promise<StoredEvent[]> {
    const subject = subjectOf(this.names.prefix, stream);
    const last = await this.load({ last_by_subj: subject });
    if (!last) return [];
    const tail = commitOf(last);
    const version = lastVersion(tail);
    this.remember(stream, { version, seq: last.seq, subject });
    if (version <= afterVersion) return [];
    const commits = version - afterVersion > WALK_LIMIT ? await this.forward(subject, last.seq) : await this.backward(tail, afterVersion);
    const out: StoredEvent[] = [];
    for (const c of commits) for (const e of c[2]) if (e.version > afterVersion) out.push(e);
    return out;
  }

  async readFeed(afterPosition: number, limit: number): Promise<FeedEntry[]> {
    const out: FeedEntry[] = [];
    let seq = Math.max(1, Math.floor(afterPosition / EVENTS_PER_MESSAGE));
    // Messages up to the highest sequence seen are fetched side by side; beyond it the read probes
    // one message, then twice as many each round while they exist. At the tail a read round thus
    // costs one get that finds nothing, not FEED_PARALLEL of them (readers are poked at every append).
    let probe = 1;
    while (out.length < limit) {
      const known = this.feedMessages.highest - seq + 1;
      const want = Math.min(FEED_PARALLEL, limit - out.length, known > 0 ? known : probe);
      const batch = await Promise.all(Array.from({ length: want }, (_, i) => this.feedMessages.get(seq + i)));
      for (const m of batch) {
        if (!m) return out;
        m.events.forEach((event, i) => {
          const position = m.seq * EVENTS_PER_MESSAGE + i;
          if (position > afterPosition && out.length < limit) out.push({ position, stream: m.name, event });
        });
      }
      seq += want;
      if (known <= 0) probe = Math.min(FEED_PARALLEL, probe * 2);
    }
    return out;
  }

  private async feedMessage(seq: number): Promise<FeedMessage | null> {
    const m = await this.get({ seq });
    if (!m) return null;
    const commit = commitOf(m);
    return { seq: m.seq, name: commit[3] ?? nameOf(this.names.prefix, m.subject), events: commit[2] };
  }

  onAppend(listener: () => void): () => void {
    this.listeners.add(listener);
    if (!this.watcher) this.watch();
    return () => {
      this.listeners.delete(listener);
      if (this.listeners.size === 0) this.unwatch();
    };
  }

  async close(): Promise<void> {
    this.closed = true;
    this.listeners.clear();
    this.unwatch();
  }

  /** The actor's current version and the sequence of its last message (0, 0 when new). */
  private async tipOf(subject: string): Promise<Tip> {
    const last = await this.load({ last_by_subj: subject });
    return last ? { version: lastVersion(commitOf(last)), seq: last.seq, subject } : { version: 0, seq: 0, subject };
  }

  /**
   * Every stream appended to since `wallMs` (the server's receive time), through an ordered consumer
   * that starts there and ends at the stream's last sequence when the call began (Journal.appendedSince).
   */
  async appendedSince(wallMs: number, visit: (stream: string, org: string) => void): Promise<void> {
    const { last_seq: last, last_ts: lastAt } = (await this.jsm.streams.info(this.names.stream)).state;
    // a consumer starting after the last message would wait for the next append
    if (last === 0 || Date.parse(lastAt) < wallMs) return;
    const consumer = await this.js.consumers.get(this.names.stream, { deliver_policy: DeliverPolicy.StartTime, opt_start_time: new Date(wallMs).toISOString() });
    const messages = await consumer.consume({ max_messages: 1024 });
    try {
      for await (const m of messages) {
        const commit = unpack(m.data) as Commit;
        const org = commit[2][0]?.org;
        if (org !== undefined) visit(commit[3] ?? nameOf(this.names.prefix, m.subject), org);
        if (m.seq >= last || m.info.pending === 0) break;
      }
    } finally {
      messages.stop();
      await consumer.delete().catch(() => {});
    }
  }

  /** Follows the back-links from the last commit to the one holding afterVersion + 1. */
  private async backward(last: Commit, afterVersion: number): Promise<Commit[]> {
    const chain = [last];
    let c = last;
    while (c[0] > afterVersion + 1 && c[1] !== 0) {
      const p = await this.load({ seq: c[1] });
      if (!p) throw new Error(`journal message ${c[1]} missing (stream ${this.names.stream})`);
      chain.push((c = commitOf(p)));
    }
    return chain.reverse();
  }

  /** Every message of one subject up to `lastSeq`, through an ordered consumer. */
  private async forward(subject: string, lastSeq: number): Promise<Commit[]> {
    const consumer = await this.js.consumers.get(this.names.stream, { filter_subjects: subject });
    const out: Commit[] = [];
    const messages = await consumer.consume({ max_messages: 256 });
    try {
      for await (const m of messages) {
        out.push(unpack(m.data) as Commit);
        if (m.seq >= lastSeq) break;
      }
    } finally {
      messages.stop();
      await consumer.delete().catch(() => {});
    }
    return out;
  }

  private remember(stream: string, tip: Tip): void {
    // Cleared whole when full: deleting a Map's oldest key one at a time makes V8 walk the deleted
    // entries on every insert, and a forgotten tip costs only one lookup before the next append.
    if (this.tips.size >= TIP_CACHE && !this.tips.has(stream)) this.tips.clear();
    this.tips.set(stream, tip);
  }

  /**
   * Listeners hear of appends by any node: an ordered consumer sees each stored message from the
   * stream's last sequence at its start on. While it runs, the node's feed readers do not probe
   * past the newest message they know (feed-messages.ts `watching`). A watcher that ends without
   * being stopped (its connection or consumer lost for good) is started again after WATCH_RETRY_MS,
   * the readers probing meanwhile.
   */
  private watch(): void {
    let stopped = false;
    let stop: () => void = () => {
      stopped = true;
    };
    const watcher = { stop: () => stop() };
    this.watcher = watcher;
    void (async () => {
      // Whole messages, not headers only: the node's feed readers then take each new message from
      // here (feed-messages.ts) instead of one direct get each, a request per message per node.
      const first = (await this.jsm.streams.info(this.names.stream)).state.last_seq + 1;
      if (stopped || this.closed) return;
      const consumer = await this.js.consumers.get(this.names.stream, { deliver_policy: DeliverPolicy.StartSequence, opt_start_seq: first });
      if (stopped || this.closed) return;
      const messages = await consumer.consume({ max_messages: 1024 });
      stop = () => {
        stopped = true;
        void messages.stop();
      };
      if (stopped || this.closed) return void messages.stop();
      this.feedMessages.watching(first);
      this.notify(); // appends made while the consumer was being created
      for await (const m of messages) {
        try {
          const commit = unpack(m.data) as Commit;
          this.feedMessages.have(m.seq, { seq: m.seq, name: commit[3] ?? nameOf(this.names.prefix, m.subject), events: commit[2] });
        } catch {
          this.feedMessages.saw(m.seq); // unreadable here: a reader's own get will say why
        }
        this.notify();
      }
    })()
      .catch(() => {})
      .finally(() => {
        if (this.watcher !== watcher) return;
        this.feedMessages.watching(undefined);
        this.watcher = undefined;
        if (stopped || this.closed || this.listeners.size === 0) return;
        this.notify(); // readers probe again until a new watcher is live
        setTimeout(() => {
          if (!this.watcher && !this.closed && this.listeners.size > 0) this.watch();
        }, WATCH_RETRY_MS).unref();
      });
  }

  private unwatch(): void {
    this.watcher?.stop();
    this.watcher = undefined;
    this.feedMessages.watching(undefined);
  }

  private notify(): void {
    if (this.notifyQueued) return;
    this.notifyQueued = true;
    queueMicrotask(() => {
      this.notifyQueued = false;
      for (const l of this.listeners) l();
    });
  }
}

/** Creates a stream unless it exists; two nodes starting at once may race, and the loser finds it made. */
export async function ensure(jsm: JetStreamManager, stream: string, add: () => Promise<unknown>): Promise<void> {
  try {
    await jsm.streams.info(stream);
    return;
  } catch {
    // absent (or unreadable): create it
  }
  try {
    await add();
  } catch (err) {
    await jsm.streams.info(stream).catch(() => {
      throw err;
    });
  }
}
