/**
 * The event pipeline: reads every committed journal event from the global feed, in order, from a
 * cursor kept in the key-value store (so a restart resumes where it stopped and loses nothing),
 * and for each one
 *   - of a module's kind: records its audit entry (spec 3: every transition is recorded);
 *   - declared in the catalogue: assigns its sequence in the organisation's stream, records the
 *     public event (the module's event list), and hands it to every enabled endpoint of the
 *     organisation that subscribes to its type, which assigns the delivery;
 *   - a webhook endpoint's creation: tells the endpoint its feed position, before any later event
 *     is handed to it, since an endpoint receives only the events committed after it (endpoint.ts).
 * Audit entries and public events are write-once derived records (runtime/derived-records.ts), written in one
 * batch per organisation and pass; only sequencing and deliveries go through actors.
 * Each step is idempotent (ids derived from the event id, repeats answered from memory of recent
 * assignments), so re-reading the last batch after a crash duplicates nothing. Within a batch the
 * organisations proceed in parallel and each organisation's events in feed order.
 * Reading (cursor, batches, pokes, retries, and in cluster mode the one-reader lease) is the
 * runtime's FeedReader; this file is the projection of a batch.
 */
import type { AnyActorDef, Derived, FeedReader } from '../../runtime/index.ts';
import { actorEvents, type Platform, platformFeed } from '../../kernel/index.ts';
import type { FeedEntry } from '../../stores/index.ts';
import type { AuditFacts } from './audit-entry.ts';
import type { EventCatalogue } from './catalogue.ts';
import { markCreatedHere, WebhookDelivery } from './delivery.ts';
import { WebhookEndpoint, subscribes, type Assignment, type EnqueueCommand } from './endpoint.ts';
import { EventStream, streamId } from './event-stream.ts';
import { auditOf, describe, type ProjectedRecords, publicOf, relevance, type Publishable } from './projection.ts';
import type { StoredPublicEvent } from './public-event.ts';
import { ViewFolder } from './views.ts';

/** Names the reader's cursor and lease in the key-value store: `delivery:feed:cursor`, `delivery:feed:lease`. */
const READER = 'delivery:feed';
const BATCH = 512;

/** A public event of a batch, its sequence filled in once its stream's sequencer answers. */
interface Published extends Publishable {
  sequence: number;
  position: number;
}

/** Awaited later (in order, or all together): a rejection meanwhile is not unhandled. */
function later<T>(p: Promise<T>): Promise<T> {
  p.catch(() => {});
  return p;
}

interface EndpointView {
  id: string;
  event_types: string[];
}

export class EventFeed {
  private readonly reader: FeedReader;
  private unsubscribe: (() => void) | undefined;
  private readonly folder: ViewFolder;
  private readonly defs = new Map<string, AnyActorDef>();
  private readonly ownKinds: ReadonlySet<string>;

  constructor(
    private readonly platform: Platform,
    private readonly catalogue: EventCatalogue,
    ownKinds: ReadonlySet<string>,
    private readonly records: ProjectedRecords,
  ) {
    this.folder = new ViewFolder((def, id) => actorEvents(platform, def, id));
    for (const area of platform.areas) for (const def of area.kinds) this.defs.set(def.kind, def);
    this.ownKinds = ownKinds;
    this.reader = platformFeed(platform, READER, (entries) => this.project(entries), { batch: BATCH });
  }

  async start(): Promise<void> {
    this.unsubscribe = this.platform.system.onCommit((c) => {
      if (this.ownKinds.has(c.kind) || c.events.length === 0) return;
      this.folder.remember(c.stream, c.events[c.events.length - 1].version, c.state);
    });
    this.reader.start();
  }

  async stop(): Promise<void> {
    this.unsubscribe?.();
    await this.reader.stop();
  }

  get idle(): boolean {
    return this.reader.idle;
  }

  /** Resolves once the feed has been read to its end. */
  caughtUp(): Promise<void> {
    return this.reader.caughtUp();
  }

  /** One batch: the organisations in parallel, each one's entries in feed order. */
  private async project(entries: FeedEntry[]): Promise<void> {
    const byOrg = new Map<string, FeedEntry[]>();
    for (const e of entries) {
      const list = byOrg.get(e.event.org);
      if (list) list.push(e);
      else byOrg.set(e.event.org, [e]);
    }
    await Promise.all([...byOrg].map(([org, list]) => this.projectOrg(org, list)));
  }

