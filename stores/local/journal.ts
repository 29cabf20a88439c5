import type { Database } from 'lmdb';
import { appendConflict, firstAfter, type AppendItem, type FeedEntry, type FeedFilter, type Journal, type StoredEvent } from '../types.ts';
import type { LocalIndexes } from './indexes.ts';
import type { LocalReminders } from './reminders.ts';
import { PAST, SEP, fixed, join } from './keys.ts';
import type { Writer } from './writer.ts';

/** Feed entries kept in memory as committed, so readers that keep up never decode from disk. */
const RECENT = 16_384;

/**
 * The journal on disk (DESIGN "Stores": the source of truth of the local family).
 *
 * - `events`: (stream, version) -> what one append wrote to the stream: the event itself, or, for
 *   an append of several, their list, under the last one's version. A stream is a key range read
 *   in order; its head (last version, the check of an append's expected version) is the last key
 *   of its range, so an append writes one record and one feed entry however many events it holds
 *   (a B-tree put is the cost of a write here: each lands on a page the commit writes and syncs).
 * - `feed`: position -> the key in `events` of the record holding the event, every append in
 *   commit order; a record of several events takes their positions under the last one's.
 *
 * An append and its commit's effects (list and timer changes, AppendItem.effects) are written in
 * one transaction with the events, so a crash keeps both or neither. Positions are given inside
 * the transaction, so the feed's order is the commit order; a transaction that fails leaves a gap,
 * which readers step over (positions only ever increase).
 */
export class LocalJournal implements Journal {
  readonly writesEffects = true;
  /** One writer commits transactions in turn, and fails every later one after a failure (writer.ts). */
  readonly ordered = true;
  private readonly listeners = new Set<() => void>();
  private position: number;
  /** The newest committed feed entries, in order; `recent[0]` is at `recentFirst`. */
  private recent: FeedEntry[] = [];

  constructor(
    private readonly events: Database,
    private readonly feed: Database,
    private readonly indexes: LocalIndexes,
    private readonly reminders: LocalReminders,
    private readonly writer: Writer,
  ) {
    this.position = 0;
    for (const { key } of this.feed.getRange({ reverse: true, limit: 1 })) this.position = key as number;
  }

  async append(stream: string, expectedVersion: number, events: StoredEvent[]): Promise<void> {
    const [err] = await this.appendMany([{ stream, expectedVersion, events }]);
    if (err) throw err;
  }

  async appendMany(items: AppendItem[]): Promise<Array<Error | undefined>> {
    const entries: FeedEntry[] = [];
    const results = await this.writer.run(() => this.write(items, entries));
    if (entries.length) {
      this.remember(entries);
      for (const l of this.listeners) l();
    }
    return results;
  }

  /** Inside the write transaction: checks each item's expected version, then writes it and its effects. */
  private write(items: AppendItem[], entries: FeedEntry[]): Array<Error | undefined> {
    const results: Array<Error | undefined> = new Array(items.length);
    for (let n = 0; n < items.length; n++) {
      const { stream, expectedVersion, events, effects } = items[n];
      const prefix = join(stream, ''); // the stream's part of each record's key, made once
      const err = appendConflict(stream, expectedVersion, events, this.head(prefix));
      results[n] = err;
      if (err || events.length === 0) continue;
      const named = prefix.length === stream.length + 1; // not written as its digest (keys.ts part)
      const key = prefix + fixed(events[events.length - 1].version);
      this.events.put(key, events.length === 1 ? events[0] : events);
      for (const e of events) entries.push({ position: ++this.position, stream, event: e });
      // the record's key (a string encodes in one step, a tuple in several); with the stream when
      // the key holds only its digest
      this.feed.put(this.position, named ? key : [stream, key]);
      if (effects) {
        if (effects.indexOps.length) this.indexes.write(effects.indexOps);
        if (effects.reminderPuts.length || effects.reminderCancels.length) this.reminders.write(effects.reminderPuts, effects.reminderCancels);
      }
    }
    return results;
  }

  halt(reason: Error): void {
    this.writer.stop(reason);
  }

  async read(stream: string, afterVersion: number): Promise<StoredEvent[]> {
    const out: StoredEvent[] = [];
    // the first record past afterVersion may begin at or before it (a record of several events)
    for (const { value } of this.events.getRange({ start: join(stream, fixed(afterVersion + 1)), end: join(stream, fixed(Number.MAX_SAFE_INTEGER)) + PAST })) {
      if (!Array.isArray(value)) out.push(value as StoredEvent);
      else for (const e of value as StoredEvent[]) if (e.version > afterVersion) out.push(e);
    }
    return out;
  }

