/**
 * Audit entry: one per recorded transition (journal event) of a module's actor kinds (spec 3:
 * "Every transition is recorded"; spec 4 "audit_entries reads"). Its id is derived from the
 * journal event's id, so the feed reader offering the event twice still makes one entry.
 * The shape is a gap (docs/gaps/delivery.md): who did what to which record, when, from which
 * request.
 *
 * status    command  condition  event            next
 * --------  -------  ---------  ---------------  --------
 * (none)    record   -          audit.recorded   recorded
 * recorded  record   -          -                recorded (a repeat)
 */
import { defineActor, sortKeyTime, type IndexEntry } from '../../runtime/actor.ts';
import { iso } from '../../runtime/clock.ts';

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

export interface AuditState {
  id: string;
  facts: AuditFacts | null;
}

export type AuditEvent = { type: 'audit.recorded'; facts: AuditFacts };

export const auditEntryId = (eventId: string) => `audit_entry_${eventId.slice('evt_'.length)}`;
export const moduleList = (module: string) => `module:${module}`;
export const recordList = (module: string, recordId: string) => `record:${module}:${recordId}`;

export const AuditEntry = defineActor({
  kind: 'audit_entry',
  prefix: 'audit_entry_',
  creates: ['record'],
  initial: (id: string): AuditState => ({ id, facts: null }),
  decide: {
    record(state: AuditState, cmd: AuditFacts) {
      if (state.facts) return [];
      const ev: AuditEvent = { type: 'audit.recorded', facts: cmd };
      return [ev];
    },
  },
  evolve: (s: AuditState, ev: AuditEvent): AuditState => ({ id: s.id, facts: ev.facts }),
  view(s: AuditState) {
    const f = s.facts!;
    return {
      id: s.id,
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
  },
  indexes(s: AuditState): IndexEntry[] {
    if (!s.facts) return [];
    const sortKey = `${sortKeyTime(s.facts.at)}.${s.facts.position.toString().padStart(15, '0')}`;
    return [
      { list: moduleList(s.facts.module), sortKey },
      { list: recordList(s.facts.module, s.facts.record_id), sortKey },
    ];
  },
});
