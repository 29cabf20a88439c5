/**
 * The intake service: the node-local process that runs an instruction set's steps needing I/O
 * (validation, then an accepted set's obligations; instruction-sets.ts) as this node commits the
 * set's events (spec 3 "Remittance instruction set"). The set's own reminder (instruction-set.ts,
 * RETRY_MS) asks again until each step is done, so a node that dies in between loses nothing.
 * A validation asked for twice on this node runs once: the second joins the first.
 */
import { ApiError, logOf, serviceKey, type Platform } from '../../../kernel/index.ts';
import type { Committed } from '../../../runtime/index.ts';
import { IngestedInstructionSet, type SetState } from './instruction-set.ts';

/** The steps the service runs (instruction-sets.ts INTAKE_STEPS); each is idempotent. */
export interface IntakeSteps {
  validate(platform: Platform, org: string, id: string): Promise<void>;
  recordObligations(platform: Platform, org: string, id: string): Promise<void>;
}

export const INTAKE = serviceKey<IntakeService>('remittance_intake');

export class IntakeService {
  private unsubscribe: (() => void) | undefined;
  private stopped = false;
  /** Validations running on this node, by set id: a second trigger joins the first. */
  private readonly validating = new Map<string, Promise<void>>();

  constructor(private readonly platform: Platform, private readonly steps: IntakeSteps) {}

  start(): void {
    this.unsubscribe = this.platform.system.onCommit((c) => this.onCommit(c));
  }

  stop(): void {
    this.stopped = true;
    this.unsubscribe?.();
  }

  /** Validates a received set, joining a validation of it already running here. */
  validate(org: string, id: string): Promise<void> {
    let p = this.validating.get(id);
    if (!p) {
      p = this.steps.validate(this.platform, org, id).finally(() => this.validating.delete(id));
      this.validating.set(id, p);
    }
    return p;
  }

  private onCommit(c: Committed): void {
    if (c.kind !== IngestedInstructionSet.kind) return;
    const s = c.state as SetState;
    for (const e of c.events) {
      if ((e.type === 'set.received' || e.type === 'set.retry_due') && (s.status === 'received' || s.status === 'validating')) this.later(this.validate(c.org, c.id), 'validation');
      else if ((e.type === 'set.accepted' || e.type === 'set.retry_due') && s.status === 'accepted' && !s.obligations_recorded) this.later(this.steps.recordObligations(this.platform, c.org, c.id), 'obligations');
    }
  }

  private later(p: Promise<unknown>, what: string): void {
    void this.platform.system.track(p).catch((err) => {
      if (this.stopped || this.platform.system.stopping) return;
      if (!(err instanceof ApiError) || err.status >= 500) logOf('remittance').error(`${what} failed; the set's reminder tries again`, err);
    });
  }
}

export const intakeService = (platform: Platform): IntakeService => platform.services.require(INTAKE);
