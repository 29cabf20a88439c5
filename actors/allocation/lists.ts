/**
 * A page of one worker's records read off a list of the records that hold them (spec 2.1 list
 * envelope, 4 preamble: limit, starting_after): the work orders that offered the worker, the
 * worker's assignments. Each member gives at most one record, or none when a filter (a status)
 * leaves it out, so the page reads members until it holds `limit` records and knows whether more
 * follow. `starting_after` is a record's id; `memberOf` names the member it came from.
 */
import { type AnyActorDef } from '../../runtime/index.ts';
import { listEnvelope, type ListEnvelope, parseListQuery, type Platform } from '../../kernel/index.ts';

/** Reads members a page's worth and one more at a time, so a full page tells whether more follow. */
export async function workerPage<S, V>(
  platform: Platform,
  def: AnyActorDef,
  org: string,
  list: string,
  query: { limit?: number; starting_after?: string } | undefined,
  memberOf: (recordId: string) => string | undefined,
  pick: (state: S) => V | undefined,
): Promise<ListEnvelope<V>> {
  const { limit, after } = parseListQuery(query);
  let cursor: string | undefined;
  if (after !== undefined) {
    cursor = memberOf(after);
    if (cursor === undefined) return listEnvelope([], false); // not a record of this kind: never the caller's (spec 4)
  }
  const out: V[] = [];
  for (;;) {
    const page = await platform.system.listIds(def, org, list, { after: cursor, limit: limit + 1, order: 'desc' });
    const states = await Promise.all(page.ids.map((id) => platform.system.state<S>(def, id, org)));
    for (const s of states) {
      const v = pick(s);
      if (v !== undefined) out.push(v);
      if (out.length > limit) return listEnvelope(out.slice(0, limit), true);
    }
    if (!page.hasMore || page.ids.length === 0) return listEnvelope(out, false);
    cursor = page.ids[page.ids.length - 1];
  }
}
