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
import { defineActor } from '../../runtime/actor.ts';

/** A repeat can only come from the feed reader's last batch (feed.ts BATCH, 512); this is more. */
const RECENT = 640;

export interface StreamState {
  stream: string;
  last_sequence: number;
  /** [event id, sequence], oldest first. */
  recent: Array<[string, number]>;
}

export type StreamEvent = { type: 'stream.assigned'; stream: string; event_id: string; sequence: number };

export const streamId = (org: string, stream: string) => `event_stream_${org}_${stream}`;

export const EventStream = defineActor({
  kind: 'event_stream',
  prefix: 'event_stream_',
  // Hot and small: replaying up to a thousand tiny events on activation is cheaper than packing
  // the recent assignments every hundred.
  snapshotEvery: 1000,
  creates: ['assign'],
  initial: (): StreamState => ({ stream: '', last_sequence: 0, recent: [] }),
  decide: {
    assign(state: StreamState, cmd: { stream: string; event_id: string }) {
      const seen = state.recent.find(([id]) => id === cmd.event_id);
      if (seen) return { events: [], reply: { sequence: seen[1] } };
      const sequence = state.last_sequence + 1;
      const ev: StreamEvent = { type: 'stream.assigned', stream: cmd.stream, event_id: cmd.event_id, sequence };
      return { events: [ev], reply: { sequence } };
    },
  },
  evolve(state: StreamState, ev: StreamEvent): StreamState {
    const recent = state.recent.length >= RECENT ? state.recent.slice(state.recent.length - RECENT + 1) : state.recent.slice();
    recent.push([ev.event_id, ev.sequence]);
    return { stream: ev.stream, last_sequence: ev.sequence, recent };
  },
  view: (s: StreamState) => ({ stream: s.stream, last_sequence: s.last_sequence }),
});
