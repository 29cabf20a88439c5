/**
 * Webhook endpoint. Spec 2.12, 4.11, 6.2, 6.5, 8.
 *
 * It owns the endpoint's delivery sequence (monotonic from 1, no gaps: assigned in this mailbox)
 * and its signing secrets. It receives the events committed after its own creation, in the
 * journal's commit order: the event feed tells it the feed position of its creation when it reads
 * it (note_position), and it takes only events past that position. Commit times cannot order them:
 * an event and the creation may share a millisecond, and the event feed may offer the event after
 * the endpoint exists. A secret is shown once (the create and rotate replies) and never in a
 * view; it stays in the endpoint's own state because an HMAC needs the key itself. After a
 * rotation the previous secret stays active for PREVIOUS_SECRET_LIFETIME_MS, then a reminder
 * retires it; a third secret retires the oldest at once, so at most two are ever active.
 *
 * status    command         condition                                 event                       next
 * --------  --------------  ----------------------------------------  --------------------------  --------
 * (none)    create          -                                         endpoint.created            enabled
 * enabled   rotate_secret   -                                         endpoint.secret_rotated     enabled
 * enabled   disable         -                                         endpoint.disabled           disabled
 * enabled   enqueue         subscribed, event after it, not seen     endpoint.delivery_assigned  enabled
 * enabled   test            -                                         endpoint.delivery_assigned  enabled
 * (any)     retire_secrets  a previous secret's time is up            endpoint.secret_retired     unchanged
 * (any)     note_position   its creation's position not yet noted     endpoint.position_noted     unchanged
 * disabled  rotate_secret, disable, test                              409 conflict
 * disabled  enqueue         -                                         - (nothing is sent)         disabled
 */
import { type CommandContext, defineActor, type IndexEntry, iso, sortKeyTime, type TimerWish } from '../../runtime/index.ts';
import { assertNever, conflict } from '../../kernel/index.ts';
import type { DeliverySeed } from './delivery.ts';
import { envelope } from './envelope.ts';
import { emptyRecent, recall, remember, type Recent } from './recent-assignments.ts';
import { secretDigest } from './webhook-signature.ts';

/** How long the previous secret keeps signing after a rotation (a gap: docs/gaps.md#delivery). */
export const PREVIOUS_SECRET_LIFETIME_MS = 24 * 3600_000;
/** Spec 4.11: the type a test delivery sends when none is asked for. */
export const DEFAULT_TEST_EVENT_TYPE = 'payroll.run.completed';
/** A repeat can only come from the feed reader's last batch (feed.ts BATCH, 512); this is more. */
const RECENT = 640;

export type EndpointStatus = 'enabled' | 'disabled';

/**
 * Where receiving starts. `feed`: after the feed position of the endpoint's creation, null until
 * the event feed has read that far. `time`: an endpoint created before its position was noted
 * receives the events committed at or after its creation time.
 */
export type ReceivingStart = { by: 'feed'; after: number | null } | { by: 'time' };

export interface Secret {
  secret: string;
  digest: string;
  created_at: number;
  /** Null while it is the newest; set when a newer one replaces it. */
  retires_at: number | null;
}

export interface EndpointState {
  id: string;
  status: EndpointStatus;
  url: string;
  event_types: string[];
  livemode: boolean;
  /** Active secrets, newest first, at most two. */
  secrets: Secret[];
  created_at: number;
  disabled_at: number | null;
  last_sequence: number;
  /** [event id, delivery id, sequence] of the last assignments. */
  recent: Recent<[string, string, number]>;
  start: ReceivingStart;
}

export type EndpointEvent =
  /** `by_feed`: receiving starts at the creation's feed position (absent from an endpoint created before positions were noted). */
  | { type: 'endpoint.created'; url: string; event_types: string[]; livemode: boolean; secret: string; digest: string; by_feed?: true }
  | { type: 'endpoint.position_noted'; position: number }
  | { type: 'endpoint.secret_rotated'; secret: string; digest: string; previous_retires_at: number }
  | { type: 'endpoint.secret_retired'; digest: string }
  | { type: 'endpoint.disabled' }
  /** `position`: the feed position of the event delivered (none for a test delivery). */
  | { type: 'endpoint.delivery_assigned'; delivery_id: string; seed: DeliverySeed; position?: number };

