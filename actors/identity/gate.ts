/**
 * The live-passport gate (spec 2.4: the passport is "what every module checks is live before
 * acting"; spec 6: a revocation removes the worker from live cascades). A read model held in memory
 * on every node, on the kernel's GateReadModel (commits as they happen, the journal feed per node,
 * a version per passport): organisation -> subject_ref -> live passport. Asking it is two map
 * lookups, no I/O; asking by subject number (kernel SubjectNumbers) is one read of a byte column,
 * for a reader asking about many subjects in a row (a work order's ranking). Every passport event
 * carries subject_ref and `live` (passport.ts), so the feed alone rebuilds the model after a start.
 */
import type { Committed } from '../../runtime/index.ts';
import { ByteColumn, type GateFact, GateReadModel, type Platform } from '../../kernel/index.ts';
import { isLive, Passport, type PassportState } from './passport.ts';

export interface IdentityGate {
  /** True when the subject (subject_ref, within org) holds a live passport. */
  isLive(org: string, subjectRef: string): boolean;
  /** isLive by the subject's number (kernel subjectNumbers of the same platform). */
  liveAt(subject: number): boolean;
  /** The subject's passport id if live, else null. */
  livePassport(org: string, subjectRef: string): string | null;
}

/** One organisation's live passports by subject (the read path). */
type OrgModel = Map<string, string>;

export class PassportGate extends GateReadModel implements IdentityGate {
  private readonly orgs = new Map<string, OrgModel>();
  /** The organisation read last: a caller usually asks about one organisation many times in a row. */
  private lastOrg = '';
  private lastModel: OrgModel | undefined;
  /** 1 where the numbered subject holds a live passport: the live maps, by number. */
  private readonly liveColumn = new ByteColumn();

  constructor(platform: Platform) {
    super(platform, 'identity-gate', Passport);
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
    return m !== undefined && m.has(subjectRef);
  }

  liveAt(subject: number): boolean {
    return this.liveColumn.get(subject) === 1;
  }

  livePassport(org: string, subjectRef: string): string | null {
    return this.model(org)?.get(subjectRef) ?? null;
  }

  protected fromCommit(c: Committed): GateFact | undefined {
    const s = c.state as PassportState;
    return s.issued ? { org: c.org, subject: s.subject_ref, passes: isLive(s) } : undefined;
  }

  protected fromEvent(org: string, data: unknown): GateFact | undefined {
    const d = data as { subject_ref?: unknown; live?: unknown };
    return typeof d.subject_ref === 'string' && typeof d.live === 'boolean' ? { org, subject: d.subject_ref, passes: d.live } : undefined;
  }

  protected changed(passport: string, { org, subject, passes }: GateFact): void {
    let m = this.orgs.get(org);
    if (!m) this.orgs.set(org, (m = new Map()));
    if (passes) m.set(subject, passport);
    else m.delete(subject);
    this.liveColumn.set(this.numbers.of(org, subject), passes ? 1 : 0);
  }
}
