/**
 * The stores as an area sees them (docs/architecture.md "Adding an area"): the key-value records,
 * the ordered lists, the heartbeat readings and an actor's own events, each through one accessor.
 * An area never reads `platform.stores` itself (test/architecture/area-boundaries.test.ts): which family
 * serves the platform (memory, local or cluster), how a stream is named in the journal and what
 * else the stores hold are the runtime's and the stores' business, so an area written on these
 * reads the same in every mode.
 */
import type { FeedEntry, IndexStore, KeyValueStore, ReadingStore, StoredEvent } from '../stores/index.ts';
import { type AnyActorDef, DerivedRecords, type IndexEntry, streamKey } from '../runtime/index.ts';
import type { Platform } from './area.ts';

/** Records under a key, with expiry and compare-and-set (credentials, digests, cursors). */
export const keyValue = (platform: Platform): KeyValueStore => platform.stores.kv;

/** Ordered lists an area keeps beside its actors' own (a vault's digest lists). */
export const lists = (platform: Platform): IndexStore => platform.stores.indexes;

/** Heartbeat readings per worker, kept for the retention window. */
export const readings = (platform: Platform): ReadingStore => platform.stores.readings;

/** Every event of one actor, oldest first (a bundle of the records behind a document). */
export const actorEvents = (platform: Platform, def: AnyActorDef, id: string): Promise<StoredEvent[]> => platform.stores.journal.read(streamKey(def, id), 0);

/**
 * The journal feed after a position, oldest first, up to `limit` entries: a projection written
 * again from the whole journal reads it in pages (the delivery area's audit entries and public
 * events, docs/cluster.md). A projection kept current reads the feed through `platformFeed`.
 */
export const journalFeed = (platform: Platform, after: number, limit: number): Promise<FeedEntry[]> => platform.stores.journal.readFeed(after, limit);

/** Write-once records derived from the journal, under a name of their own (the delivery area's audit entries and public events). */
export const derivedRecords = <T>(platform: Platform, kind: string, listsOf: (record: T) => IndexEntry[]): DerivedRecords<T> => new DerivedRecords<T>(platform.stores, kind, listsOf);
