/**
 * Audit entry: one per recorded transition (journal event) of a module's actor kinds (spec 3:
 * "Every transition is recorded"; spec 4 "audit_entries reads"). Its id is derived from the
 * journal event's id, so the feed reader offering the event twice still makes one entry; it is a
 * write-once derived record (runtime/derived-records.ts), not an actor. The shape is a gap
 * (docs/gaps.md#delivery): who did what to which record, when, from which request.
 */
import { type IndexEntry, iso, sortKeyTime } from '../../runtime/index.ts';

export interface AuditFacts {
  module: string;
  record_type: string;
  record_id: string;
  action: string;
  event_id: string;
  record_version: number;
  principal: string | null;
  request_id: string | null;
  at: number;
  livemode: boolean;
  mocked: boolean;
  /** Global journal feed position: breaks ties between entries of one instant. */
  position: number;
}

/** Joined (one flat string, not a piece tree over a slice of the event id): the audit trail keeps it. */
export const auditEntryId = (eventId: string) => ['audit_entry', eventId.slice('evt_'.length)].join('_');
export const moduleList = (module: string) => `module:${module}`;
export const recordList = (module: string, recordId: string) => `record:${module}:${recordId}`;

export const AUDIT_ENTRY_PREFIX = 'audit_entry_';

/** The API record (shape: a gap, docs/gaps.md#delivery). */
export function auditEntryView(id: string, f: AuditFacts) {
  return {
    id,
    object: 'audit_entry',
    livemode: f.livemode,
    mocked: f.mocked,
    record_type: f.record_type,
    record_id: f.record_id,
    record_version: f.record_version,
    action: f.action,
    event_id: f.event_id,
    principal: f.principal,
    request_id: f.request_id,
    occurred_at: iso(f.at),
  };
}

/** Newest first by commit time, ties by feed position; per module and per record. */
export function auditLists(f: AuditFacts): IndexEntry[] {
  const sortKey = `${sortKeyTime(f.at)}.${f.position.toString().padStart(15, '0')}`;
  return [
    { list: moduleList(f.module), sortKey },
    { list: recordList(f.module, f.record_id), sortKey },
  ];
}
