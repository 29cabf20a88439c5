/**
 * A worker's device inbox (spec 4.7: a device credential authenticates "their own offers and
 * assignment steps"; the frames are a gap, docs/gaps.md#allocation "Offers to the device"). One
 * actor per (organisation, worker): every notice the worker's devices are sent (an offer made,
 * accepted, declined, expired, withdrawn or accepted elsewhere; an assignment of theirs changed or
 * cancelled), numbered by a per-worker sequence from 1. The last BACKLOG notices are kept, so a
 * device that reconnects asks for what it missed by sequence; the journal is the truth, so the
 * backlog outlives passivation and restarts. Notices are derived from the work orders' and
 * assignments' committed events (notices.ts) and brought here at least once; each is recorded once
 * (the event's id is its dedupe id, and is checked against the backlog as well), so a repeat never
 * takes a second number. A device's acknowledgement of an offer is recorded once.
 *
 * command      condition                                   event                      next
 * -----------  ------------------------------------------  -------------------------  ----------------
 * record       the notice's event not recorded yet         inbox.notice_recorded      sequence + 1
 * record       the notice's event already in the backlog   -                          (same)
 * acknowledge  offer not acknowledged yet                  inbox.offer_acknowledged   (same sequence)
 * acknowledge  offer acknowledged before                   -                          (same)
 */
import { defineActor, iso } from '../../../runtime/index.ts';
import { assertNever, rememberedDerivedIds } from '../../../kernel/index.ts';
import type { Notice, NoticeBody } from './notices.ts';

export const DEVICE_INBOX_PREFIX = 'match_device_inbox_';
/** Notices a worker's inbox keeps for devices that reconnect (older ones are read from the lists). */
export const BACKLOG = 64;
/** Offer acknowledgements remembered per worker (one per offer made; the backlog's worth and more). */
const ACKNOWLEDGED_KEPT = 128;
/**
 * Events between two snapshots of an inbox. Its state is the backlog, so a snapshot weighs about
 * BACKLOG notices while each event carries one: snapshots spaced a multiple of BACKLOG events
 * apart keep their bytes a small share of what recording a notice writes, and an inbox
 * activating replays at most that many notices.
 */
const SNAPSHOT_EVERY = 8 * BACKLOG;

/**
 * The inbox of an organisation's worker (worker_id is the organisation's own reference,
 * docs/gaps.md#allocation), remembered for the workers noticed lately: each open notices the same
 * nearest workers, a cascade one worker many times.
 */
export const inboxIdOf = rememberedDerivedIds(DEVICE_INBOX_PREFIX, 20_000);

export interface InboxState {
  id: string;
  org: string;
  worker_id: string;
  /** The sequence of the last notice recorded; 0 before the first. */
  sequence: number;
  /** The last BACKLOG notices, oldest first. */
  notices: Notice[];
  /** Offers a device acknowledged, oldest first, with when. */
  acknowledged: { offer_id: string; at: number; device: string }[];
}

type InboxEvent =
  | { type: 'inbox.notice_recorded'; notice: Notice }
  | { type: 'inbox.offer_acknowledged'; offer_id: string; device: string; worker_id?: string };

export interface RecordCommand {
  worker_id: string;
  event_id: string;
  body: NoticeBody;
}

/**
 * The notice as recorded: the body's fields, then its number, worker and event. One literal per
 * body shape rather than a spread of the body: a spread builds each notice on V8's slow path, and
 * an inbox records one per offer made, withdrawn or decided.
 */
function numbered(cmd: RecordCommand, sequence: number): Notice {
  const b = cmd.body;
  const { worker_id, event_id } = cmd;
  if (b.assignment !== undefined && b.offer === undefined && b.work_order === undefined) {
    return { type: b.type, occurred_at: b.occurred_at, assignment: b.assignment, sequence, worker_id, event_id };
  }
  if (b.assignment === undefined && b.offer !== undefined && b.work_order !== undefined) {
    return { type: b.type, occurred_at: b.occurred_at, offer: b.offer, work_order: b.work_order, sequence, worker_id, event_id };
  }
  return { ...b, sequence, worker_id, event_id };
}

export const DeviceInbox = defineActor({
  kind: 'allocation_device_inbox',
  prefix: DEVICE_INBOX_PREFIX,
  creates: ['record', 'acknowledge'],
  snapshotEvery: SNAPSHOT_EVERY,
  initial: (id: string, org: string): InboxState => ({ id, org, worker_id: '', sequence: 0, notices: [], acknowledged: [] }),
  decide: {
    record(s: InboxState, cmd: RecordCommand): InboxEvent[] {
      const backlog = s.notices;
      for (let i = backlog.length - 1; i >= 0; i--) if (backlog[i].event_id === cmd.event_id) return [];
      return [{ type: 'inbox.notice_recorded', notice: numbered(cmd, s.sequence + 1) }];
    },
    acknowledge(s: InboxState, cmd: { offer_id: string; device: string; worker_id: string }): InboxEvent[] {
      if (s.acknowledged.some((a) => a.offer_id === cmd.offer_id)) return [];
      return [{ type: 'inbox.offer_acknowledged', offer_id: cmd.offer_id, device: cmd.device, worker_id: cmd.worker_id }];
    },
  },
  evolve(s: InboxState, e: InboxEvent, meta): InboxState {
    switch (e.type) {
      case 'inbox.notice_recorded': {
        // one copy of the backlog per notice: the state before keeps its own
        const notices = s.notices.slice(s.notices.length >= BACKLOG ? s.notices.length - BACKLOG + 1 : 0);
        notices.push(e.notice);
        return { id: s.id, org: s.org, worker_id: e.notice.worker_id, sequence: e.notice.sequence, notices, acknowledged: s.acknowledged };
      }
      case 'inbox.offer_acknowledged': {
        const kept = s.acknowledged.length >= ACKNOWLEDGED_KEPT ? s.acknowledged.slice(1) : s.acknowledged;
        return { id: s.id, org: s.org, worker_id: s.worker_id || (e.worker_id ?? ''), sequence: s.sequence, notices: s.notices, acknowledged: [...kept, { offer_id: e.offer_id, at: meta.at, device: e.device }] };
      }
      default:
        return assertNever(e);
    }
  },
  // An inbox is the worker's in either mode and never mocked; its audit entries read that here
  // rather than from a view of the whole backlog (ActorDef.modes).
  modes: () => ({ livemode: false, mocked: false }),
  view: (s: InboxState) => ({
    object: 'device_inbox',
    worker_id: s.worker_id,
    sequence: s.sequence,
    oldest_sequence: s.notices[0]?.sequence ?? s.sequence + 1,
    notices: s.notices,
    acknowledged: s.acknowledged.map((a) => ({ offer_id: a.offer_id, acknowledged_at: iso(a.at), device_credential_id: a.device })),
  }),
});