export interface EnqueueCommand {
  event_id: string;
  event_type: string;
  /** Commit time of the event: what an endpoint that starts by time compares. */
  occurred_at_ms: number;
  livemode: boolean;
  body: string;
  /**
   * The event's feed position: only one past the endpoint's creation is received, and only one at
   * or before the last one assigned can be a repeat.
   */
  position: number;
}

export interface Assignment {
  delivery_id: string;
  sequence: number;
  /** Null when the event was assigned before (the delivery reaction creates it in any case). */
  seed: DeliverySeed | null;
}

export const subscribes = (eventTypes: readonly string[], type: string) => eventTypes.includes('*') || eventTypes.includes(type);

const newSecret = (ctx: CommandContext) => ctx.newId('whsec_');

/** Secrets that may sign at `now`: never a retired one (spec 6.2, 8). */
export const activeSecrets = (s: EndpointState, now: number): Secret[] => s.secrets.filter((x) => x.retires_at === null || x.retires_at > now);

function assign(state: EndpointState, ctx: CommandContext, seed: Omit<DeliverySeed, 'sequence' | 'endpoint_id'>, position?: number) {
  const delivery_id = ctx.newId('webhook_delivery_');
  const sequence = state.last_sequence + 1;
  // Whole literals, one shape each: a spread seed took a hidden class of its own per delivery, and
  // a field added after the literal an out-of-object property array, both kept with the journal.
  const full: DeliverySeed = {
    endpoint_id: state.id, event_id: seed.event_id, event_type: seed.event_type, sequence, is_test: seed.is_test, livemode: seed.livemode, body: seed.body,
  };
  const ev: EndpointEvent = position === undefined
    ? { type: 'endpoint.delivery_assigned', delivery_id, seed: full }
    : { type: 'endpoint.delivery_assigned', delivery_id, seed: full, position };
  return { events: [ev], reply: { delivery_id, sequence, seed: full } satisfies Assignment };
}

/** Whether the event was committed after the endpoint was created. */
function after(state: EndpointState, cmd: EnqueueCommand): boolean {
  const start = state.start;
  switch (start.by) {
    case 'feed':
      return start.after !== null && cmd.position > start.after;
    case 'time':
      return cmd.occurred_at_ms >= state.created_at;
    default:
      return assertNever(start);
  }
}

function mustBeEnabled(state: EndpointState, what: string): void {
  switch (state.status) {
    case 'enabled':
      return;
    case 'disabled':
      throw conflict(`Webhook endpoint ${state.id} is disabled; it cannot ${what}.`);
    default:
      assertNever(state.status);
  }
}

