/**
 * Event stream: the sequencer of one organisation's stream (spec 6 `sequence`: per organisation
 * and per stream, no gaps). Assigning inside one actor's mailbox makes the numbers gapless even
 * when several nodes commit at once: the actor has one owner and one journal.
 * The feed reader may offer an event twice (a crash between assigning and moving its cursor), so
 * the actor remembers the last RECENT assignments and answers a repeat with the number it gave.
 *
 * The feed asks once per batch (`assign_many`: the events of one organisation's stream in feed
 * order), so a batch of events costs one journal event here, not one each.
 *
 * status   command      condition                         event                  next
 * -------  -----------  --------------------------------  ---------------------  -------------------------
 * (any)    assign       event id not among recent         stream.assigned        last_sequence + 1
 * (any)    assign       event id among recent             -                      unchanged (same sequence)
 * (any)    assign_many  some event ids not among recent   stream.assigned_many   last_sequence + new ones
 * (any)    assign_many  every event id among recent       -                      unchanged (same sequences)
 */
import { defineActor } from '../../runtime/index.ts';
import { emptyRecent, recall, remember, type Recent } from './recent-assignments.ts';

/** A repeat can only come from the feed reader's last batch (feed.ts BATCH, 512); this is more. */
const RECENT = 640;

export interface StreamState {
  stream: string;
  last_sequence: number;
  /** [event id, sequence] of the last assignments. */
  recent: Recent<[string, number]>;
}

/**
 * `position`: the event's place in the journal feed (absent in events recorded before it was kept).
 * `stream.assigned_many`: the events given `first_sequence`, `first_sequence + 1`, ... in order.
 */
export type StreamEvent =
  | { type: 'stream.assigned'; stream: string; event_id: string; sequence: number; position?: number }
  | { type: 'stream.assigned_many'; stream: string; first_sequence: number; event_ids: string[]; positions: number[] };
export interface AssignCommand {
  stream: string;
  event_id: string;
  /** The event's feed position: only an event at or before the last one assigned can be a repeat. */
  position: number;
}
export interface AssignManyCommand {
  stream: string;
  /** In feed order, positions increasing. */
  events: { event_id: string; position: number }[];
}

export const streamId = (org: string, stream: string) => `event_stream_${org}_${stream}`;

export const EventStream = defineActor({
  kind: 'event_stream',
  prefix: 'event_stream_',
  // Hot and small: replaying up to a thousand tiny events on activation is cheaper than packing
  // the recent assignments every hundred.
  snapshotEvery: 1000,
  // 2: `recent` became a persistent window (recent-assignments.ts); older snapshots are replayed instead.
  schema: 2,
  creates: ['assign', 'assign_many'],
  initial: (): StreamState => ({ stream: '', last_sequence: 0, recent: emptyRecent() }),
  decide: {
    assign(state: StreamState, cmd: AssignCommand) {
      const seen = recall(state.recent, cmd.position, ([id]) => id === cmd.event_id);
      if (seen) return { events: [], reply: { sequence: seen[1] } };
      const sequence = state.last_sequence + 1;
      const ev: StreamEvent = { type: 'stream.assigned', stream: cmd.stream, event_id: cmd.event_id, sequence, position: cmd.position };
      return { events: [ev], reply: { sequence } };
    },
    /** Replies `{ sequences }`, one per event in the command's order; a repeat keeps the number it got. */
    assign_many(state: StreamState, cmd: AssignManyCommand) {
      const sequences: number[] = new Array(cmd.events.length);
      const event_ids: string[] = [];
      const positions: number[] = [];
      let next = state.last_sequence + 1;
      for (let i = 0; i < cmd.events.length; i++) {
        const e = cmd.events[i];
        const seen = recall(state.recent, e.position, ([id]) => id === e.event_id);
        if (seen) {
          sequences[i] = seen[1];
          continue;
        }
        sequences[i] = next++;
        event_ids.push(e.event_id);
        positions.push(e.position);
      }
      if (event_ids.length === 0) return { events: [], reply: { sequences } };
      const ev: StreamEvent = { type: 'stream.assigned_many', stream: cmd.stream, first_sequence: state.last_sequence + 1, event_ids, positions };
      return { events: [ev], reply: { sequences } };
    },
  },
  evolve(state: StreamState, ev: StreamEvent): StreamState {
    if (ev.type === 'stream.assigned') {
      return { stream: ev.stream, last_sequence: ev.sequence, recent: remember(state.recent, [ev.event_id, ev.sequence], ev.position, RECENT) };
    }
    let recent = state.recent;
    for (let i = 0; i < ev.event_ids.length; i++) recent = remember(recent, [ev.event_ids[i], ev.first_sequence + i], ev.positions[i], RECENT);
    return { stream: ev.stream, last_sequence: ev.first_sequence + ev.event_ids.length - 1, recent };
  },
  view: (s: StreamState) => ({ stream: s.stream, last_sequence: s.last_sequence }),
});
