/**
 * Write-once records derived from the journal (the delivery area's audit entries and public
 * events are such). They have no lifecycle (recorded once, never changed), so they are not actors: each is one key-value record
 * plus its list memberships, written in one batch per feed pass. Their ids and contents are
 * functions of the journal event, so writing one again (the feed re-read after a crash) changes
 * nothing, and the whole set can be rebuilt by reading the feed from the start.
 */
import { ApiError } from '../kernel/base/index.ts';
import type { IndexOp, PageOptions, Stores } from '../stores/index.ts';
import type { IndexEntry } from './actor.ts';
import { listName } from './effects.ts';

export interface Derived<T> {
  id: string;
  org: string;
  record: T;
  lists: IndexEntry[];
}

export class DerivedRecords<T> {
  constructor(
    private readonly stores: Stores,
    /** Names the records in keys and lists, e.g. audit_entry. */
    private readonly kind: string,
    /** The lists a record is on: a page after a record finds its sort key here (IndexStore keepsNoPlaces). */
    private readonly listsOf: (record: T) => IndexEntry[],
  ) {}

  private key(id: string): string {
    return ['derived', this.kind, id].join(':'); // one flat string: the key store keeps it (effects.ts listName)
  }

  /** Named as an actor kind's lists are (effects.ts), so no two kinds' lists can meet. */
  private list(org: string, list: string): string {
    return listName(org, this.kind, list);
  }

  async put(batch: Derived<T>[]): Promise<void> {
    if (batch.length === 0) return;
    const ops: IndexOp[] = [];
    await Promise.all(batch.map((d) => this.stores.kv.set(this.key(d.id), { org: d.org, record: d.record })));
    // write-once: an id's sort keys never change, so its puts are fresh and leave no other place
    // (stores/types.ts IndexOp); written again after a crash, a put finds itself
    for (const d of batch) for (const e of d.lists) ops.push({ op: 'put', list: this.list(d.org, e.list), id: d.id, sortKey: e.sortKey, fresh: true, from: null });
    await this.stores.indexes.apply(ops);
  }

  /** The record of `id`, checked against the caller's organisation (spec 5.5). */
  async get(id: string, org: string): Promise<T | undefined> {
    const found = await this.stores.kv.get<{ org: string; record: T }>(this.key(id));
    if (!found) return undefined;
    if (found.org !== org) throw new ApiError('organisation_mismatch', `${id} belongs to another organisation.`);
    return found.record;
  }

  /**
   * One page of a list, each record as `view` shows it (the list envelope is the caller's). A member
   * whose record is missing is left out: in a cluster a record and its list places are two writes
   * to Redis, and a Redis emptied between them keeps the place alone until the feed is read again.
   */
  async page<V>(org: string, list: string, opts: { after?: string; limit: number; order: 'asc' | 'desc' }, view: (id: string, r: T) => V): Promise<{ data: V[]; has_more: boolean }> {
    const options = await this.pageOptions(org, list, opts);
    // after a record of another organisation or not on the list: no member of it (IndexStore.page)
    if (options === undefined) return { data: [], has_more: false };
    const page = await this.stores.indexes.page(this.list(org, list), options);
    const found = await Promise.all(page.ids.map((id) => this.get(id, org)));
    const data: V[] = [];
    for (let i = 0; i < page.ids.length; i++) if (found[i] !== undefined) data.push(view(page.ids[i], found[i]!));
    return { data, has_more: page.hasMore };
  }

  /** With a store that keeps no places, the sort key `after` holds in the list, read from its record. */
  private async pageOptions(org: string, list: string, opts: { after?: string; limit: number; order: 'asc' | 'desc' }): Promise<PageOptions | undefined> {
    if (opts.after === undefined || !this.stores.indexes.keepsNoPlaces) return opts;
    let record: T | undefined;
    try {
      record = await this.get(opts.after, org);
    } catch (e) {
      if (!(e instanceof ApiError && e.code === 'organisation_mismatch')) throw e;
    }
    const afterSortKey = record === undefined ? undefined : this.listsOf(record).find((e) => e.list === list)?.sortKey;
    return afterSortKey === undefined ? undefined : { ...opts, afterSortKey };
  }

}
