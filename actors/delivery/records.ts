/**
 * Write-once records derived from the journal: audit entries and public events. They have no
 * lifecycle (recorded once, never changed), so they are not actors: each is one key-value record
 * plus its list memberships, written in one batch per feed pass. Their ids and contents are
 * functions of the journal event, so writing one again (the feed re-read after a crash) changes
 * nothing, and the whole set can be rebuilt by reading the feed from the start.
 */
import type { IndexEntry } from '../../runtime/index.ts';
import { ApiError, listEnvelope, type ListEnvelope, parseListQuery } from '../../kernel/index.ts';
import type { IndexOp, Stores } from '../../stores/index.ts';

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
  ) {}

  private key(id: string): string {
    return `derived:${this.kind}:${id}`;
  }

  private list(org: string, list: string): string {
    return `${org}/${this.kind}/${list}`;
  }

  async put(batch: Derived<T>[]): Promise<void> {
    if (batch.length === 0) return;
    const ops: IndexOp[] = [];
    await Promise.all(batch.map((d) => this.stores.kv.set(this.key(d.id), { org: d.org, record: d.record })));
    for (const d of batch) for (const e of d.lists) ops.push({ op: 'put', list: this.list(d.org, e.list), id: d.id, sortKey: e.sortKey });
    await this.stores.indexes.apply(ops);
  }

  /** The record of `id`, checked against the caller's organisation (spec 5.5). */
  async get(id: string, org: string): Promise<T | undefined> {
    const found = await this.stores.kv.get<{ org: string; record: T }>(this.key(id));
    if (!found) return undefined;
    if (found.org !== org) throw new ApiError('organisation_mismatch', `${id} belongs to another organisation.`);
    return found.record;
  }

  async page<V>(org: string, list: string, query: { limit?: number; starting_after?: string } | undefined, order: 'asc' | 'desc', view: (id: string, r: T) => V): Promise<ListEnvelope<V>> {
    const { limit, after } = parseListQuery(query);
    const page = await this.stores.indexes.page(this.list(org, list), { after, limit, order });
    const data = await Promise.all(page.ids.map(async (id) => view(id, (await this.get(id, org))!)));
    return listEnvelope(data, page.hasMore);
  }
}
