/**
 * Standing for other modules (spec 3 Engagement; 7 engagement_not_current; DESIGN "Gates between
 * areas"): whether an engagement between an organisation and a worker is executed and current,
 * answered from memory on every node, the way the identity gate is. The model is
 * (organisation, worker_ref) -> count of engagements in status current, kept by subject number
 * (kernel SubjectNumbers) in a column so a reader asking about many workers in a row (a work
 * order's ranking) reads it by number, plus each engagement's last applied version so an older
 * route never overwrites a newer one.
 * - Embedded: it follows the actor system's commits as they happen (onCommit), so a lapse is seen
 *   by the next read.
 * - Cluster: each node also reads the whole journal feed for itself (a per-node FeedReader) and
 *   applies the engagement events committed anywhere; every engagement event carries `status` and
 *   `worker_ref` (engagement.ts), so the feed alone rebuilds the model after a start.
 */
import type { Committed } from '../../runtime/index.ts';
import { CountColumn, NodeReadModel, subjectNumbers, type Platform, type SubjectNumbers } from '../../kernel/index.ts';
import type { FeedEntry } from '../../stores/index.ts';
import { Engagement, type EngagementState } from './engagement.ts';

export interface EngagementStanding {
  /** True when the worker (worker_ref, within org) has an engagement executed and current. */
  isCurrent(org: string, workerRef: string): boolean;
  /** isCurrent by the worker's subject number (kernel subjectNumbers of the same platform). */
  currentAt(subject: number): boolean;
}

interface Entry {
  org: string;
  worker: string;
  current: boolean;
  version: number;
}

const STREAM = `${Engagement.kind}.`;

export class StandingModel implements EngagementStanding {
  private readonly engagements = new Map<string, Entry>();
  private readonly follower: NodeReadModel;
  private readonly numbers: SubjectNumbers;
  /** Engagements in status current, by the worker's subject number. */
  private readonly counts = new CountColumn();

  constructor(platform: Platform) {
    this.numbers = subjectNumbers(platform);
    this.follower = new NodeReadModel(platform, 'engagements-standing', { onCommit: (c) => this.onCommit(c), onFeed: (e) => this.onFeed(e) });
  }

  isCurrent(org: string, workerRef: string): boolean {
    return this.counts.get(this.numbers.find(org, workerRef)) > 0;
  }

  currentAt(subject: number): boolean {
    return this.counts.get(subject) > 0;
  }

  /** Engagements known to the model (readiness). */
  get size(): number {
    return this.engagements.size;
  }

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
    if (c.kind !== Engagement.kind) return;
    const s = c.state as EngagementState;
    this.apply(c.id, c.org, s.worker_ref, s.status === 'current', c.events[c.events.length - 1]!.version);
  }

  private onFeed(entries: FeedEntry[]): void {
    for (const { stream, event } of entries) {
      if (!stream.startsWith(STREAM)) continue;
      const d = event.data as { status?: string; worker_ref?: string };
      if (typeof d.status !== 'string' || typeof d.worker_ref !== 'string') continue;
      this.apply(stream.slice(STREAM.length), event.org, d.worker_ref, d.status === 'current', event.version);
    }
  }

  private apply(id: string, org: string, worker: string, current: boolean, version: number): void {
    const e = this.engagements.get(id);
    if (e && e.version >= version) return;
    const was = e?.current ?? false;
    if (e) {
      e.current = current;
      e.version = version;
    } else this.engagements.set(id, { org, worker, current, version });
    if (was === current) return;
    const subject = this.numbers.of(org, worker);
    this.counts.set(subject, Math.max(0, this.counts.get(subject) + (current ? 1 : -1)));
  }
}
