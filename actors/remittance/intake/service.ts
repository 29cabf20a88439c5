/**
 * The intake service: the steps of an instruction set that need I/O (spec 3 "Remittance
 * instruction set"). Validation gathers the facts of the run the set names, then checks every
 * line (validate.ts) between begin_validation and complete_validation; an accepted set's lines
 * become obligations (the only thing a set commits, and only once accepted).
 *
 * Work starts on the node that committed the set's event (onCommit); the set's own reminder
 * (instruction-set.ts, RETRY_MS) asks again until it is done, so a node that dies in between
 * loses nothing, and every command it sends is idempotent.
 */
import { ApiError, serviceKey, type Caller, type Platform } from '../../../kernel/index.ts';
import type { Committed } from '../../../runtime/index.ts';
import { Run, type RunState } from '../../payroll/index.ts';
import { addObligationLine, type Levy } from '../authorities/index.ts';
import { IngestedInstructionSet, setView, type IngestedInstructionSetView, type SetState } from './instruction-set.ts';
import { validateLines, type RunFacts } from './validate.ts';

export const INTAKE = serviceKey<IntakeService>('remittance_intake');
const SYSTEM = 'system';

export class IntakeService {
  private unsubscribe: (() => void) | undefined;
  private stopped = false;
  /** Validations running on this node, by set id: a second trigger joins the first. */
  private readonly validating = new Map<string, Promise<void>>();

  constructor(private readonly platform: Platform) {}

  start(): void {
    this.unsubscribe = this.platform.system.onCommit((c) => this.onCommit(c));
  }

  stop(): void {
    this.stopped = true;
    this.unsubscribe?.();
  }

  /** Validates a received set (idempotent; joins a validation already running here) and returns its view. */
  async validate(org: string, id: string): Promise<IngestedInstructionSetView> {
    let p = this.validating.get(id);
    if (!p) {
      p = this.runValidation(org, id).finally(() => this.validating.delete(id));
      this.validating.set(id, p);
    }
    await p;
    return setView(await this.platform.system.state<SetState>(IngestedInstructionSet, id, org));
  }

  private async runValidation(org: string, id: string): Promise<void> {
    const system = this.platform.system;
    const opts = { org, principal: SYSTEM, lane: 'system' as const, noReply: true };
    let s = await system.state<SetState>(IngestedInstructionSet, id, org);
    if (s.status === 'received') {
      await system.ask(IngestedInstructionSet, id, 'begin_validation', {}, opts);
      s = await system.state<SetState>(IngestedInstructionSet, id, org);
    }
    if (s.status !== 'validating') return;
    const run = s.run_id ? await this.runFacts(org, s.run_id) : null;
    const payDate = s.pay_date ?? (run?.found ? run.pay_date : null);
    // A set with no pay date has none to count due dates from: the period's last day stands in.
    const validation = validateLines(s.lines, s.period, payDate ?? lastDayOf(s.period), run);
    const livemode = s.source === 'run' && run?.found ? run.livemode : undefined;
    await system.ask(IngestedInstructionSet, id, 'complete_validation', { pay_date: payDate, livemode, validation }, opts);
  }

  private async runFacts(org: string, runId: string): Promise<RunFacts> {
    try {
      const r = await this.platform.system.state<RunState>(Run, runId, org);
      return { found: true, run_id: runId, status: r.status, period: r.period, pay_date: r.pay_date, livemode: r.livemode, total_deductions: r.totals.total_deductions, employer_contributions: r.totals.employer_contributions, currency: 'NGN' };
    } catch (err) {
      if (err instanceof ApiError && (err.code === 'not_found' || err.code === 'organisation_mismatch')) return { found: false, run_id: runId };
      throw err;
    }
  }

  /** Records every line of an accepted set with something to remit on its obligation, then marks the set. */
  async recordObligations(org: string, id: string): Promise<void> {
    const system = this.platform.system;
    const s = await system.state<SetState>(IngestedInstructionSet, id, org);
    if (s.status !== 'accepted' || s.obligations_recorded || !s.resolved) return;
    const caller: Caller = { org, livemode: s.livemode, principal: SYSTEM };
    const payDate = s.pay_date ?? lastDayOf(s.period);
    const lines: Array<{ authority_id: string | null; levy: Levy; amount: number; ref: string }> = [
      ...s.lines.paye.map((p, i) => ({ authority_id: s.resolved!.paye[i].authority_id, levy: 'paye' as const, amount: p.amount.amount, ref: p.reconciliation_reference })),
      ...s.lines.pension.map((p, i) => ({ authority_id: s.resolved!.pension[i].authority_id, levy: 'pension' as const, amount: p.amount.amount, ref: p.reconciliation_reference })),
      ...s.lines.levies.map((l, i) => ({ authority_id: s.resolved!.levies[i].authority_id, levy: l.code, amount: l.amount.amount, ref: l.reconciliation_reference })),
    ];
    // A line whose authority is unknown was overridden (it is remitted outside the platform); a zero line owes nothing.
    const owed = lines.filter((l) => l.authority_id !== null && l.amount > 0);
    await Promise.all(owed.map((l) => addObligationLine(this.platform, caller, {
      authority_id: l.authority_id!, levy: l.levy, period: s.period, livemode: s.livemode, reference: `${s.id}:${l.ref}`, instruction_set_id: s.id, amount: l.amount, pay_date: payDate,
    }, `set:${s.id}:${l.ref}`)));
    await system.ask(IngestedInstructionSet, id, 'obligations_recorded', {}, { org, principal: SYSTEM, lane: 'system', noReply: true });
  }

  private onCommit(c: Committed): void {
    if (c.kind !== IngestedInstructionSet.kind) return;
    const s = c.state as SetState;
    for (const e of c.events) {
      if ((e.type === 'set.received' || e.type === 'set.retry_due') && (s.status === 'received' || s.status === 'validating')) this.later(this.validate(c.org, c.id), 'validation');
      else if ((e.type === 'set.accepted' || e.type === 'set.retry_due') && s.status === 'accepted' && !s.obligations_recorded) this.later(this.recordObligations(c.org, c.id), 'obligations');
    }
  }

  private later(p: Promise<unknown>, what: string): void {
    void this.platform.system.track(p).catch((err) => {
      if (this.stopped || this.platform.system.stopping) return;
      if (!(err instanceof ApiError) || err.status >= 500) console.error(`[remittance] ${what} failed; the set's reminder tries again`, err);
    });
  }
}

function lastDayOf(period: string): string {
  const [y, m] = period.split('-').map(Number);
  return new Date(Date.UTC(y, m, 0)).toISOString().slice(0, 10);
}

export const intakeService = (platform: Platform): IntakeService => platform.services.require(INTAKE);