  /** A stream's last version: the version of the last record in its key range (0 when it has none). */
  private head(prefix: string): number {
    for (const key of this.events.getKeys({ start: prefix + fixed(Number.MAX_SAFE_INTEGER) + PAST, end: prefix, reverse: true, limit: 1 })) return Number((key as string).slice(-16));
    return 0;
  }

  async readFeed(afterPosition: number, limit: number, only?: FeedFilter): Promise<FeedEntry[]> {
    const recent = this.recent;
    if (recent.length && afterPosition >= recent[0].position - 1) {
      // committed and still in memory: from the first entry past afterPosition
      let i = afterPosition - recent[0].position + 1;
      if (i >= recent.length || recent[i]?.position !== afterPosition + 1) i = firstAfter(recent, afterPosition);
      const out = recent.slice(i, i + limit);
      // a position missing before the window's first (a failed transaction's, or one not yet
      // remembered) is looked for on disk, which holds every committed entry
      if (out.length === 0 || out[0].position === afterPosition + 1) return out;
      return this.readFeedFromDisk(afterPosition, limit, only);
    }
    return this.readFeedFromDisk(afterPosition, limit, only);
  }

  /**
   * From disk, a record's events read (a get at its key) and decoded only when `only` may want
   * them: a start that rebuilds the read models reads the whole feed, most of whose records none
   * of them reads (kernel read-model-checkpoints.ts, runtime/feed-group.ts).
   */
  private readFeedFromDisk(afterPosition: number, limit: number, only?: FeedFilter): FeedEntry[] {
    const out: FeedEntry[] = [];
    // an entry is a record's last position; the record before it ends before afterPosition + 1,
    // so the first entry at or past that holds the next event (each entry gives at least one)
    const rows = this.feed.getRange({ start: afterPosition + 1, limit }).asArray;
    for (let i = 0; i < rows.length; i++) {
      const { key, value } = rows[i];
      const [stream, eventKey] = typeof value === 'string' ? [value.slice(0, value.lastIndexOf(SEP)), value] : (value as [string, string]);
      if (only && i < rows.length - 1) {
        // a record holds at most as many events as positions since the entry before it (a failed
        // transaction's gap makes that more, never fewer): the lowest version it may begin at
        const from = i === 0 ? 1 : Math.max(1, Number(eventKey.slice(-16)) - ((key as number) - (rows[i - 1].key as number)) + 1);
        if (!only(stream, from)) continue;
      }
      const record = this.events.get(eventKey) as StoredEvent | StoredEvent[] | undefined;
      if (record === undefined) continue;
      const held = Array.isArray(record) ? record : [record];
      const first = (key as number) - held.length + 1;
      for (let j = 0; j < held.length && out.length < limit; j++) {
        if (first + j > afterPosition) out.push({ position: first + j, stream, event: held[j] });
      }
      if (out.length >= limit) break;
    }
    return out;
  }

  onAppend(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  async close(): Promise<void> {
    this.listeners.clear();
  }

  /** Each stream's head, in key order (moving a directory to the cluster reads every stream). */
  *streams(): Generator<{ stream: string; version: number }> {
    let stream: string | undefined;
    let version = 0;
    for (const key of this.events.getKeys({}) as Iterable<string>) {
      const at = key.lastIndexOf(SEP);
      const s = key.slice(0, at);
      if (s !== stream && stream !== undefined) yield { stream, version };
      stream = s;
      version = Number(key.slice(at + 1));
    }
    if (stream !== undefined) yield { stream, version };
  }

  /**
   * Transactions settle in commit order, so entries arrive in position order; one that would not
   * is put in its place, since readFeed searches the window by position and a reader must never
   * be handed a position at or before its cursor.
   */
  private remember(entries: FeedEntry[]): void {
    const recent = this.recent;
    for (const e of entries) {
      if (recent.length === 0 || recent[recent.length - 1].position < e.position) recent.push(e);
      else recent.splice(firstAfter(recent, e.position), 0, e);
    }
    if (recent.length > RECENT * 2) this.recent = recent.slice(recent.length - RECENT);
  }
}
