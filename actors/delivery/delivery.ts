/**
 * Webhook delivery. Spec 2.12, 3 (Webhook delivery), 6.1-6.4, 8.
 *
 * The first attempt starts at creation; after a failed attempt the next waits for the retry ladder
 * (10 s, 1 min, 5 min, 30 min, 2 h, 5 h, 10 h, 20 h: eight retries, each counted from the failure
 * it follows) on a durable reminder. The HTTP itself happens outside (dispatcher.ts), which reports
 * each attempt's outcome back; a watchdog reminder turns an attempt whose outcome never came back
 * (the node died mid-attempt) into a timeout, so nothing stays in flight forever.
 *
 * status      command         condition                                   event                   next
 * ----------  --------------  ------------------------------------------  ----------------------  ----------
 * (none)      create          -                                           delivery.created,       in_flight
 *                                                                         delivery.attempt_started
 * in_flight   record_attempt  current attempt, 2xx                        delivery.succeeded      delivered
 * in_flight   record_attempt  current attempt, not 2xx, retries left      delivery.attempt_failed retrying
 * in_flight   record_attempt  current attempt, not 2xx, ladder used up    delivery.failed         failed
 * in_flight   attempt_lost    current attempt (watchdog)                  as record_attempt with fault timeout
 * in_flight   abandon         current attempt, endpoint disabled          delivery.failed         failed
 * retrying    attempt         reminder due                                delivery.attempt_started in_flight
 * delivered   replay          -                                           delivery.replayed,      in_flight
 * failed      replay          -                                           delivery.attempt_started
 * in_flight   replay          -                                           409 conflict
 * retrying    replay          -                                           409 conflict
 * otherwise   create, attempt, record_attempt, attempt_lost, abandon      (stale or repeated)     unchanged
 */
import { BoundedMap, defineActor, type IndexEntry, iso, sortKeyTime, type TimerWish } from '../../runtime/index.ts';
import { assertNever, attemptTimers, conflict } from '../../kernel/index.ts';

/** Spec 6.3, 8: the retries, in seconds after the failure they follow. */
export const RETRY_SCHEDULE_SECONDS: readonly number[] = [10, 60, 300, 1800, 7200, 18000, 36000, 72000];
/** An attempt whose outcome has not come back after this long is counted as a timeout. */
export const ATTEMPT_WATCHDOG_MS = 120_000;

export type DeliveryStatus = 'in_flight' | 'retrying' | 'delivered' | 'failed';
/** Spec 2.12 last_fault. */
export type Fault = 'refused connection' | 'DNS failure' | 'timeout';

/** What an endpoint hands over when it assigns a delivery (endpoint.ts). */
export interface DeliverySeed {
  endpoint_id: string;
  event_id: string;
  event_type: string;
  sequence: number;
  is_test: boolean;
  livemode: boolean;
  /** The envelope, serialised once: the exact bytes signed and sent on every attempt. */
  body: string;
}

export interface DeliveryState {
  id: string;
  status: DeliveryStatus;
  seed: DeliverySeed | null;
  attempts: number;
  /** Retries used in the current run of the ladder (a replay starts it again). */
  retries_used: number;
  attempt_started_at: number | null;
  last_status: number | null;
  last_fault: Fault | null;
  next_attempt_at: number | null;
  delivered_at: number | null;
  failed_at: number | null;
  signature_header: string | null;
  created_at: number;
}

export interface AttemptOutcome {
  attempt: number;
  /** HTTP status of the answer, or null when none came. */
  status: number | null;
  fault: Fault | null;
  signature_header: string | null;
  /** Why the platform refused to connect (an internal address, docs/gaps.md#delivery); fault is then `refused connection`. */
  refused?: string;
}

export type DeliveryEvent =
  | { type: 'delivery.created'; seed: DeliverySeed }
  | { type: 'delivery.attempt_started'; attempt: number }
  | { type: 'delivery.succeeded'; outcome: AttemptOutcome }
  | { type: 'delivery.attempt_failed'; outcome: AttemptOutcome; next_attempt_at: number }
  | { type: 'delivery.failed'; outcome: AttemptOutcome | null; reason: 'retries_exhausted' | 'endpoint_disabled' }
  | { type: 'delivery.replayed' };

