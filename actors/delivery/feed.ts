/**
 * The event pipeline: reads every committed journal event from the global feed, in order, from a
 * cursor kept in the key-value store (so a restart resumes where it stopped and loses nothing),
 * and for each one
 *   - of a module's kind: records its audit entry (spec 3: every transition is recorded);
 *   - declared in the catalogue: assigns its sequence in the organisation's stream, records the
 *     public event (the module's event list), and hands it to every enabled endpoint of the
 *     organisation that subscribes to its type, which assigns the delivery.
 * Audit entries and public events are write-once derived records (records.ts), written in one
 * batch per organisation and pass; only sequencing and deliveries go through actors.
 * Each step is idempotent (ids derived from the event id, repeats answered from memory of recent
 * assignments), so re-reading the last batch after a crash duplicates nothing. Within a batch the
 * organisations proceed in parallel and each organisation's events in feed order.
 * In cluster mode one node at a time reads the feed (a lease in the key-value store).
 */
import type { AnyActorDef } from '../../runtime/index.ts';
import { isApiError, newId, type Platform } from '../../kernel/index.ts';
import type { FeedEntry, StoredEvent } from '../../stores/index.ts';
import { auditEntryId, auditLists, type AuditFacts } from './audit-entry.ts';
import type { CatalogueEntry, EventCatalogue } from './catalogue.ts';
import { WebhookDelivery } from './delivery.ts';
import { WebhookEndpoint, subscribes, type Assignment, type EnqueueCommand } from './endpoint.ts';
import { envelope } from './envelope.ts';
import { EventStream, streamId } from './event-stream.ts';
import { isModule } from './modules.ts';
import { publicEventLists, type PublicEventRecord } from './public-event.ts';
import type { Derived, DerivedRecords } from './records.ts';
import { ViewFolder } from './views.ts';

