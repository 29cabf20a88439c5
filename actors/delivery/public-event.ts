/**
 * Public event: one per event of a module's event list (spec 6), under the journal event's own
 * evt_ id, holding the envelope exactly as delivered. A write-once derived record (runtime/derived-records.ts),
 * not an actor: recorded again after a crash it is the same record, so the list never holds an
 * event twice.
 */
import type { IndexEntry } from '../../runtime/index.ts';
import type { EventEnvelope } from './envelope.ts';

export const PUBLIC_EVENT_PREFIX = 'evt_';

export interface PublicEventRecord {
  stream: string;
  sequence: number;
  /**
   * The envelope as its JSON, the very string every subscribed endpoint is sent and signs: one
   * string kept per event instead of the envelope's object tree beside the same bytes.
   */
  body: string;
}

/** A record written before the envelope was kept as its JSON held the object. */
interface EarlierPublicEventRecord {
  stream: string;
  envelope: EventEnvelope;
}

export type StoredPublicEvent = PublicEventRecord | EarlierPublicEventRecord;

export const envelopeOf = (r: StoredPublicEvent): EventEnvelope => ('body' in r ? (JSON.parse(r.body) as EventEnvelope) : r.envelope);

/** The list of one stream, in sequence order. */
export const streamList = (stream: string) => `stream:${stream}`;
const sequenceKey = (n: number) => n.toString().padStart(15, '0');

export const publicEventLists = (r: PublicEventRecord): IndexEntry[] => [{ list: streamList(r.stream), sortKey: sequenceKey(r.sequence) }];

/** The lists of a record as stored, the earlier form's sequence read from its envelope. */
export const storedPublicEventLists = (r: StoredPublicEvent): IndexEntry[] =>
  'body' in r ? publicEventLists(r) : [{ list: streamList(r.stream), sortKey: sequenceKey(r.envelope.sequence) }];
