/**
 * Reactions (DESIGN "Reactions"): a kind reacts to other kinds' committed events by sending itself
 * a command. The dispatcher is a handler of the global feed reader (feed-reader.ts: a cursor kept
 * in the key-value store, so a reaction survives a restart; in cluster mode one node at a time
 * reads, by its lease). Delivery is at least once, and each command carries the dedupe id
 * `rx:<kind>:<command>:<event id>`, so a repeat has no second effect. A target that fails
 * retryably is retried with backoff; a refusal (4xx) is final and logged; after the last attempt
 * the reaction is parked in the key-value store under `runtime:reactions:dead:`.
 */
import type { FeedEntry, Stores } from '../stores/index.ts';
import type { AnyActorDef, Reaction } from './actor.ts';
import type { Asker } from './ask.ts';
import type { FeedLag } from './feed-lag.ts';
import { FeedReader } from './feed-reader.ts';
import { isRefusal } from '../kernel/base/index.ts';
import type { Limits } from './limits.ts';

interface Route {
  def: AnyActorDef;
  reaction: Reaction;
}

interface Next {
  index: number;
  target: { id: string; payload: unknown };
}

export class ReactionDispatcher {
  private readonly byKind = new Map<string, Route[]>();
  private readonly any: Route[] = [];
  private readonly reader: FeedReader;

  constructor(
    private readonly system: Asker,
    private readonly stores: Stores,
    kinds: AnyActorDef[],
    private readonly limits: Limits,
    private readonly log: (msg: string, err?: unknown) => void,
    feeds?: FeedLag,
  ) {
    for (const def of kinds) {
      for (const reaction of def.reactions ?? []) {
        const route = { def, reaction };
        if (reaction.from === '*') this.any.push(route);
        else this.byKind.set(reaction.from, [...(this.byKind.get(reaction.from) ?? []), route]);
      }
    }
    this.reader = new FeedReader({ name: 'runtime:reactions', stores, batch: limits.reactionBatch, handle: (entries) => this.handle(entries), limits, log });
    feeds?.add('runtime:reactions', () => (this.reader.leading ? this.reader.position : undefined));
  }

  get enabled(): boolean {
    return this.any.length > 0 || this.byKind.size > 0;
  }

  get idle(): boolean {
    return this.reader.idle;
  }

  start(): void {
    if (this.enabled) this.reader.start();
  }

  stop(): Promise<void> {
    return this.reader.stop();
  }

  /** Resolves once the feed has been read to its end (as of the call). */
  caughtUp(): Promise<void> {
    return this.reader.caughtUp();
  }

  /** Entries finished; stop() waits for the entry in hand only, and the rest is read again next time. */
  private async handle(entries: FeedEntry[]): Promise<number> {
    let done = 0;
    while (done < entries.length && !this.stopped) {
      const entry = entries[done];
      const dot = entry.stream.indexOf('.');
      const kind = entry.stream.slice(0, dot);
      const routes = this.routesOf(kind);
      if (routes.length !== 0) {
        // Most entries give no route a target: they are passed over without a promise each.
        const source = { kind, id: entry.stream.slice(dot + 1) };
        const first = this.nextTarget(entry, source, routes, 0);
        if (first !== undefined && !(await this.dispatch(entry, source, routes, first))) break;
      }
      done++;
    }
    return done;
  }

  private get stopped(): boolean {
    return this.reader.stopping;
  }

  /** A kind's routes and then those of every kind ('*'), made once per kind rather than per entry. */
  private readonly routesByKind = new Map<string, readonly Route[]>();
  private routesOf(kind: string): readonly Route[] {
    let routes = this.routesByKind.get(kind);
    if (routes === undefined) this.routesByKind.set(kind, (routes = [...(this.byKind.get(kind) ?? []), ...this.any]));
    return routes;
  }

  /** The first route from `from` on that has a target for the entry, with that target. */
  private nextTarget(entry: FeedEntry, source: { kind: string; id: string }, routes: readonly Route[], from: number): Next | undefined {
    for (let i = from; i < routes.length; i++) {
      const { def, reaction } = routes[i];
      if (def.kind === source.kind && reaction.from === '*') continue; // a kind never reacts to itself through '*'
      if (reaction.events !== '*' && !reaction.events.includes(entry.event.type)) continue;
      let target: ReturnType<Reaction['target']>;
      try {
        target = reaction.target(entry.event, source);
      } catch (e) {
        this.log(`reaction ${def.kind}.${reaction.command} could not pick a target for ${entry.event.id}`, e);
        continue;
      }
      if (target) return { index: i, target };
    }
    return undefined;
  }

  /**
   * Delivers `next` and then each later route's target, in route order (a target is picked only
   * after the previous delivery). False when the dispatcher stopped before every reaction to the
   * entry was applied.
   */
  private async dispatch(entry: FeedEntry, source: { kind: string; id: string }, routes: readonly Route[], next: Next): Promise<boolean> {
    for (let n: Next | undefined = next; n !== undefined; n = this.nextTarget(entry, source, routes, n.index + 1)) {
      const { def, reaction } = routes[n.index];
      if (!(await this.deliver(def, reaction.command, n.target, entry))) return false;
    }
    return true;
  }

  /** True once applied, refused for good, or parked; false when stopped before any of those. */
  private async deliver(def: AnyActorDef, command: string, target: { id: string; payload: unknown }, entry: FeedEntry): Promise<boolean> {
    const dedupeId = `rx:${def.kind}:${command}:${entry.event.id}`;
    let delay = this.limits.reactionBackoffMs;
    for (let attempt = 1; ; attempt++) {
      try {
        await this.system.ask(def, target.id, command, target.payload, { org: entry.event.org, dedupeId, principal: 'system', lane: 'system', noReply: true });
        return true;
      } catch (e) {
        if (isRefusal(e)) {
          this.log(`reaction ${dedupeId} refused by ${def.kind} ${target.id}: ${e.code} ${e.message}`);
          return true;
        }
        if (this.stopped) return false;
        if (attempt >= this.limits.reactionMaxAttempts) {
          this.log(`reaction ${dedupeId} parked after ${attempt} attempts`, e);
          await this.stores.kv.set(`runtime:reactions:dead:${dedupeId}`, { kind: def.kind, id: target.id, command, payload: target.payload, org: entry.event.org, position: entry.position });
          return true;
        }
        await new Promise((r) => setTimeout(r, delay));
        delay = Math.min(delay * 2, this.limits.reactionBackoffMaxMs);
        if (this.stopped) return false; // not applied: the cursor stays before this entry, so it is read again
      }
    }
  }
}
