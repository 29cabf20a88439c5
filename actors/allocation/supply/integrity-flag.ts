/**
 * Integrity flag (allocation). Spec 2.8 IntegrityFlag, 3 (Integrity flag), 4.7 adjudicate.
 * An open flag per worker gathers signals; a person decides it once and the decision is never
 * edited (a further disagreement is a new adjudication elsewhere, spec 3).
 *
 * status     command     condition                                           event                          next
 * ---------  ----------  --------------------------------------------------  -----------------------------  ---------
 * (none)     gather      -                                                   integrity_flag.raised          open
 * open       gather      a source not yet on the flag                        integrity_flag.signal_added    open
 * open       gather      every source already on the flag                    -                              open
 * upheld     gather      -                                                   - (the worker opens a new flag) upheld
 * dismissed  gather      -                                                   -                              dismissed
 * open       adjudicate  upheld; more than one independent signal accepted   integrity_flag.upheld          upheld (suspends)
 * open       adjudicate  upheld; one signal only                             integrity_flag.upheld          upheld (suspends false)
 * open       adjudicate  dismissed                                           integrity_flag.dismissed       dismissed
 * upheld     adjudicate  -                                                   409 conflict                   upheld
 * dismissed  adjudicate  -                                                   409 conflict                   dismissed
 *
 * Independent signals are signals of distinct sources. accepted_signals (optional) must name
 * sources that fired on this flag; when given, only those count towards suspension.
 */
import { defineActor, type IndexEntry, sortKeyTime } from '../../../runtime/index.ts';
import { ApiError, assertNever, errorEntry, filterLists, recordView, type ValidationEntry, validationError } from '../../../kernel/index.ts';
import type { SignalSource } from './validation.ts';
import { INTEGRITY_FLAG_PREFIX, type WireSignal } from './worker.ts';

export const FLAG_STATUSES = ['open', 'upheld', 'dismissed'] as const;
export type FlagStatus = (typeof FLAG_STATUSES)[number];
export type Outcome = 'upheld' | 'dismissed';

export interface Decision {
  outcome: Outcome;
  decided_by: string;
  decided_at: string;
  reason: string;
  accepted_signals: string[];
}

export interface FlagState {
  id: string;
  org: string;
  worker_id: string;
  livemode: boolean;
  mocked: boolean;
  status: FlagStatus;
  signals: WireSignal[];
  suspends: boolean;
  decision: Decision | null;
  raised_at: number;
}

export type FlagEvent =
  | { type: 'integrity_flag.raised'; worker_id: string; signals: WireSignal[]; livemode: boolean; mocked: boolean }
  | { type: 'integrity_flag.signal_added'; worker_id: string; signals: WireSignal[]; mocked: boolean }
  | { type: 'integrity_flag.upheld'; worker_id: string; suspends: boolean; decision: Decision }
  | { type: 'integrity_flag.dismissed'; worker_id: string; suspends: false; decision: Decision };

export interface AdjudicateCommand {
  outcome: Outcome;
  reason: string;
  accepted_signals?: string[];
}

