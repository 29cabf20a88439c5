/**
 * A delivery of one broadcast to one channel (spec 4.6 broadcasts, deliveries, POST
 * .../deliveries/{delivery_id}/retry; fields "not shown", docs/gaps.md#sourcing).
 *
 * The first attempt starts at creation. The post itself happens outside (service.ts calls the
 * channel provider when it sees delivery.attempt_started) and its outcome comes back as
 * record_attempt. A time-out is retried after the channel's schedule on a durable reminder; a
 * refusal is final; a watchdog reminder turns an attempt whose outcome never came back (the node
 * died mid-post) into a time-out, so nothing stays in flight. A person may retry a failed delivery
 * (or one waiting for its retry) at once; that starts the channel's schedule again.
 *
 * status      command         condition                                 event                        next
 * ----------  --------------  ----------------------------------------  ---------------------------  ----------
 * (none)      create          -                                         delivery.created,            in_flight
 *                                                                       delivery.attempt_started
 * in_flight   record_attempt  current attempt, accepted                 delivery.delivered           delivered
 * in_flight   record_attempt  current attempt, timed_out, retries left  delivery.attempt_failed      retrying
 * in_flight   record_attempt  current attempt, timed_out, none left     delivery.failed              failed
 * in_flight   record_attempt  current attempt, refused                  delivery.failed              failed
 * in_flight   attempt_lost    current attempt (watchdog)                as record_attempt timed_out
 * retrying    attempt         reminder due                              delivery.attempt_started     in_flight
 * retrying    retry           -                                         delivery.retry_requested,    in_flight
 * failed      retry           -                                           delivery.attempt_started
 * in_flight   retry           -                                         409 conflict
 * delivered   retry           -                                         409 conflict
 * otherwise   create, attempt, record_attempt, attempt_lost (stale or repeated)     -                unchanged
 */
import { defineActor, type IndexEntry, iso, sortKeyTime, type TimerWish } from '../../runtime/index.ts';
import { assertNever, attemptTimers, conflict, filterLists, recordView } from '../../kernel/index.ts';
import { DELIVERY_PREFIX } from './ids.ts';

export const DELIVERY_STATUSES = ['in_flight', 'retrying', 'delivered', 'failed'] as const;
export type DeliveryStatus = (typeof DELIVERY_STATUSES)[number];
export type AttemptOutcome = 'accepted' | 'refused' | 'timed_out';

/** An attempt whose outcome has not come back after this long counts as a time-out. */
export const ATTEMPT_WATCHDOG_MS = 60_000;
/** Attempts remembered on the record (the count is always exact). */
export const ATTEMPT_LOG_KEPT = 50;

export interface DeliverySeed {
  broadcast_id: string;
  requisition_id: string;
  requisition_version: number;
  channel_id: string;
  text: string;
  retry_schedule_seconds: number[];
  livemode: boolean;
}

export interface AttemptRecord {
  attempt: number;
  started_at: string;
  finished_at: string | null;
  outcome: AttemptOutcome | null;
  detail: string | null;
}

export interface DeliveryState {
  id: string;
  org: string;
  seed: DeliverySeed | null;
  status: DeliveryStatus;
  attempts: number;
  retries_used: number;
  attempt_started_at: number | null;
  next_attempt_at: number | null;
  log: AttemptRecord[];
  external_ref: string | null;
  last_outcome: AttemptOutcome | null;
  delivered_at: number | null;
  failed_at: number | null;
  created_at: number;
}

export type DeliveryEvent =
  | { type: 'delivery.created'; seed: DeliverySeed }
  | { type: 'delivery.attempt_started'; attempt: number }
  | { type: 'delivery.delivered'; attempt: number; external_ref: string; detail: string }
  | { type: 'delivery.attempt_failed'; attempt: number; outcome: AttemptOutcome; detail: string; next_attempt_at: number }
  | { type: 'delivery.failed'; attempt: number; outcome: AttemptOutcome; detail: string }
  | { type: 'delivery.retry_requested'; by: string };

export interface RecordAttempt {
  attempt: number;
  outcome: AttemptOutcome;
  detail: string;
  external_ref?: string;
}

function outcomeEvents(s: DeliveryState, cmd: RecordAttempt, now: number): DeliveryEvent[] {
  if (s.status !== 'in_flight' || cmd.attempt !== s.attempts) return [];
  switch (cmd.outcome) {
    case 'accepted':
      return [{ type: 'delivery.delivered', attempt: cmd.attempt, external_ref: cmd.external_ref ?? '', detail: cmd.detail }];
    case 'refused':
      return [{ type: 'delivery.failed', attempt: cmd.attempt, outcome: 'refused', detail: cmd.detail }];
    case 'timed_out': {
      const schedule = s.seed!.retry_schedule_seconds;
      if (s.retries_used >= schedule.length) return [{ type: 'delivery.failed', attempt: cmd.attempt, outcome: 'timed_out', detail: cmd.detail }];
      return [{ type: 'delivery.attempt_failed', attempt: cmd.attempt, outcome: 'timed_out', detail: cmd.detail, next_attempt_at: now + schedule[s.retries_used] * 1000 }];
    }
    default:
      return assertNever(cmd.outcome);
  }
}

