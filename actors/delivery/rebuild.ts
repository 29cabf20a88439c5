/**
 * Audit entries and public events written again from the journal after the store holding them lost
 * them (the cluster's Redis emptied: runtime/derived-watch.ts; DESIGN "Stores": Redis keeps only what
 * the journal gives back). The feed is read from its start and each event projected as the event
 * pipeline does (projection.ts). A public event keeps the sequence its stream's sequencer gave it,
 * which the journal holds too (event-stream.ts `stream.assigned_many`, committed after the events it
 * numbers): an event waits for its number there, and one not numbered yet is left to the pipeline.
 * Nothing is sent to an endpoint: deliveries are the pipeline's and live in the journal already.
 * Writing a record again changes nothing (ids and contents are functions of the event).
 */
import { actorEvents, journalFeed, type Platform } from '../../kernel/index.ts';
import type { Derived } from '../../runtime/index.ts';
import type { AuditFacts } from './audit-entry.ts';
import type { EventCatalogue } from './catalogue.ts';
import { EventStream, type StreamEvent } from './event-stream.ts';
import { auditOf, describe, type ProjectedRecords, publicOf, relevance, type Publishable } from './projection.ts';
import type { StoredPublicEvent } from './public-event.ts';
import { ViewFolder } from './views.ts';

const FEED_PAGE = 1000;
/** Streams kept folded while reading the feed in order: each next event of one costs an evolve. */
const FOLDED = 100_000;

export interface RebuildSources extends ProjectedRecords {
  catalogue: EventCatalogue;
  /** The delivery area's own kinds: neither audited nor published. */
  ownKinds: ReadonlySet<string>;
}

/** Writes every audit entry and numbered public event of the journal again; returns how many. */
export async function rebuildRecords(platform: Platform, src: RebuildSources, keepGoing: () => Promise<boolean>): Promise<number> {
  const defs = new Map(platform.areas.flatMap((a) => a.kinds.map((d) => [d.kind, d] as const)));
  const folder = new ViewFolder((def, id) => actorEvents(platform, def, id), FOLDED);
  const waiting = new Map<string, { org: string; p: Publishable }>();
  let written = 0;
  for (let after = 0; ; ) {
    if (!(await keepGoing())) throw new Error('the rebuild of audit entries and public events lost its claim');
    const page = await journalFeed(platform, after, FEED_PAGE);
    if (page.length === 0) break;
    const audits: Derived<AuditFacts>[] = [];
    const publics: Derived<StoredPublicEvent>[] = [];
    const numbered = (id: string, sequence: number) => {
      const w = waiting.get(id);
      if (!w) return;
      waiting.delete(id);
      publics.push(publicOf(w.org, w.p, sequence).derived);
    };
    for (const entry of page) {
      const dot = entry.stream.indexOf('.');
      const kind = entry.stream.slice(0, dot);
      const ev = entry.event;
      if (kind === EventStream.kind) {
        const s = ev.data as StreamEvent;
        if (s.type === 'stream.assigned') numbered(s.event_id, s.sequence);
        else s.event_ids.forEach((id, i) => numbered(id, s.first_sequence + i));
        continue;
      }
      const def = defs.get(kind);
      const matters = def && !src.ownKinds.has(kind) ? relevance(src.catalogue, kind, ev.type) : undefined;
      if (!def || !matters) continue;
      const recordId = entry.stream.slice(dot + 1);
      let state = folder.stateAt(def, entry.stream, recordId, ev);
      if (state instanceof Promise) state = await state;
      const { view, livemode, mocked } = describe(def, state, matters.decl !== undefined);
      if (matters.audited) audits.push(auditOf(ev.org, matters.area, def, recordId, ev, { livemode, mocked }, entry.position));
      if (matters.decl) waiting.set(ev.id, { org: ev.org, p: { ev, decl: matters.decl, view, livemode, mocked } });
    }
    await Promise.all([src.audit.put(audits), src.events.put(publics)]);
    written += audits.length + publics.length;
    after = page[page.length - 1].position;
  }
  return written;
}
