/**
 * The one list convention (spec 2.1 list envelope, spec 4 preamble, spec 8 page size):
 * `{ object: 'list', data, has_more }`; `limit` 1..100, default 25, anything else refused with 400;
 * `starting_after` is the id of the last record of the previous page, and one that is unknown or
 * belongs to another organisation gives an empty page, never a refusal (the IndexStore does that:
 * lists are per organisation, so a foreign id is simply not a member).
 *
 * Every area's list route spreads `ListQueryFields` into its query schema and answers with
 * `listPage(...)` (or `listEnvelope(...)` when it builds the page itself).
 */
import { Type, type Static, type TObject, type TProperties } from '@sinclair/typebox';
import type { ActorSystem, AnyActorDef, IndexEntry } from '../runtime/index.ts';

export const LIST_LIMIT_DEFAULT = 25;
export const LIST_LIMIT_MAX = 100;

export const ListQueryFields = {
  limit: Type.Optional(
    Type.Integer({ minimum: 1, maximum: LIST_LIMIT_MAX, default: LIST_LIMIT_DEFAULT, description: 'Page size, 1 to 100 (default 25).' }),
  ),
  starting_after: Type.Optional(
    Type.String({ minLength: 1, maxLength: 255, description: 'Id of the last record of the previous page; an id that is not yours gives an empty page.' }),
  ),
};

/** The query schema of a plain list endpoint. */
export const ListQuery = Type.Object(ListQueryFields, { additionalProperties: false });
export type ListQueryValue = Static<typeof ListQuery>;

/** A list query schema with extra filter fields. */
export function listQueryWith<P extends TProperties>(extra: P): TObject<typeof ListQueryFields & P> {
  return Type.Object({ ...ListQueryFields, ...extra }, { additionalProperties: false });
}

export interface ListPageRequest {
  limit: number;
  after?: string;
}

/** The gateway has validated the query against the schema; this applies the default. */
export function parseListQuery(q: { limit?: number; starting_after?: string } | undefined): ListPageRequest {
  const limit = q?.limit ?? LIST_LIMIT_DEFAULT;
  if (!Number.isInteger(limit) || limit < 1 || limit > LIST_LIMIT_MAX) throw new RangeError(`limit ${limit} outside 1..${LIST_LIMIT_MAX}`);
  return q?.starting_after ? { limit, after: q.starting_after } : { limit };
}

export interface ListEnvelope<T> {
  object: 'list';
  data: T[];
  has_more: boolean;
}

export const listEnvelope = <T>(data: T[], has_more: boolean): ListEnvelope<T> => ({ object: 'list', data, has_more });

export const ListEnvelopeSchema = (item: import('@sinclair/typebox').TSchema) =>
  Type.Object({ object: Type.Literal('list'), data: Type.Array(item), has_more: Type.Boolean() });

/** One page of an actor kind's list, in the order the list promises. */
export async function listPage(
  system: ActorSystem,
  def: AnyActorDef | string,
  org: string,
  list: string,
  query: { limit?: number; starting_after?: string } | undefined,
  order: 'asc' | 'desc',
): Promise<ListEnvelope<unknown>> {
  const { limit, after } = parseListQuery(query);
  const page = await system.list(def as AnyActorDef, org, list, { after, limit, order });
  return listEnvelope(page.data as unknown[], page.has_more);
}

/** The `field:value` pairs of the filters that have a value, in the order given. */
const filterPairs = (filters: Record<string, string | null | undefined>): string[] => Object.entries(filters).flatMap(([k, v]) => (v ? [`${k}:${v}`] : []));

/**
 * The lists a record stands in so that its list route can filter by any of `filters` alone, by
 * several together, or by none: one list per combination, its name the `field:value` pairs in
 * the order given, and `all` for none. A filter with no value (a set made by no run) is left
 * out, so the record is in no list that names it. `filteredList` names the list a query reads.
 */
export function filterLists(filters: Record<string, string | null | undefined>, sortKey: string): IndexEntry[] {
  const pairs = filterPairs(filters);
  const out: IndexEntry[] = [];
  for (let m = 0; m < 1 << pairs.length; m++) out.push({ list: pairs.filter((_, i) => m & (1 << i)).join(':') || 'all', sortKey });
  return out;
}

/** The one list of `filterLists` that holds the records matching every filter the query gives. */
export const filteredList = (filters: Record<string, string | null | undefined>): string => filterPairs(filters).join(':') || 'all';