export const IntegrityFlag = defineActor({
  kind: 'allocation_integrity_flag',
  prefix: INTEGRITY_FLAG_PREFIX,
  creates: ['gather'],
  initial: (id: string, org: string): FlagState => ({
    id,
    org,
    worker_id: '',
    livemode: false,
    mocked: false,
    status: 'open',
    signals: [],
    suspends: false,
    decision: null,
    raised_at: 0,
  }),
  decide: {
    gather(s: FlagState, cmd: { worker_id: string; signals: WireSignal[]; livemode: boolean; mocked: boolean }, ctx): FlagEvent[] {
      if (ctx.version === 0) return [{ type: 'integrity_flag.raised', worker_id: cmd.worker_id, signals: cmd.signals, livemode: cmd.livemode, mocked: cmd.mocked }];
      if (s.status !== 'open') return [];
      const have = new Set(s.signals.map((x) => x.source));
      const fresh = cmd.signals.filter((x) => !have.has(x.source) && have.add(x.source));
      return fresh.length ? [{ type: 'integrity_flag.signal_added', worker_id: s.worker_id, signals: fresh, mocked: cmd.mocked }] : [];
    },
    adjudicate(s: FlagState, cmd: AdjudicateCommand, ctx): FlagEvent[] {
      switch (s.status) {
        case 'open':
          break;
        case 'upheld':
        case 'dismissed':
          throw new ApiError('conflict', `Integrity flag ${s.id} is ${s.status}; its decision is never edited.`);
        default:
          return assertNever(s.status);
      }
      const fired = new Set<string>(s.signals.map((x) => x.source));
      const entries: ValidationEntry[] = [];
      if (cmd.outcome !== 'upheld' && cmd.outcome !== 'dismissed') entries.push(errorEntry('/outcome', 'invalid_enum', 'outcome must be upheld or dismissed.'));
      if (typeof cmd.reason !== 'string' || cmd.reason.length < 1) entries.push(errorEntry('/reason', 'required', 'reason must be at least one character.'));
      const accepted = cmd.accepted_signals;
      (accepted ?? []).forEach((name, i) => {
        if (!fired.has(name)) entries.push(errorEntry(`/accepted_signals/${i + 1}`, 'signal_not_fired', `${name} is not a signal that fired on this flag.`, i + 1));
      });
      if (entries.length) throw validationError(entries, Math.max(1, accepted?.length ?? 0));
      const counted = new Set(accepted ?? fired);
      const decision: Decision = {
        outcome: cmd.outcome,
        decided_by: ctx.principal ?? 'unknown',
        decided_at: new Date(ctx.now).toISOString(),
        reason: cmd.reason,
        accepted_signals: [...new Set(accepted ?? [])],
      };
      if (cmd.outcome === 'dismissed') return [{ type: 'integrity_flag.dismissed', worker_id: s.worker_id, suspends: false, decision }];
      return [{ type: 'integrity_flag.upheld', worker_id: s.worker_id, suspends: counted.size > 1, decision }];
    },
  },
  evolve(s: FlagState, e: FlagEvent, meta): FlagState {
    switch (e.type) {
      case 'integrity_flag.raised':
        return { ...s, worker_id: e.worker_id, signals: e.signals, livemode: e.livemode, mocked: e.mocked, status: 'open', raised_at: meta.at };
      case 'integrity_flag.signal_added':
        return { ...s, signals: [...s.signals, ...e.signals], mocked: s.mocked || e.mocked };
      case 'integrity_flag.upheld':
        return { ...s, status: 'upheld', suspends: e.suspends, decision: e.decision };
      case 'integrity_flag.dismissed':
        return { ...s, status: 'dismissed', suspends: false, decision: e.decision };
      default:
        return assertNever(e);
    }
  },
  view: (s: FlagState) => (recordView('integrity_flag', s.id, s.livemode, s.mocked, {
    worker_id: s.worker_id,
    status: s.status,
    signals: s.signals,
    suspends: s.suspends,
    decision: s.decision,
    raised_at: new Date(s.raised_at).toISOString(),
  })),
  indexes(s: FlagState): IndexEntry[] {
    return filterLists({ worker: s.worker_id, status: s.status }, sortKeyTime(s.raised_at));
  },
  reactions: [
    {
      from: 'allocation_worker',
      events: ['worker.integrity_flag_opened', 'worker.integrity_signals_reported'],
      command: 'gather',
      target(event, source) {
        const d = event.data as { worker_id?: string; flag_id: string; signals: WireSignal[]; livemode: boolean; mocked: boolean };
        // an event of an old-scheme record names no worker_id: its actor id was the worker_id (docs/gaps.md#allocation)
        return { id: d.flag_id, payload: { worker_id: d.worker_id ?? source.id, signals: d.signals, livemode: d.livemode, mocked: d.mocked } };
      },
    },
  ],
});

export type { SignalSource };