const finish = (log: AttemptRecord[], attempt: number, at: number, outcome: AttemptOutcome, detail: string) =>
  log.map((r) => (r.attempt === attempt ? { ...r, finished_at: iso(at), outcome, detail } : r));

export const ChannelDelivery = defineActor({
  kind: 'sourcing_delivery',
  prefix: DELIVERY_PREFIX,
  creates: ['create'],
  initial: (id: string, org: string): DeliveryState => ({
    id, org, seed: null, status: 'in_flight', attempts: 0, retries_used: 0, attempt_started_at: null, next_attempt_at: null, log: [], external_ref: null, last_outcome: null, delivered_at: null, failed_at: null, created_at: 0,
  }),
  decide: {
    create(_s: DeliveryState, cmd: DeliverySeed, ctx): DeliveryEvent[] {
      if (ctx.version > 0) return [];
      return [{ type: 'delivery.created', seed: cmd }, { type: 'delivery.attempt_started', attempt: 1 }];
    },
    record_attempt(s: DeliveryState, cmd: RecordAttempt, ctx): DeliveryEvent[] {
      return outcomeEvents(s, cmd, ctx.now);
    },
    attempt_lost(s: DeliveryState, cmd: { attempt: number }, ctx): DeliveryEvent[] {
      return outcomeEvents(s, { attempt: cmd.attempt, outcome: 'timed_out', detail: 'No answer from the channel within the watchdog.' }, ctx.now);
    },
    attempt(s: DeliveryState, cmd: { attempt: number }): DeliveryEvent[] {
      if (s.status !== 'retrying' || cmd.attempt !== s.attempts + 1) return [];
      return [{ type: 'delivery.attempt_started', attempt: cmd.attempt }];
    },
    retry(s: DeliveryState, _cmd: unknown, ctx): DeliveryEvent[] {
      switch (s.status) {
        case 'failed':
        case 'retrying':
          return [{ type: 'delivery.retry_requested', by: ctx.principal ?? 'unknown' }, { type: 'delivery.attempt_started', attempt: s.attempts + 1 }];
        case 'in_flight':
          throw conflict(`Delivery ${s.id} has an attempt in flight; retrieve it and retry once it has an outcome.`);
        case 'delivered':
          throw conflict(`Delivery ${s.id} was delivered; there is nothing to retry.`);
        default:
          return assertNever(s.status);
      }
    },
  },
  evolve(s: DeliveryState, e: DeliveryEvent, meta): DeliveryState {
    const at = meta.at;
    switch (e.type) {
      case 'delivery.created':
        return { ...s, seed: e.seed, created_at: at };
      case 'delivery.attempt_started':
        return {
          ...s, status: 'in_flight', attempts: e.attempt, attempt_started_at: at, next_attempt_at: null,
          log: [...s.log, { attempt: e.attempt, started_at: iso(at), finished_at: null, outcome: null, detail: null }].slice(-ATTEMPT_LOG_KEPT),
        };
      case 'delivery.delivered':
        return { ...s, status: 'delivered', delivered_at: at, external_ref: e.external_ref, last_outcome: 'accepted', attempt_started_at: null, log: finish(s.log, e.attempt, at, 'accepted', e.detail) };
      case 'delivery.attempt_failed':
        return { ...s, status: 'retrying', retries_used: s.retries_used + 1, next_attempt_at: e.next_attempt_at, last_outcome: e.outcome, attempt_started_at: null, log: finish(s.log, e.attempt, at, e.outcome, e.detail) };
      case 'delivery.failed':
        return { ...s, status: 'failed', failed_at: at, last_outcome: e.outcome, attempt_started_at: null, log: finish(s.log, e.attempt, at, e.outcome, e.detail) };
      case 'delivery.retry_requested':
        return { ...s, retries_used: 0, failed_at: null };
      default:
        return assertNever(e);
    }
  },
  view: (s: DeliveryState) => deliveryView(s),
  timers: (s: DeliveryState): TimerWish[] => attemptTimers(s, ATTEMPT_WATCHDOG_MS),
  indexes(s: DeliveryState): IndexEntry[] {
    if (!s.seed) return [];
    return filterLists({ broadcast: s.seed.broadcast_id, status: s.status }, sortKeyTime(s.created_at));
  },
});

export function deliveryView(s: DeliveryState) {
  const seed = s.seed!;
  return recordView('sourcing_delivery', s.id, seed.livemode, true, {
    broadcast_id: seed.broadcast_id,
    requisition_id: seed.requisition_id,
    requisition_version: seed.requisition_version,
    channel_id: seed.channel_id,
    status: s.status,
    attempts: s.attempts,
    last_outcome: s.last_outcome,
    next_attempt_at: s.next_attempt_at === null ? null : iso(s.next_attempt_at),
    retry_schedule_seconds: seed.retry_schedule_seconds,
    attempt_log: s.log,
    external_ref: s.external_ref,
    delivered_at: s.delivered_at === null ? null : iso(s.delivered_at),
    failed_at: s.failed_at === null ? null : iso(s.failed_at),
    created_at: iso(s.created_at),
  });
}