  /**
   * One organisation's entries of a batch, in feed order. Asks to one actor are sent without
   * waiting in between: its mailbox keeps their order (so sequences follow the feed) and the
   * runtime commits them together.
   */
  private async projectOrg(org: string, entries: FeedEntry[]): Promise<void> {
    const { system } = this.platform;
    const opts = { org, principal: 'system', lane: 'system' as const };
    const quiet = { ...opts, noReply: true };
    const work: Promise<unknown>[] = [];
    const audits: Derived<AuditFacts>[] = [];
    const publics: Derived<StoredPublicEvent>[] = [];
    const published: Published[] = [];
    // Each stream's events of the batch, in feed order: one ask to its sequencer for all of them.
    const byStream = new Map<string, { events: { event_id: string; position: number }[]; published: Published[] }>();
    const noted: Promise<unknown>[] = [];

    for (const entry of entries) {
      const dot = entry.stream.indexOf('.');
      const kind = entry.stream.slice(0, dot);
      if (kind === WebhookEndpoint.kind && entry.event.type === 'endpoint.created') {
        noted.push(later(system.ask(WebhookEndpoint, entry.stream.slice(dot + 1), 'note_position', { position: entry.position }, quiet)));
      }
      if (this.ownKinds.has(kind)) continue;
      const def = this.defs.get(kind);
      const matters = def && relevance(this.catalogue, kind, entry.event.type);
      if (!def || !matters) continue;
      const ev = entry.event;
      const { area, decl, audited } = matters;
      const recordId = entry.stream.slice(dot + 1);
      let state = this.folder.stateAt(def, entry.stream, recordId, ev);
      if (state instanceof Promise) state = await state;
      const { view, livemode, mocked } = describe(def, state, decl !== undefined);
      if (audited) audits.push(auditOf(org, area, def, recordId, ev, { livemode, mocked }, entry.position));
      if (decl) {
        const p: Published = { ev, decl, view, livemode, mocked, sequence: 0, position: entry.position };
        published.push(p);
        let s = byStream.get(decl.stream);
        if (!s) byStream.set(decl.stream, (s = { events: [], published: [] }));
        s.events.push({ event_id: ev.id, position: entry.position });
        s.published.push(p);
      }
    }

    if (published.length > 0) {
      await Promise.all(Array.from(byStream, async ([stream, s]) => {
        const { sequences } = (await system.ask(EventStream, streamId(org, stream), 'assign_many', { stream, events: s.events }, opts)) as { sequences: number[] };
        for (let i = 0; i < sequences.length; i++) s.published[i].sequence = sequences[i];
      }));
      const endpoints = await this.endpoints(org);
      await Promise.all(noted); // an endpoint created in this batch knows where it starts before it is offered an event
      const enqueued: Promise<unknown>[] = [];
      for (const p of published) {
        const { ev, decl, sequence } = p;
        const { derived, body } = publicOf(org, p, sequence);
        publics.push(derived);
        let cmd: EnqueueCommand | undefined;
        for (const ep of endpoints) {
          if (!subscribes(ep.event_types, decl.type)) continue;
          cmd ??= { event_id: ev.id, event_type: decl.type, occurred_at_ms: ev.at, livemode: p.livemode, body, position: p.position };
          enqueued.push(later(system.ask(WebhookEndpoint, ep.id, 'enqueue', cmd, opts).then((a) => {
            const assigned = a as Assignment | null;
            return assigned?.seed ? system.ask(WebhookDelivery, assigned.delivery_id, 'create', assigned.seed, quiet).then(() => markCreatedHere(assigned.delivery_id)) : undefined;
          })));
        }
      }
      work.push(...enqueued);
    }
    work.push(...noted, this.records.audit.put(audits), this.records.events.put(publics));
    await Promise.all(work);
  }

  private async endpoints(org: string): Promise<EndpointView[]> {
    const out: EndpointView[] = [];
    let after: string | undefined;
    for (;;) {
      const page = await this.platform.system.list(WebhookEndpoint, org, 'enabled', { after, limit: 100, order: 'asc' });
      out.push(...(page.data as EndpointView[]));
      if (!page.has_more || page.data.length === 0) return out;
      after = out[out.length - 1].id;
    }
  }
}