const is2xx = (s: number | null) => s !== null && s >= 200 && s < 300;

function settle(state: DeliveryState, outcome: AttemptOutcome, now: number): DeliveryEvent[] {
  if (state.status !== 'in_flight' || outcome.attempt !== state.attempts) return []; // stale report
  if (is2xx(outcome.status)) return [{ type: 'delivery.succeeded', outcome }];
  if (state.retries_used < RETRY_SCHEDULE_SECONDS.length) {
    return [{ type: 'delivery.attempt_failed', outcome, next_attempt_at: now + RETRY_SCHEDULE_SECONDS[state.retries_used] * 1000 }];
  }
  return [{ type: 'delivery.failed', outcome, reason: 'retries_exhausted' }];
}

export const endpointList = (endpointId: string) => `endpoint:${endpointId}`;

/**
 * Deliveries the event feed's own create already applied on this node (feed.ts; an ask is
 * answered only after its commit): the reaction to endpoint.delivery_assigned, the durable
 * hand-over for an asker that stopped before creating, has nothing left to do for them and sends
 * no second ask. Only an applied create is remembered, and only here: one that did not complete on
 * this node (it failed, the node restarted, another node reads the feed) is still made by the
 * reaction.
 */
const createdHere = new BoundedMap<string, true>(65_536);
export function markCreatedHere(deliveryId: string): void {
  createdHere.set(deliveryId, true);
}
const seqKey = (n: number) => n.toString().padStart(15, '0');
const NO_LISTS: IndexEntry[] = [];
/** The lists `indexes` made last, and for which seed and creation time (a seed is its delivery's own). */
const lastLists: { seed: DeliverySeed | null; createdAt: number; lists: IndexEntry[] } = { seed: null, createdAt: 0, lists: NO_LISTS };

