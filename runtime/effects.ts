/**
 * Derived side effects of a commit: list memberships and durable timers are functions of state
 * (ActorDef.indexes, ActorDef.timers). After each commit the runtime diffs them against the state
 * before the batch and writes only what changed.
 */
import type { IndexOp, Reminder } from '../stores/index.ts';
import type { AnyActorDef, IndexEntry, TimerWish } from './actor.ts';
import { newId } from '../kernel/base/index.ts';

/** Joined into one flat string: the index keeps the name as long as the list lives (see stores/memory/indexes.ts composite). */
export const listName = (org: string, kind: string, list: string) => [org, kind, list].join('/');
/** The kind of a list named by listName (organisation ids and kinds hold no slash). */
export const kindOfList = (name: string): string => name.slice(name.indexOf('/') + 1, name.indexOf('/', name.indexOf('/') + 1));

/**
 * `known`: the stores hold exactly the lists of `before` (a commit's own changes, written with its
 * events or after them in order). A record that did not exist before then takes its first lists
 * as fresh puts, and every op names the sort key it leaves (IndexOp `from`). Not after a takeover
 * or in a rebuild, where an earlier owner or an older declaration may have written others.
 */
export function indexOps(def: AnyActorDef, id: string, org: string, before: unknown, after: unknown, existedBefore: boolean, known = true): IndexOp[] {
  if (!def.indexes) return [];
  const prev: IndexEntry[] = existedBefore ? def.indexes(before) : [];
  const next: IndexEntry[] = def.indexes(after);
  // Most kinds declare a handful of lists: linear scans, and nothing allocated when nothing
  // changed. A record on a list per party (a work order is on each offered worker's) is matched
  // through maps instead, so a commit costs its lists, not their square.
  const prevKeys = prev.length > SCANNED ? sortKeysByList(prev) : undefined;
  const nextKeys = next.length > SCANNED ? sortKeysByList(next) : undefined;
  let ops: IndexOp[] | undefined;
  for (const e of next) {
    const from = prevKeys ? prevKeys.get(e.list) : prev.find((x) => x.list === e.list)?.sortKey;
    if (from === e.sortKey) continue;
    const list = listName(org, def.kind, e.list);
    (ops ??= []).push(known ? { op: 'put', list, id, sortKey: e.sortKey, fresh: !existedBefore, from: from ?? null } : { op: 'put', list, id, sortKey: e.sortKey, fresh: false });
  }
  for (const e of prev) {
    if (nextKeys ? nextKeys.has(e.list) : next.some((x) => x.list === e.list)) continue;
    const list = listName(org, def.kind, e.list);
    (ops ??= []).push(known ? { op: 'remove', list, id, from: e.sortKey } : { op: 'remove', list, id });
  }
  return ops ?? NO_OPS;
}

const NO_OPS: IndexOp[] = [];

/** Lists of one record matched by scanning; past this many, through a map. */
const SCANNED = 8;

/** Each list's sort key, the first entry's when a list is named twice (as a scan finds it). */
function sortKeysByList(entries: IndexEntry[]): Map<string, IndexEntry['sortKey']> {
  const m = new Map<string, IndexEntry['sortKey']>();
  for (const e of entries) if (!m.has(e.list)) m.set(e.list, e.sortKey);
  return m;
}

export interface TimerOps {
  put: Reminder[];
  cancel: string[];
}

/** Joined into one flat string, as listName: the reminder store keeps it while the timer is set. */
export const reminderKey = (kind: string, id: string, name: string) => [kind, id, name].join('.');

export function timerOps(def: AnyActorDef, id: string, org: string, before: unknown, after: unknown, existedBefore: boolean): TimerOps {
  if (!def.timers) return { put: [], cancel: [] };
  const prev: TimerWish[] = existedBefore ? def.timers(before) : [];
  const next: TimerWish[] = def.timers(after);
  // A kind declares a handful of timers: linear scans.
  const put: Reminder[] = [];
  for (const t of next) {
    const p = prev.find((x) => x.name === t.name);
    // a payload is most often the same object (a kind's constant) and then needs no serialising
    if (p && p.dueAt === t.dueAt && p.command === t.command && (p.payload === t.payload || JSON.stringify(p.payload) === JSON.stringify(t.payload))) continue;
    put.push({
      key: reminderKey(def.kind, id, t.name),
      kind: def.kind,
      id,
      org,
      name: t.name,
      dueAt: t.dueAt,
      command: t.command,
      payload: t.payload ?? null,
      generation: newId('rmd_'),
    });
  }
  const cancel: string[] = [];
  for (const t of prev) if (!next.some((x) => x.name === t.name)) cancel.push(reminderKey(def.kind, id, t.name));
  return { put, cancel };
}
