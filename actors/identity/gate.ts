/**
 * The live-passport gate (spec 2.4: the passport is "what every module checks is live before
 * acting"; spec 6: a revocation removes the worker from live cascades). A read model held in memory
 * on every node: organisation -> subject_ref -> { passport, live, version }. Asking it is two map
 * lookups, no I/O; asking by subject number (kernel SubjectNumbers) is one read of a byte column,
 * for a reader asking about many subjects in a row (a work order's ranking).
 * - Embedded: it follows the actor system's commits as they happen (onCommit), so a passport that
 *   stops being live is not live to the next read.
 * - Cluster: each node also reads the whole journal feed for itself (a per-node FeedReader), taking
 *   the passport events committed anywhere; every passport event carries subject_ref and `live`,
 *   so the feed alone rebuilds the model after a start. A version per passport keeps the older of
 *   two routes from overwriting the newer.
 */
import type { Committed } from '../../runtime/index.ts';
import { ByteColumn, NodeReadModel, subjectNumbers, type Platform, type SubjectNumbers } from '../../kernel/index.ts';
import type { FeedEntry } from '../../stores/index.ts';
import { isLive, Passport, type PassportState } from './passport.ts';

export interface IdentityGate {
  /** True when the subject (subject_ref, within org) holds a live passport. */
  isLive(org: string, subjectRef: string): boolean;
  /** isLive by the subject's number (kernel subjectNumbers of the same platform). */
  liveAt(subject: number): boolean;
  /** The subject's passport id if live, else null. */
  livePassport(org: string, subjectRef: string): string | null;
}

interface Entry {
  passport: string;
  live: boolean;
  version: number;
}

/** One organisation: every known passport by subject, and the live ones alone (the read path). */
interface OrgModel {
  entries: Map<string, Entry>;
  live: Map<string, string>;
}

const STREAM = `${Passport.kind}.`;

export class PassportGate implements IdentityGate {
  private readonly orgs = new Map<string, OrgModel>();
  /** The organisation read last: a caller usually asks about one organisation many times in a row. */
  private lastOrg = '';
  private lastModel: OrgModel | undefined;
  private readonly follower: NodeReadModel;
  private readonly numbers: SubjectNumbers;
  /** 1 where the numbered subject holds a live passport: the live maps, by number. */
  private readonly liveColumn = new ByteColumn();

  constructor(platform: Platform) {
    this.numbers = subjectNumbers(platform);
    this.follower = new NodeReadModel(platform, 'identity-gate', { onCommit: (c) => this.onCommit(c), onFeed: (e) => this.onFeed(e) });
  }

  private model(org: string): OrgModel | undefined {
    if (org === this.lastOrg) return this.lastModel;
    const m = this.orgs.get(org);
    if (m) {
      this.lastOrg = org;
      this.lastModel = m;
    }
    return m;
  }

  isLive(org: string, subjectRef: string): boolean {
    const m = this.model(org);
    return m !== undefined && m.live.has(subjectRef);
  }

  liveAt(subject: number): boolean {
    return this.liveColumn.get(subject) === 1;
  }

  livePassport(org: string, subjectRef: string): string | null {
    return this.model(org)?.live.get(subjectRef) ?? null;
  }

  /** Passports known, live or not (readiness). */
  get size(): number {
    let n = 0;
    for (const m of this.orgs.values()) n += m.entries.size;
    return n;
  }

  /** Resolves once the feed read so far is applied (cluster); at once embedded. */
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
    if (c.kind !== Passport.kind) return;
    const s = c.state as PassportState;
    if (!s.issued) return;
    this.apply(c.org, s.subject_ref, s.id, isLive(s), c.events[c.events.length - 1]!.version);
  }

  private onFeed(entries: FeedEntry[]): void {
    for (const { stream, event } of entries) {
      if (!stream.startsWith(STREAM)) continue;
      const d = event.data as { subject_ref?: string; passport_id?: string; live?: boolean };
      if (typeof d.subject_ref !== 'string' || typeof d.live !== 'boolean') continue;
      this.apply(event.org, d.subject_ref, stream.slice(STREAM.length), d.live, event.version);
    }
  }

  private apply(org: string, subject: string, passport: string, live: boolean, version: number): void {
    let m = this.orgs.get(org);
    if (!m) this.orgs.set(org, (m = { entries: new Map(), live: new Map() }));
    const e = m.entries.get(subject);
    if (e && e.passport === passport && e.version >= version) return;
    if (e && e.passport === passport) {
      e.live = live;
      e.version = version;
    } else m.entries.set(subject, { passport, live, version });
    if (live) m.live.set(subject, passport);
    else m.live.delete(subject);
    this.liveColumn.set(this.numbers.of(org, subject), live ? 1 : 0);
  }
}
