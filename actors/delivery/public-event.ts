/**
 * Public event: one per event of a module's event list (spec 6), under the journal event's own
 * evt_ id, holding the envelope exactly as delivered. Recorded once; a repeat from the feed reader
 * changes nothing, so the list never holds an event twice.
 *
 * status     command  condition  event            next
 * ---------  -------  ---------  ---------------  ---------
 * (none)     record   -          event.recorded   recorded
 * recorded   record   -          -                recorded (a repeat)
 */
import { defineActor, type IndexEntry } from '../../runtime/actor.ts';
import type { EventEnvelope } from './envelope.ts';

export interface PublicEventState {
  stream: string;
  envelope: EventEnvelope | null;
}

export type PublicEventEvent = { type: 'event.recorded'; stream: string; envelope: EventEnvelope };

/** The list of one stream, in sequence order. */
export const streamList = (stream: string) => `stream:${stream}`;
const sequenceKey = (n: number) => n.toString().padStart(15, '0');

export const PublicEvent = defineActor({
  kind: 'public_event',
  prefix: 'evt_',
  creates: ['record'],
  initial: (): PublicEventState => ({ stream: '', envelope: null }),
  decide: {
    record(state: PublicEventState, cmd: { stream: string; envelope: EventEnvelope }) {
      if (state.envelope) return [];
      const ev: PublicEventEvent = { type: 'event.recorded', stream: cmd.stream, envelope: cmd.envelope };
      return [ev];
    },
  },
  evolve: (_s: PublicEventState, ev: PublicEventEvent): PublicEventState => ({ stream: ev.stream, envelope: ev.envelope }),
  view: (s: PublicEventState) => s.envelope,
  indexes: (s: PublicEventState): IndexEntry[] => (s.envelope ? [{ list: streamList(s.stream), sortKey: sequenceKey(s.envelope.sequence) }] : []),
});
