/**
 * Every module's event list and audit entries through one mechanism (spec 4: "events and
 * audit_entries reads" of each module; spec 6: "Each module offers a list of its events and a read
 * by id"). Served for all eight modules whether or not the module's area is mounted yet: with no
 * area the lists are simply empty. Events are listed in sequence order (oldest first), so a client
 * that sees a gap reads on from the last event it holds with starting_after; audit entries newest
 * first.
 */
import { Type } from '@sinclair/typebox';
import { idOf, listEnvelope, type ListEnvelope, ListQuery, listQueryWith, MODULES, type ModuleInfo, notFound, parseListQuery, route, type RouteDef, type RouteRequest } from '../../kernel/index.ts';
import type { DerivedRecords } from '../../runtime/index.ts';
import { AUDIT_ENTRY_PREFIX, auditEntryView, moduleList, recordList } from './audit-entry.ts';
import { envelopeOf, PUBLIC_EVENT_PREFIX, streamList } from './public-event.ts';
import { deliveryService } from './service.ts';

const records = (req: RouteRequest) => deliveryService(req.platform).records;

/** One page of derived records in the list envelope (spec 2.1), by the request's limit and starting_after. */
async function page<T, V>(store: DerivedRecords<T>, req: RouteRequest<unknown, { limit?: number; starting_after?: string }>, list: string, order: 'asc' | 'desc', view: (id: string, r: T) => V): Promise<ListEnvelope<V>> {
  const { limit, after } = parseListQuery(req.query);
  const p = await store.page(req.org, list, { after, limit, order }, view);
  return listEnvelope(p.data, p.has_more);
}

const AuditQuery = listQueryWith({ record_id: Type.Optional(Type.String({ minLength: 1, maxLength: 255, description: 'Only the entries of this record.' })) });

function moduleRoutes(m: ModuleInfo): RouteDef[] {
  const gap = 'Response shape not shown (spec 4, 6); see docs/gaps.md#delivery.';
  return [
    route({
      method: 'GET',
      path: `${m.path}/events`,
      auth: 'key',
      module: m.scope,
      idempotent: false,
      query: ListQuery,
      summary: `List the ${m.area} module's events in sequence order (spec 6 envelope).`,
      specGap: gap,
      handler: (req) => page(records(req).events, req, streamList(m.area), 'asc', (_id, r) => envelopeOf(r)),
    }),
    route({
      method: 'GET',
      path: `${m.path}/events/{event_id}`,
      auth: 'key',
      module: m.scope,
      idempotent: false,
      summary: `Retrieve one event of the ${m.area} module.`,
      handler: async (req) => {
        const what = `${m.area} event`;
        const id = idOf(req.params.event_id, PUBLIC_EVENT_PREFIX, what);
        const r = await records(req).events.get(id, req.org);
        if (r?.stream !== m.area) throw notFound(what, id);
        return envelopeOf(r);
      },
    }),
    route({
      method: 'GET',
      path: `${m.path}/audit_entries`,
      auth: 'key',
      module: m.scope,
      idempotent: false,
      query: AuditQuery,
      summary: `List the audit entries (one per recorded transition) of the ${m.area} module, newest first.`,
      specGap: gap,
      handler: (req) => {
        const list = req.query.record_id === undefined ? moduleList(m.area) : recordList(m.area, req.query.record_id);
        return page(records(req).audit, req, list, 'desc', auditEntryView);
      },
    }),
    route({
      method: 'GET',
      path: `${m.path}/audit_entries/{audit_entry_id}`,
      auth: 'key',
      module: m.scope,
      idempotent: false,
      summary: `Retrieve one audit entry of the ${m.area} module.`,
      specGap: gap,
      handler: async (req) => {
        const what = `${m.area} audit entry`;
        const id = idOf(req.params.audit_entry_id, AUDIT_ENTRY_PREFIX, what);
        const facts = await records(req).audit.get(id, req.org);
        if (facts?.module !== m.area) throw notFound(what, id);
        return auditEntryView(id, facts);
      },
    }),
  ];
}

export const moduleEventRoutes: RouteDef[] = MODULES.flatMap(moduleRoutes);
