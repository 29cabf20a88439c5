/**
 * A record written once (DESIGN "The runtime"): an import's outcome, kept so a caller can read it
 * back by id. Its only command is `record`; the first turn writes one event carrying the record's
 * facts, stamped with the commit time, and a repeat is a no-op, so a retried create through another
 * node answers the record as it stands. It lists under `all` in time order.
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

/**
 * The shared parts of a one-shot record's ActorDef: `creates`, `initial`, `decide` (its one
 * `record` command), `evolve` and `indexes`. `blank` gives the facts of a record not yet written,
 * fresh per call so no two actors share an array or a report.
 */
export function oneShotRecord<T extends string, F extends object>(event: T, blank: () => F) {
  type State = OneShotState & F;
  type Event = { type: T } & F;
  return {
    creates: ['record'] as const,
    initial: (id: string, org: string): State => ({ id, org, ...blank(), created_at: 0 }) as State,
    decide: {
      record(_s: State, facts: F, ctx: CommandContext): Event[] {
        if (ctx.version > 0) return [];
        return [{ type: event, ...facts } as Event];
      },
    },
    evolve(s: State, e: Event, meta: EventMeta): State {
      const { type: _t, ...facts } = e;
      return { ...s, ...facts, created_at: meta.at };
    },
    indexes: (s: State): IndexEntry[] => [{ list: 'all', sortKey: sortKeyTime(s.created_at) }],
  };
}
