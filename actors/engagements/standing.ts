/**
 * Standing for other modules (spec 3 Engagement; 7 engagement_not_current; DESIGN "Gates between
 * areas"): whether an engagement between an organisation and a worker is executed and current,
 * answered from memory on every node, on the kernel's GateReadModel as the identity gate is
 * (commits as they happen, the journal feed per node, a version per engagement). The model is
 * (organisation, worker_ref) -> count of engagements in status current, kept by subject number
 * (kernel SubjectNumbers) in a column so a reader asking about many workers in a row (a work
 * order's ranking) reads it by number. Every engagement event carries `status` and `worker_ref`
 * (engagement.ts), so the feed alone rebuilds the model after a start.
 */
import type { Committed } from '../../runtime/index.ts';
import { CountColumn, type GateFact, GateReadModel, type Platform } from '../../kernel/index.ts';
import { Engagement, type EngagementState } from './engagement.ts';

export interface EngagementStanding {
  /** True when the worker (worker_ref, within org) has an engagement executed and current. */
  isCurrent(org: string, workerRef: string): boolean;
  /** isCurrent by the worker's subject number (kernel subjectNumbers of the same platform). */
  currentAt(subject: number): boolean;
}

export class StandingModel extends GateReadModel implements EngagementStanding {
  /** Engagements in status current, by the worker's subject number. */
  private readonly counts = new CountColumn();

  constructor(platform: Platform) {
    super(platform, 'engagements-standing', Engagement);
  }

  isCurrent(org: string, workerRef: string): boolean {
    return this.counts.get(this.numbers.find(org, workerRef)) > 0;
  }

  currentAt(subject: number): boolean {
    return this.counts.get(subject) > 0;
  }

  protected fromCommit(c: Committed): GateFact {
    const s = c.state as EngagementState;
    return { org: c.org, subject: s.worker_ref, passes: s.status === 'current' };
  }

  protected fromEvent(org: string, data: unknown): GateFact | undefined {
    const d = data as { status?: unknown; worker_ref?: unknown };
    return typeof d.status === 'string' && typeof d.worker_ref === 'string' ? { org, subject: d.worker_ref, passes: d.status === 'current' } : undefined;
  }

  protected changed(_id: string, { org, subject, passes }: GateFact): void {
    const n = this.numbers.of(org, subject);
    this.counts.set(n, Math.max(0, this.counts.get(n) + (passes ? 1 : -1)));
  }
}
