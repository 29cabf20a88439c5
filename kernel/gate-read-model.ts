/**
 * The plumbing of a gate between areas (DESIGN "Gates between areas"; docs/architecture.md "Read
 * models every node keeps"): a read model held in memory on every node that answers "does this
 * subject pass?" without I/O, from one kind of actor whose every record names a subject and holds
 * one yes-or-no fact about it (a passport live, an engagement current).
 * - It follows the actor system's commits as they happen (NodeReadModel's onCommit), so a record
 *   that stops passing does not pass the next read on this node.
 * - Over durable stores it also reads the whole journal feed for itself (a per-node reader), taking
 *   the records committed anywhere; each event of such an actor carries the subject and the fact,
 *   so the feed alone rebuilds the model after a start.
 * - A version per record keeps the older of the two routes from overwriting the newer.
 * The base keeps the records and their versions; an area's gate says how a commit and an event
 * give the fact, and what it keeps per subject (by subject number, kernel SubjectNumbers) when a
 * record's fact changes.
 */
import { type AnyActorDef, type Committed, streamKey } from '../runtime/index.ts';
import type { FeedEntry } from '../stores/index.ts';
import type { Platform } from './area.ts';
import { NodeReadModel } from './journal-feeds.ts';
import { type SubjectNumbers, subjectNumbers } from './subject-numbers.ts';

/** One record's fact about its subject. */
export interface GateFact {
  org: string;
  subject: string;
  /** Whether the record lets its subject through (live, current). */
  passes: boolean;
}

interface Applied {
  passes: boolean;
  version: number;
  /** Whose record it is (kept so the model can be saved as facts: read-model-checkpoints.ts). */
  org: string;
  subject: string;
}

export abstract class GateReadModel {
  /** Every record known, with its fact and the version it was last applied at. */
  private readonly records = new Map<string, Applied>();
  private readonly follower: NodeReadModel;
  private readonly streamPrefix: string;
  protected readonly numbers: SubjectNumbers;

  constructor(platform: Platform, name: string, private readonly def: AnyActorDef) {
    this.numbers = subjectNumbers(platform);
    this.streamPrefix = streamKey(def, '');
    this.follower = new NodeReadModel(platform, name, {
      onCommit: (c) => this.onCommit(c),
      onFeed: (e) => this.onFeed(e),
      kept: { save: () => this.save(), load: (d) => this.load(d) },
      wants: (stream) => stream.startsWith(this.streamPrefix),
    });
  }

  /** The fact a commit on this node gives, from the state after it; undefined: nothing to apply. */
  protected abstract fromCommit(c: Committed): GateFact | undefined;
  /** The fact an event of the journal feed gives, from its data; undefined: nothing to apply. */
  protected abstract fromEvent(org: string, data: unknown): GateFact | undefined;
  /** A record's fact changed (a record first seen counts as having not passed before). */
  protected abstract changed(id: string, fact: GateFact): void;

  /** Records known, passing or not (readiness). */
  get size(): number {
    return this.records.size;
  }

  /** Resolves once the feed read so far is applied (durable stores); at once otherwise. */
  caughtUp(): Promise<void> {
    return this.follower.caughtUp();
  }

  start(): void {
    this.follower.start();
  }

  stop(): Promise<void> {
    return this.follower.stop();
  }

  private onCommit(c: Committed): void {
    if (c.kind !== this.def.kind) return;
    const fact = this.fromCommit(c);
    if (fact) this.apply(c.id, fact, c.events[c.events.length - 1]!.version);
  }

  private onFeed(entries: FeedEntry[]): void {
    for (const { stream, event } of entries) {
      if (!stream.startsWith(this.streamPrefix)) continue;
      const fact = this.fromEvent(event.org, event.data);
      if (fact) this.apply(stream.slice(this.streamPrefix.length), fact, event.version);
    }
  }

  private apply(id: string, fact: GateFact, version: number): void {
    const r = this.records.get(id);
    if (r && r.version >= version) return;
    const was = r?.passes ?? false;
    if (r) {
      r.passes = fact.passes;
      r.version = version;
    } else this.records.set(id, { passes: fact.passes, version, org: fact.org, subject: fact.subject });
    if (was !== fact.passes) this.changed(id, fact);
  }

  /** Each record's fact and version, flat: id, org, subject, passes, version. */
  private save(): unknown[] {
    const out: unknown[] = [];
    for (const [id, r] of this.records) out.push(id, r.org, r.subject, r.passes, r.version);
    return out;
  }

  /** Through apply(), as the feed's entries came: the area's gate keeps what it keeps per subject again. */
  private load(data: unknown): void {
    const a = data as unknown[];
    for (let i = 0; i < a.length; i += 5) this.apply(a[i] as string, { org: a[i + 1] as string, subject: a[i + 2] as string, passes: a[i + 3] as boolean }, a[i + 4] as number);
  }
}
