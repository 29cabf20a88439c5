/**
 * A small example kind used only by the runtime's tests.
 *
 * status   command   condition              event               next
 * -------  --------  ---------------------  ------------------  -------
 * (none)   open      -                      counter.opened      open
 * open     add       n is a whole number    counter.added       open
 * open     arm       -                      counter.armed       open (a reminder at due_at)
 * open     ring      the alarm is armed     counter.rang        open (alarm cleared)
 * open     disarm    -                      counter.disarmed    open
 * open     close     -                      counter.closed      closed
 * closed   add       -                      409 conflict
 */
import { ApiError, assertNever } from '../../kernel/index.ts';
import { defineActor, sortKeyTime } from '../../runtime/index.ts';

export type CounterStatus = 'open' | 'closed';
export interface CounterState {
  id: string;
  org: string;
  status: CounterStatus;
  total: number;
  log: number[];
  alarm: { dueAt: number; label: string } | null;
  rings: string[];
  createdAt: number;
  bigSum: bigint;
  tags: Set<string>;
}
export type CounterEvent =
  | { type: 'counter.opened' }
  | { type: 'counter.added'; n: number }
  | { type: 'counter.armed'; dueAt: number; label: string }
  | { type: 'counter.rang'; label: string }
  | { type: 'counter.disarmed' }
  | { type: 'counter.closed' };

export const Counter = defineActor({
  kind: 'test_counter',
  prefix: 'ctr_',
  snapshotEvery: 5,
  creates: ['open'],
  initial: (id: string, org: string): CounterState => ({ id, org, status: 'open', total: 0, log: [], alarm: null, rings: [], createdAt: 0, bigSum: 0n, tags: new Set() }),
  decide: {
    open: (s: CounterState, _cmd: unknown, ctx) => (ctx.version > 0 ? [] : [{ type: 'counter.opened' as const }]),
    add: (s: CounterState, cmd: { n: number }) => {
      if (s.status !== 'open') throw new ApiError('conflict', 'counter is closed');
      if (!Number.isInteger(cmd.n)) throw new ApiError('validation_failed', 'n must be a whole number');
      return [{ type: 'counter.added' as const, n: cmd.n }];
    },
    arm: (_s: CounterState, cmd: { dueAt: number; label: string }) => [{ type: 'counter.armed' as const, dueAt: cmd.dueAt, label: cmd.label }],
    ring: (s: CounterState) => (s.alarm ? [{ type: 'counter.rang' as const, label: s.alarm.label }] : []),
    disarm: () => [{ type: 'counter.disarmed' as const }],
    close: () => [{ type: 'counter.closed' as const }],
    explode: (): CounterEvent[] => {
      throw new Error('boom');
    },
  },
  evolve(s: CounterState, e: CounterEvent, meta): CounterState {
    switch (e.type) {
      case 'counter.opened':
        return { ...s, createdAt: meta.at };
      case 'counter.added':
        return { ...s, total: s.total + e.n, log: [...s.log, e.n], bigSum: s.bigSum + BigInt(e.n), tags: new Set([...s.tags, `n${e.n % 3}`]) };
      case 'counter.armed':
        return { ...s, alarm: { dueAt: e.dueAt, label: e.label } };
      case 'counter.rang':
        return { ...s, alarm: null, rings: [...s.rings, e.label] };
      case 'counter.disarmed':
        return { ...s, alarm: null };
      case 'counter.closed':
        return { ...s, status: 'closed' };
      default:
        return assertNever(e);
    }
  },
  view: (s: CounterState) => ({ id: s.id, object: 'test_counter', status: s.status, total: s.total, rings: s.rings }),
  timers: (s: CounterState) => (s.alarm ? [{ name: 'alarm', dueAt: s.alarm.dueAt, command: 'ring' }] : []),
  indexes: (s: CounterState) => [{ list: 'all', sortKey: sortKeyTime(s.createdAt) }, { list: `status:${s.status}`, sortKey: sortKeyTime(s.createdAt) }],
});
