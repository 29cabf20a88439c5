/**
 * What one journal event makes of its record, as the event pipeline (feed.ts) and the rebuild after
 * a lost index store (rebuild.ts) both need it: its audit entry when the kind belongs to a module,
 * and the parts of its public event when its type is in the catalogue. Pure functions of the event
 * and the record's state right after it, so a rebuild writes exactly what the pipeline wrote.
 */
import { derivedRecords, flat, isModule, type Platform } from '../../kernel/index.ts';
import type { AnyActorDef, Derived, DerivedRecords } from '../../runtime/index.ts';
import type { StoredEvent } from '../../stores/index.ts';
import { auditEntryId, auditLists, type AuditFacts } from './audit-entry.ts';
import type { CatalogueEntry, EventCatalogue } from './catalogue.ts';
import { envelope } from './envelope.ts';
import { publicEventLists, storedPublicEventLists, type PublicEventRecord, type StoredPublicEvent } from './public-event.ts';

/** Where the projection writes: audit entries and public events, write-once records derived from the journal. */
export interface ProjectedRecords {
  audit: DerivedRecords<AuditFacts>;
  events: DerivedRecords<StoredPublicEvent>;
}

export const projectedRecords = (platform: Platform): ProjectedRecords => ({
  audit: derivedRecords<AuditFacts>(platform, 'audit_entry', auditLists),
  events: derivedRecords<StoredPublicEvent>(platform, 'public_event', storedPublicEventLists),
});

/** An event to be published once its sequence is known. */
export interface Publishable {
  ev: StoredEvent;
  decl: CatalogueEntry;
  view: unknown;
  livemode: boolean;
  mocked: boolean;
}

/** Whether an event of `kind` matters here, and how: undefined when it is neither audited nor published. */
export function relevance(catalogue: EventCatalogue, kind: string, type: string): { area: string; decl: CatalogueEntry | undefined; audited: boolean } | undefined {
  const area = catalogue.areaOf(kind);
  if (area === undefined) return undefined;
  const decl = catalogue.match(kind, type);
  const audited = isModule(area);
  return decl || audited ? { area, decl, audited } : undefined;
}

/**
 * The record's modes and, for a published event, its view, from the state right after the event;
 * an audit entry needs only the modes, which a kind may read from its state (ActorDef.modes)
 * without making its view.
 */
export function describe(def: AnyActorDef, state: unknown, published: boolean): { view: unknown; livemode: boolean; mocked: boolean } {
  if (state === undefined) return { view: null, livemode: false, mocked: false };
  if (published || def.modes === undefined) {
    const view = def.view(state) as { livemode?: unknown; mocked?: unknown } | null;
    return { view, livemode: view?.livemode === true, mocked: view?.mocked === true };
  }
  const m = def.modes(state);
  return { view: null, livemode: m.livemode, mocked: m.mocked };
}

export function auditOf(org: string, area: string, def: AnyActorDef, recordId: string, ev: StoredEvent, modes: { livemode: boolean; mocked: boolean }, position: number): Derived<AuditFacts> {
  // record_type: the kind's own string, not a slice of the stream's kept per entry
  const facts: AuditFacts = {
    module: area, record_type: def.kind, record_id: recordId, action: ev.type, event_id: ev.id, record_version: ev.version,
    principal: ev.principal ?? null, request_id: ev.requestId ?? null, at: ev.at, livemode: modes.livemode, mocked: modes.mocked, position,
  };
  return { id: auditEntryId(ev.id), org, record: facts, lists: auditLists(facts) };
}

/** The public event as recorded and delivered: its envelope serialised once, under its sequence. */
export function publicOf(org: string, p: Publishable, sequence: number): { derived: Derived<StoredPublicEvent>; body: string } {
  const { ev, decl } = p;
  const env = envelope({
    id: ev.id, type: decl.type, schemaVersion: decl.schemaVersion, org, sequence, at: ev.at, requestId: ev.requestId,
    livemode: p.livemode, mocked: p.mocked, source: decl.source, data: p.view,
  });
  const body = flat(JSON.stringify(env)); // serialised once: the record and every endpoint's delivery keep this string
  const record: PublicEventRecord = { stream: decl.stream, sequence, body };
  return { derived: { id: ev.id, org, record, lists: publicEventLists(record) }, body };
}