export const WebhookEndpoint = defineActor({
  kind: 'webhook_endpoint',
  prefix: 'webhook_endpoint_',
  // Hot: one event per delivery; see event-stream.ts.
  snapshotEvery: 1000,
  // 3: `start` (where receiving starts); older snapshots are replayed instead.
  schema: 3,
  creates: ['create'],
  initial: (id: string): EndpointState => ({
    id, status: 'enabled', url: '', event_types: [], livemode: false, secrets: [], created_at: 0, disabled_at: null, last_sequence: 0, recent: emptyRecent(),
    start: { by: 'feed', after: null },
  }),
  decide: {
    create(state: EndpointState, cmd: { url: string; event_types: string[]; livemode: boolean }, ctx) {
      if (state.created_at !== 0) throw conflict(`Webhook endpoint ${state.id} exists.`);
      const secret = newSecret(ctx);
      const ev: EndpointEvent = { type: 'endpoint.created', url: cmd.url, event_types: cmd.event_types, livemode: cmd.livemode, secret, digest: secretDigest(secret), by_feed: true };
      return { events: [ev], reply: { secret } };
    },
    rotate_secret(state: EndpointState, _cmd: unknown, ctx) {
      mustBeEnabled(state, 'rotate its secret');
      const secret = newSecret(ctx);
      const ev: EndpointEvent = { type: 'endpoint.secret_rotated', secret, digest: secretDigest(secret), previous_retires_at: ctx.now + PREVIOUS_SECRET_LIFETIME_MS };
      return { events: [ev], reply: { secret } };
    },
    retire_secrets(state: EndpointState, _cmd: unknown, ctx): EndpointEvent[] {
      return state.secrets.filter((x) => x.retires_at !== null && x.retires_at <= ctx.now).map((x) => ({ type: 'endpoint.secret_retired', digest: x.digest }));
    },
    disable(state: EndpointState): EndpointEvent[] {
      mustBeEnabled(state, 'be disabled again');
      return [{ type: 'endpoint.disabled' }];
    },
    enqueue(state: EndpointState, cmd: EnqueueCommand, ctx) {
      const seen = recall(state.recent, cmd.position, ([e]) => e === cmd.event_id);
      if (seen) return { events: [], reply: { delivery_id: seen[1], sequence: seen[2], seed: null } };
      if (state.status !== 'enabled' || !subscribes(state.event_types, cmd.event_type) || !after(state, cmd)) {
        return { events: [], reply: null };
      }
      return assign(state, ctx, { event_id: cmd.event_id, event_type: cmd.event_type, is_test: false, livemode: cmd.livemode, body: cmd.body }, cmd.position);
    },
    /** From the event feed, when it reads the endpoint's creation (again, after a crash: a repeat changes nothing). */
    note_position(state: EndpointState, cmd: { position: number }): EndpointEvent[] {
      if (state.start.by !== 'feed' || state.start.after !== null || !(Number.isSafeInteger(cmd.position) && cmd.position > 0)) return [];
      return [{ type: 'endpoint.position_noted', position: cmd.position }];
    },
    test(state: EndpointState, cmd: { event_type: string; source: string; schema_version: number }, ctx) {
      mustBeEnabled(state, 'send a test delivery');
      const event_id = ctx.newId('evt_');
      // Spec 6.4: the same envelope; a test event is in no stream, so its sequence is 0.
      const body = JSON.stringify(envelope({
        id: event_id, type: cmd.event_type, schemaVersion: cmd.schema_version, org: ctx.org, sequence: 0, at: ctx.now,
        requestId: ctx.requestId, livemode: state.livemode, mocked: true, source: cmd.source, data: {},
      }));
      return assign(state, ctx, { event_id, event_type: cmd.event_type, is_test: true, livemode: state.livemode, body });
    },
  },
  evolve(s: EndpointState, ev: EndpointEvent, meta): EndpointState {
    switch (ev.type) {
      case 'endpoint.created':
        return {
          ...s, url: ev.url, event_types: ev.event_types, livemode: ev.livemode, created_at: meta.at, start: ev.by_feed ? { by: 'feed', after: null } : { by: 'time' },
          secrets: [{ secret: ev.secret, digest: ev.digest, created_at: meta.at, retires_at: null }],
        };
      case 'endpoint.secret_rotated': {
        const [current] = s.secrets;
        const previous = current ? [{ ...current, retires_at: ev.previous_retires_at }] : [];
        return { ...s, secrets: [{ secret: ev.secret, digest: ev.digest, created_at: meta.at, retires_at: null }, ...previous] };
      }
      case 'endpoint.secret_retired':
        return { ...s, secrets: s.secrets.filter((x) => x.digest !== ev.digest) };
      case 'endpoint.disabled':
        return { ...s, status: 'disabled', disabled_at: meta.at };
      case 'endpoint.position_noted':
        return { ...s, start: { by: 'feed', after: ev.position } };
      case 'endpoint.delivery_assigned': {
        const recent = remember<[string, string, number]>(s.recent, [ev.seed.event_id, ev.delivery_id, ev.seed.sequence], ev.position, RECENT);
        return { ...s, last_sequence: ev.seed.sequence, recent };
      }
      default:
        return assertNever(ev);
    }
  },
  view: (s: EndpointState) => ({
    id: s.id,
    object: 'webhook_endpoint' as const,
    livemode: s.livemode,
    mocked: false,
    url: s.url,
    event_types: s.event_types,
    secret_digests: s.secrets.map((x) => x.digest),
    disabled_at: s.disabled_at === null ? null : iso(s.disabled_at),
    created_at: iso(s.created_at),
  }),
  timers(s: EndpointState): TimerWish[] {
    const due = s.secrets.filter((x) => x.retires_at !== null).map((x) => x.retires_at!);
    return due.length ? [{ name: 'retire_secrets', dueAt: Math.min(...due), command: 'retire_secrets' }] : [];
  },
  indexes(s: EndpointState): IndexEntry[] {
    const key = sortKeyTime(s.created_at);
    return s.status === 'enabled' ? [{ list: 'all', sortKey: key }, { list: 'enabled', sortKey: key }] : [{ list: 'all', sortKey: key }];
  },
});
