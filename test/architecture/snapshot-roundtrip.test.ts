/**
 * Every kind's state survives the snapshot codec (STYLE "Snapshots are a versioned codec"; runtime/
 * codec.ts): for each kind of each area that is snapshotted (not ephemeral), a representative
 * state is packed in a snapshot envelope, unpacked, and compared strictly with the original, so a
 * Map (which comes back as an object), a class instance or a lost field fails here rather than on
 * the first restore in production. The area tests run scenarios through the API and round-trip
 * the states they reach; this one covers every kind, with the states decide and evolve make alone.
 *
 * The state of a kind is its initial state, evolved through the events its creating commands
 * decide on an empty payload where decide and evolve accept one (a kind whose creation needs
 * facts keeps its initial state here).
 */
import { describe, expect, it } from 'vitest';
import { areas } from '../../actors/index.ts';
import { type ActorEvent, type AnyActorDef, type CommandContext, decodeSnapshot, encodeSnapshot } from '../../runtime/index.ts';

const ORG = 'org_snapshot';
const NOW = Date.UTC(2026, 0, 5, 9, 30);
const kinds = areas.flatMap((a) => a.kinds).filter((k) => !k.ephemeral);

/** The events a creating command decides on an empty payload, applied; undefined where it refuses or throws. */
function created(def: AnyActorDef, id: string, command: string): unknown {
  let n = 0;
  const ctx: CommandContext = { now: NOW, id, org: ORG, version: 0, principal: 'acct_snapshot', newId: (prefix) => `${prefix}snap${++n}` };
  try {
    const decision = def.decide[command](def.initial(id, ORG), {}, ctx);
    const events: ActorEvent[] = Array.isArray(decision) ? decision : decision.events;
    if (events.length === 0) return undefined;
    return events.reduce((s: unknown, e, i) => def.evolve(s, e, { at: NOW, version: i + 1, eventId: `evt_snap${i + 1}`, org: ORG }), def.initial(id, ORG));
  } catch {
    return undefined;
  }
}

/** [label, state]: the initial state and each state a creating command reaches. */
function statesOf(def: AnyActorDef): [string, unknown][] {
  const id = `${def.prefix}snapshot`;
  const out: [string, unknown][] = [['initial', def.initial(id, ORG)]];
  for (const c of def.creates) {
    const s = created(def, id, c);
    if (s !== undefined) out.push([`after ${c}`, s]);
  }
  return out;
}

const throughSnapshot = (def: AnyActorDef, state: unknown): unknown =>
  decodeSnapshot(encodeSnapshot({ schema: def.schema ?? 1, kind: def.kind, id: `${def.prefix}snapshot`, version: 1, org: ORG, state, dedupe: ['req_1'] })).state;

describe('snapshot round trip of every kind (STYLE "Snapshots are a versioned codec")', () => {
  const cases = kinds.map((def) => [def.kind, def, statesOf(def)] as const);

  it('the areas were read, and some kinds were evolved past their initial state (a guard against checking nothing)', () => {
    expect(kinds.length).toBeGreaterThan(50);
    expect(cases.filter(([, , states]) => states.length > 1).length).toBeGreaterThan(kinds.length / 2);
  });

  /** The view of a state, or undefined where the view needs facts a state made from no payload lacks. */
  const viewOf = (def: AnyActorDef, state: unknown): unknown => {
    try {
      return def.view(state);
    } catch {
      return undefined;
    }
  };

  it.each(cases)('%s - its states come back from a snapshot strictly equal, and answer the same view', (_kind, def, states) => {
    for (const [label, state] of states) {
      const back = throughSnapshot(def, state);
      expect(back, label).toStrictEqual(state);
      const view = viewOf(def, state);
      if (view !== undefined) expect(def.view(back), label).toStrictEqual(view);
    }
  });

  it('the views were compared for most kinds (a guard against the view check skipping everything)', () => {
    expect(cases.filter(([, def, states]) => states.some(([, s]) => viewOf(def, s) !== undefined)).length).toBeGreaterThan(kinds.length / 2);
  });

  it('the comparison refuses what the codec does not keep: a Map comes back an object', () => {
    const def = kinds[0];
    const state = { ...(def.initial('x', ORG) as object), planted: new Map([['a', 1]]) };
    expect(throughSnapshot(def, state)).not.toStrictEqual(state);
    const kept = { tags: new Set(['a']), big: 2n ** 70n, at: null, none: undefined };
    expect(throughSnapshot(def, kept)).toStrictEqual(kept);
  });
});
