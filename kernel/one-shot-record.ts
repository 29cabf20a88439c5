/**
 * A record written once (DESIGN "The runtime"): an import's outcome, a route plan, a settlement,
 * kept so a caller can read it back by id. It has one command (`record` unless told); the first turn writes one event carrying the record's
 * facts, stamped with the commit time, and a repeat is a no-op, so a retried create through another
 * node answers the record as it stands. It lists under `all` in time order, and under any lists
 * of its own (a settlement under its instruction).
 *
 * The area's actor file keeps its own `defineActor` with its kind, prefix, transition table and view
 * (STYLE "One actor, one file"); these are the parts every such record shares:
 *
 *   export const X = defineActor({ kind: 'x_import', prefix: 'x_import_', ...oneShotRecord('x.import.recorded', blank), view });
 */
import { type CommandContext, type EventMeta, type IndexEntry, sortKeyTime } from '../runtime/index.ts';
import type { ValidationReport } from './base/index.ts';

/** What the runtime keeps beside a one-shot record's facts. */
export interface OneShotState {
  id: string;
  org: string;
  /** Commit time (ms) of the recording event; 0 before it. */
  created_at: number;
}

/** The report of a record not yet written: nothing checked. */
export const emptyReport = (): ValidationReport => ({ entry_count: 0, error_count: 0, warning_count: 0 });

/** How a one-shot record differs from an import's: its command's name, a check of its facts, its lists beside `all`. */
export interface OneShotOptions<F, C extends string> {
  /** The one command's name (`record` unless told). */
  command?: C;
  /** Throws the refusal of facts the record cannot be made from (an ApiError); runs on the first turn only. */
  check?: (facts: F) => void;
  /** The lists the record stands in beside `all`, each in time order. */
  lists?: (s: OneShotState & F) => string[];
}

/**
 * The shared parts of a one-shot record's ActorDef: `creates`, `initial`, `decide` (its one
 * command, `record` unless `options.command` names another), `evolve` and `indexes`. `blank`
 * gives the facts of a record not yet written, fresh per call so no two actors share an array or a
 * report.
 */
export function oneShotRecord<T extends string, F extends object, C extends string = 'record'>(event: T, blank: () => F, options: OneShotOptions<F, C> = {}) {
  type State = OneShotState & F;
  type Event = { type: T } & F;
  const command = (options.command ?? 'record') as C;
  const decide = (_s: State, facts: F, ctx: CommandContext): Event[] => {
    if (ctx.version > 0) return [];
    options.check?.(facts);
    return [{ type: event, ...facts } as Event];
  };
  return {
    creates: [command],
    initial: (id: string, org: string): State => ({ id, org, ...blank(), created_at: 0 }) as State,
    decide: { [command]: decide } as Record<C, typeof decide>,
    evolve(s: State, e: Event, meta: EventMeta): State {
      const { type: _t, ...facts } = e;
      return { ...s, ...facts, created_at: meta.at };
    },
    indexes: (s: State): IndexEntry[] => ['all', ...(options.lists?.(s) ?? [])].map((list) => ({ list, sortKey: sortKeyTime(s.created_at) })),
  };
}
