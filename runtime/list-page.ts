/**
 * A page of a kind's list. Over a store that keeps no place per id (stores/types.ts IndexStore
 * `keepsNoPlaces`), the sort key of the id a page follows is the one the id's state gives: the
 * runtime's list changes commit with the events they follow from, so that is the sort key the
 * store holds.
 */
import { isApiError } from '../kernel/base/index.ts';
import type { IndexPage, IndexStore } from '../stores/index.ts';
import type { AnyActorDef } from './actor.ts';
import { listName } from './effects.ts';

export async function listPage(indexes: IndexStore, def: AnyActorDef, org: string, list: string, opts: { after?: string; limit: number; order: 'asc' | 'desc' }, stateOf: (id: string) => Promise<unknown>): Promise<IndexPage> {
  const name = listName(org, def.kind, list);
  if (opts.after === undefined || !indexes.keepsNoPlaces) return indexes.page(name, opts);
  const afterSortKey = await sortKeyIn(def, opts.after, list, stateOf);
  // an id the caller's organisation has no record of, or not on this list: an empty page (spec 4 preamble)
  if (afterSortKey === undefined) return { ids: [], hasMore: false };
  return indexes.page(name, { ...opts, afterSortKey });
}

async function sortKeyIn(def: AnyActorDef, id: string, list: string, stateOf: (id: string) => Promise<unknown>): Promise<string | undefined> {
  if (!def.indexes) return undefined;
  let state: unknown;
  try {
    state = await stateOf(id);
  } catch (e) {
    if (isApiError(e) && (e.code === 'not_found' || e.code === 'organisation_mismatch')) return undefined;
    throw e;
  }
  return def.indexes(state).find((e) => e.list === list)?.sortKey;
}