export const WebhookDelivery = defineActor({
  kind: 'webhook_delivery',
  prefix: 'webhook_delivery_',
  creates: ['create'],
  initial: (id: string): DeliveryState => ({
    id, status: 'in_flight', seed: null, attempts: 0, retries_used: 0, attempt_started_at: null, last_status: null, last_fault: null,
    next_attempt_at: null, delivered_at: null, failed_at: null, signature_header: null, created_at: 0,
  }),
  decide: {
    create(state: DeliveryState, seed: DeliverySeed): DeliveryEvent[] {
      if (state.seed) return [];
      return [{ type: 'delivery.created', seed }, { type: 'delivery.attempt_started', attempt: 1 }];
    },
    attempt(state: DeliveryState, cmd: { attempt: number }): DeliveryEvent[] {
      if (state.status !== 'retrying' || cmd.attempt !== state.attempts + 1) return [];
      return [{ type: 'delivery.attempt_started', attempt: cmd.attempt }];
    },
    record_attempt(state: DeliveryState, outcome: AttemptOutcome, ctx) {
      return settle(state, outcome, ctx.now);
    },
    attempt_lost(state: DeliveryState, cmd: { attempt: number }, ctx) {
      return settle(state, { attempt: cmd.attempt, status: null, fault: 'timeout', signature_header: state.signature_header }, ctx.now);
    },
    abandon(state: DeliveryState, cmd: { attempt: number }): DeliveryEvent[] {
      if (state.status !== 'in_flight' || cmd.attempt !== state.attempts) return [];
      return [{ type: 'delivery.failed', outcome: null, reason: 'endpoint_disabled' }];
    },
    replay(state: DeliveryState): DeliveryEvent[] {
      switch (state.status) {
        case 'delivered':
        case 'failed':
          return [{ type: 'delivery.replayed' }, { type: 'delivery.attempt_started', attempt: state.attempts + 1 }];
        case 'in_flight':
        case 'retrying':
          throw conflict(`Webhook delivery ${state.id} is ${state.status === 'in_flight' ? 'in flight' : 'retrying'}; only a delivered or failed delivery can be replayed.`);
        default:
          return assertNever(state.status);
      }
    },
  },
  evolve(s: DeliveryState, ev: DeliveryEvent, meta): DeliveryState {
    switch (ev.type) {
      case 'delivery.created':
        return { ...s, seed: ev.seed, created_at: meta.at };
      case 'delivery.attempt_started':
        return { ...s, status: 'in_flight', attempts: ev.attempt, attempt_started_at: meta.at, next_attempt_at: null };
      case 'delivery.succeeded':
        return { ...s, status: 'delivered', last_status: ev.outcome.status, last_fault: null, signature_header: ev.outcome.signature_header, delivered_at: meta.at, next_attempt_at: null, attempt_started_at: null };
      case 'delivery.attempt_failed':
        return {
          ...s, status: 'retrying', last_status: ev.outcome.status, last_fault: ev.outcome.fault, signature_header: ev.outcome.signature_header,
          next_attempt_at: ev.next_attempt_at, retries_used: s.retries_used + 1, attempt_started_at: null,
        };
      case 'delivery.failed':
        return {
          ...s, status: 'failed', failed_at: meta.at, next_attempt_at: null, attempt_started_at: null,
          ...(ev.outcome ? { last_status: ev.outcome.status, last_fault: ev.outcome.fault, signature_header: ev.outcome.signature_header } : {}),
        };
      case 'delivery.replayed':
        return { ...s, retries_used: 0, delivered_at: null, failed_at: null };
      default:
        return assertNever(ev);
    }
  },
  view: (s: DeliveryState) => deliveryView(s, true),
  // Durable hand-over: whoever asked the endpoint for the assignment may die before creating the
  // delivery; this reaction creates it from the endpoint's journal (a repeat changes nothing).
  reactions: [
    {
      from: 'webhook_endpoint',
      events: ['endpoint.delivery_assigned'],
      command: 'create',
      target: (e) => {
        const d = e.data as { delivery_id: string; seed: DeliverySeed };
        if (createdHere.delete(d.delivery_id)) return undefined; // applied already (see createdHere)
        return { id: d.delivery_id, payload: d.seed };
      },
    },
  ],
  timers: (s: DeliveryState): TimerWish[] => attemptTimers(s, ATTEMPT_WATCHDOG_MS),
  indexes(s: DeliveryState): IndexEntry[] {
    if (!s.seed) return NO_LISTS;
    // The lists follow the seed and the creation time alone, which no later event changes, and
    // the runtime asks for them before and after each commit: the last answer is given again.
    if (s.seed !== lastLists.seed || s.created_at !== lastLists.createdAt) {
      lastLists.seed = s.seed;
      lastLists.createdAt = s.created_at;
      lastLists.lists = [
        { list: 'all', sortKey: `${sortKeyTime(s.created_at)}.${s.seed.endpoint_id}.${seqKey(s.seed.sequence)}` },
        { list: endpointList(s.seed.endpoint_id), sortKey: seqKey(s.seed.sequence) },
      ];
    }
    return lastLists.lists;
  },
});

/** Spec 2.12 WebhookDelivery; the list omits signed_body and signature_header (spec 4.11). */
export function deliveryView(s: DeliveryState, single: boolean) {
  const seed = s.seed!;
  const v = {
    id: s.id,
    object: 'webhook_delivery' as const,
    livemode: seed.livemode,
    mocked: false,
    endpoint_id: seed.endpoint_id,
    event_id: seed.event_id,
    event_type: seed.event_type,
    sequence: seed.sequence,
    attempts: s.attempts,
    last_status: s.last_status,
    last_fault: s.last_fault,
    next_attempt_at: s.next_attempt_at === null ? null : iso(s.next_attempt_at),
    delivered_at: s.delivered_at === null ? null : iso(s.delivered_at),
    failed_at: s.failed_at === null ? null : iso(s.failed_at),
    is_test: seed.is_test,
    retry_schedule_seconds: [...RETRY_SCHEDULE_SECONDS],
    created_at: iso(s.created_at),
  };
  return single ? { ...v, signed_body: seed.body, signature_header: s.signature_header } : v;
}