const CURSOR_KEY = 'delivery:feed:cursor';
const LEASE_KEY = 'delivery:feed:lease';
const LEASE_MS = 15_000;
const BATCH = 512;
const RETRY_MS = 250;

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
  private cursor = 0;
  private pass: Promise<void> | undefined;
  private again = false;
  private stopped = true;
  private unsubscribe: (() => void) | undefined;
  private retryTimer: NodeJS.Timeout | undefined;
  private readonly folder: ViewFolder;
  private readonly defs = new Map<string, AnyActorDef>();
  private readonly ownKinds: Set<string>;
  private readonly node = newId('node_');

  constructor(
    private readonly platform: Platform,
    private readonly catalogue: EventCatalogue,
    ownKinds: readonly string[],
    private readonly audit: DerivedRecords<AuditFacts>,
    private readonly events: DerivedRecords<PublicEventRecord>,
  ) {
    this.folder = new ViewFolder(platform.stores.journal);
    for (const area of platform.areas) for (const def of area.kinds) this.defs.set(def.kind, def);
    this.ownKinds = new Set(ownKinds);
  }

  async start(): Promise<void> {
    this.stopped = false;
    this.cursor = (await this.platform.stores.kv.get<number>(CURSOR_KEY)) ?? 0;
    const offAppend = this.platform.stores.journal.onAppend(() => this.poke());
    const offCommit = this.platform.system.onCommit((c) => {
      if (this.ownKinds.has(c.kind) || c.events.length === 0) return;
      this.folder.remember(c.stream, c.events[c.events.length - 1].version, c.state);
    });
    this.unsubscribe = () => {
      offAppend();
      offCommit();
    };
    this.poke();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.unsubscribe?.();
    if (this.retryTimer) clearTimeout(this.retryTimer);
    await this.pass;
    if (this.platform.stores.mode === 'cluster' && (await this.platform.stores.kv.get(LEASE_KEY)) === this.node) await this.platform.stores.kv.delete(LEASE_KEY);
  }

  get idle(): boolean {
    return this.pass === undefined;
  }

  /** Resolves once the feed has been read to its end. */
  async caughtUp(): Promise<void> {
    while (this.pass) await this.pass;
  }

  poke(): void {
    if (this.stopped) return;
    if (this.pass) {
      this.again = true;
      return;
    }
    this.pass = this.platform.system.track(this.deferredDrain()).finally(() => {
      this.pass = undefined;
      if (this.again && !this.stopped) {
        this.again = false;
        this.poke();
      }
    });
  }

  private retryLater(): void {
    if (this.stopped || this.retryTimer) return;
    this.retryTimer = setTimeout(() => {
      this.retryTimer = undefined;
      this.poke();
    }, RETRY_MS);
    this.retryTimer.unref();
  }

  private async holdsLease(): Promise<boolean> {
    const { kv } = this.platform.stores;
    if (this.platform.stores.mode !== 'cluster') return true;
    const holder = await kv.get<string>(LEASE_KEY);
    if (holder === this.node) {
      await kv.set(LEASE_KEY, this.node, LEASE_MS);
      return true;
    }
    return holder === undefined && (await kv.setIfAbsent(LEASE_KEY, this.node, LEASE_MS));
  }

  /** A pass starts after the current I/O phase, so the events of every request in it are read together. */
  private async deferredDrain(): Promise<void> {
    await new Promise<void>((r) => setImmediate(r));
    return this.drain();
  }

  private async drain(): Promise<void> {
    try {
      if (!(await this.holdsLease())) return this.retryLater();
      for (;;) {
        const entries = await this.platform.stores.journal.readFeed(this.cursor, BATCH);
        if (entries.length === 0 || this.stopped) return;
        const byOrg = new Map<string, FeedEntry[]>();
        for (const e of entries) {
          const list = byOrg.get(e.event.org);
          if (list) list.push(e);
          else byOrg.set(e.event.org, [e]);
        }
        await Promise.all([...byOrg].map(([org, list]) => this.projectOrg(org, list)));
        this.cursor = entries[entries.length - 1].position;
        await this.platform.stores.kv.set(CURSOR_KEY, this.cursor);
      }
    } catch (e) {
      if (!(isApiError(e) && e.code === 'unavailable' && this.stopped)) console.error('[delivery] event feed pass failed; retrying', e);
      this.retryLater();
    }
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
    const publics: Derived<PublicEventRecord>[] = [];
    const published: Array<{ ev: StoredEvent; decl: CatalogueEntry; view: unknown; livemode: boolean; mocked: boolean; sequence: Promise<unknown>; position: number }> = [];

    for (const entry of entries) {
      const dot = entry.stream.indexOf('.');
      const kind = entry.stream.slice(0, dot);
      if (this.ownKinds.has(kind)) continue;
      const area = this.catalogue.areaOf(kind);
      const def = this.defs.get(kind);
      if (area === undefined || def === undefined) continue;
      const ev = entry.event;
      const decl = this.catalogue.match(kind, ev.type);
      const audited = isModule(area);
      if (!decl && !audited) continue;
      const recordId = entry.stream.slice(dot + 1);
      const view = (await this.folder.viewAt(def, entry.stream, recordId, ev)) as { livemode?: unknown; mocked?: unknown } | null;
      const livemode = view?.livemode === true;
      const mocked = view?.mocked === true;
      if (audited) {
        const facts: AuditFacts = {
          module: area, record_type: kind, record_id: recordId, action: ev.type, event_id: ev.id, record_version: ev.version,
          principal: ev.principal ?? null, request_id: ev.requestId ?? null, at: ev.at, livemode, mocked, position: entry.position,
        };
        audits.push({ id: auditEntryId(ev.id), org, record: facts, lists: auditLists(facts) });
      }
      if (decl) {
        const sequence = later(system.ask(EventStream, streamId(org, decl.stream), 'assign', { stream: decl.stream, event_id: ev.id, position: entry.position }, opts));
        published.push({ ev, decl, view, livemode, mocked, sequence, position: entry.position });
      }
    }

    if (published.length > 0) {
      const endpoints = await this.endpoints(org);
      const enqueued: Promise<unknown>[] = [];
      for (const p of published) {
        const { sequence } = (await p.sequence) as { sequence: number };
        const { ev, decl } = p;
        const env = envelope({
          id: ev.id, type: decl.type, schemaVersion: decl.schemaVersion, org, sequence, at: ev.at, requestId: ev.requestId,
          livemode: p.livemode, mocked: p.mocked, source: decl.source, data: p.view,
        });
        const record: PublicEventRecord = { stream: decl.stream, envelope: env };
        publics.push({ id: ev.id, org, record, lists: publicEventLists(record) });
        let cmd: EnqueueCommand | undefined; // serialised once, and only when some endpoint subscribes
        for (const ep of endpoints) {
          if (!subscribes(ep.event_types, decl.type)) continue;
          cmd ??= { event_id: ev.id, event_type: decl.type, occurred_at_ms: ev.at, livemode: p.livemode, body: JSON.stringify(env), position: p.position };
          enqueued.push(later(system.ask(WebhookEndpoint, ep.id, 'enqueue', cmd, opts).then((a) => {
            const assigned = a as Assignment | null;
            return assigned?.seed ? system.ask(WebhookDelivery, assigned.delivery_id, 'create', assigned.seed, quiet) : undefined;
          })));
        }
      }
      work.push(...enqueued);
    }
    work.push(this.audit.put(audits), this.events.put(publics));
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
