/**
 * Event stream: the sequencer of one organisation's stream (spec 6 `sequence`: per organisation
 * and per stream, no gaps). Assigning inside one actor's mailbox makes the numbers gapless even
 * when several nodes commit at once: the actor has one owner and one journal.
 * The feed reader may offer an event twice (a crash between assigning and moving its cursor), so
 * the actor remembers the last RECENT assignments and answers a repeat with the number it gave.
 *
 * status   command  condition                         event             next
 * -------  -------  --------------------------------  ----------------  -------------------
 * (any)    assign   event id not among recent         stream.assigned   last_sequence + 1
 * (any)    assign   event id among recent             -                 unchanged (same sequence)
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

/** `position`: the event's place in the journal feed (absent in events recorded before it was kept). */
export type StreamEvent = { type: 'stream.assigned'; stream: string; event_id: string; sequence: number; position?: number };
export interface AssignCommand {
  stream: string;
  event_id: string;
  /** The event's feed position: only an event at or before the last one assigned can be a repeat. */
  position: number;
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
  creates: ['assign'],
  initial: (): StreamState => ({ stream: '', last_sequence: 0, recent: emptyRecent() }),
  decide: {
    assign(state: StreamState, cmd: AssignCommand) {
      const seen = recall(state.recent, cmd.position, ([id]) => id === cmd.event_id);
      if (seen) return { events: [], reply: { sequence: seen[1] } };
      const sequence = state.last_sequence + 1;
      const ev: StreamEvent = { type: 'stream.assigned', stream: cmd.stream, event_id: cmd.event_id, sequence, position: cmd.position };
      return { events: [ev], reply: { sequence } };
    },
  },
  evolve(state: StreamState, ev: StreamEvent): StreamState {
    return { stream: ev.stream, last_sequence: ev.sequence, recent: remember(state.recent, [ev.event_id, ev.sequence], ev.position, RECENT) };
  },
  view: (s: StreamState) => ({ stream: s.stream, last_sequence: s.last_sequence }),
});
