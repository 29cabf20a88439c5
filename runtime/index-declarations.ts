/**
 * A kind's lists follow its declaration, also for records written before it changed (DESIGN
 * "Stores": list indexes are derived from the journal). The stores keep a print of every kind's
 * `indexes` declaration as it was when its lists were last built; at start, a kind whose
 * declaration reads otherwise (a new list, a new sort key, a kind that gained lists) has its lists
 * built again from the journal before the platform serves, so a list newly declared over records
 * that already exist starts whole, never empty. Over a store that can lose its lists by itself
 * (the cluster's Redis) the derived-data watch rebuilds them, under its claim, on one node.
 *
 * The print is of the declaration's source text with what a loader's printer chooses taken out
 * (comments, white space, the parentheses around an arrow function's one parameter, a semicolon
 * before a closing brace, the numbers a bundler appends to a renamed identifier, a property
 * written out in full where its shorthand would do), so the same code run by
 * `npm start` (one esbuild bundle) and through tsx prints alike; an edit that changes only a
 * comment inside the function rebuilds once, harmlessly. The print is of the declaration's own
 * text: an edit to a helper it calls (a sort key's format) changes no print, so it is made with an
 * edit of the declarations that use it. Over the local stores this matters twice: a list there
 * keeps no place per id (stores/types.ts IndexStore keepsNoPlaces), and a move removes a member
 * where the state before it says the member stands.
 */
import { createHash } from 'node:crypto';
import type { Stores } from '../stores/index.ts';
import type { AnyActorDef } from './actor.ts';
import type { DerivedWatch } from './derived-watch.ts';
import { kindOfList } from './effects.ts';
import { rebuildIndexes } from './reindex.ts';

/** Where the prints of the declarations the lists were built with are kept. */
export const DECLARATIONS_KEY = 'runtime:index-declarations';

export type DeclarationPrints = Record<string, string>;

/** kind -> print of its `indexes` declaration, for every journalled kind that declares lists. */
export function declarationPrints(kinds: Iterable<AnyActorDef>): DeclarationPrints {
  const out: DeclarationPrints = {};
  for (const def of kinds) {
    if (!def.indexes || def.ephemeral) continue;
    const text = def.indexes
      .toString()
      .replace(/\/\*[\s\S]*?\*\/|(^|\s)\/\/[^\n]*/g, '$1')
      .replace(/\s+/g, '')
      .replace(/\(([A-Za-z_$][\w$]*)\)=>/g, '$1=>')
      .replace(/;}/g, '}')
      .replace(/([A-Za-z_$])\d+\b/g, '$1')
      .replace(/([{,])([A-Za-z_$][\w$]*):\2(?=[,}])/g, '$1$2');
    out[def.kind] = createHash('sha256').update(text).digest('base64url').slice(0, 16);
  }
  return out;
}

/** The kinds whose print differs from the one the stores keep (every kind with lists when none is kept). */
export function changedKinds(kinds: Iterable<AnyActorDef>, kept: DeclarationPrints | undefined, now: DeclarationPrints): AnyActorDef[] {
  return [...kinds].filter((d) => now[d.kind] !== undefined && kept?.[d.kind] !== now[d.kind]);
}

/**
 * Builds the lists of every kind whose declaration changed, then keeps the new prints. A store
 * with no event yet only takes the prints. Returns the kinds rebuilt.
 */
export async function followDeclarations(kinds: readonly AnyActorDef[], stores: Stores, derived: DerivedWatch | undefined, log: (msg: string, err?: unknown) => void): Promise<string[]> {
  const now = declarationPrints(kinds);
  const kept = await stores.kv.get<DeclarationPrints>(DECLARATIONS_KEY);
  const changed = changedKinds(kinds, kept, now);
  if (changed.length === 0) return [];
  const empty = (await stores.journal.readFeed(0, 1)).length === 0;
  if (!empty) {
    const t0 = performance.now();
    if (derived) {
      // the watch's claim keeps two nodes from building at once; a node that finds it held leaves
      // the prints to the node that builds
      if (!(await derived.check(true))) return [];
    } else {
      // A store that keeps no places (stores/types.ts IndexStore) cannot find where a member stood
      // under the old declaration: the kinds' lists are dropped and built whole.
      if (stores.indexes.keepsNoPlaces && stores.indexes.dropLists) {
        const kinds = new Set(changed.map((d) => d.kind));
        await stores.indexes.dropLists((list) => kinds.has(kindOfList(list)));
      }
      await rebuildIndexes(changed, stores.journal, stores.indexes);
    }
    log(`lists of ${changed.map((d) => d.kind).join(', ')} built again from the journal: their declarations changed (${Math.round(performance.now() - t0)} ms)`);
  }
  await stores.kv.set(DECLARATIONS_KEY, { ...kept, ...now });
  return empty ? [] : changed.map((d) => d.kind);
}
