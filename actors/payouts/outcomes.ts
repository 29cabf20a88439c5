/**
 * Carrying final payouts to their instruction (spec 2.11, 4.10). Finals are reported in batches,
 * one batch in flight per instruction: what arrives meanwhile waits for it, so a busy node sends
 * fewer, larger batches. The instruction's tally reminder re-reads them, so a report lost with a
 * node is made again, and tells a payout still sending past its rail's answer time-out that its
 * answer is overdue (a send lost with its node: payout.ts header).
 */
import { logOf, type Platform } from '../../kernel/index.ts';
import { payoutIdOf } from './ids.ts';
import { type InstructionState, type Outcome, PayoutInstruction } from './instruction.ts';
import type { LineDispatch } from './line-dispatch.ts';
import { answerDueAt, FINAL, Payout, type PayoutState } from './payout.ts';

const SYSTEM = 'system';

/** A reported payout as its instruction counts it (a held one with its cause). */
export function outcomeOf(p: PayoutState): Outcome {
  const o: Outcome = { line: p.line, outcome: p.status as Outcome['outcome'], amount: p.amount };
  return p.status === 'held' && p.held_reason ? { ...o, held_reason: p.held_reason } : o;
}

interface Reporting {
  org: string;
  outcomes: Outcome[];
  inFlight: Promise<void> | undefined;
}

export class OutcomeReports {
  /** Outcomes to report per instruction, and the report in flight (at most one each). */
  private readonly reporting = new Map<string, Reporting>();
  private flushScheduled = false;
  /** Outcomes counted at this node's last tally of each instruction. */
  private readonly tallied = new Map<string, number>();

  constructor(
    private readonly platform: Platform,
    private readonly lines: LineDispatch,
    private readonly life: { readonly stopped: boolean },
  ) {}

  report(org: string, instructionId: string, o: Outcome): void {
    let r = this.reporting.get(instructionId);
    if (!r) this.reporting.set(instructionId, (r = { org, outcomes: [], inFlight: undefined }));
    r.outcomes.push(o);
    if (!r.inFlight) this.scheduleFlush();
  }

  private scheduleFlush(): void {
    if (this.flushScheduled) return;
    this.flushScheduled = true;
    setImmediate(() => void this.platform.system.track(this.flush()));
  }

  /** Reports what is waiting for every instruction with no report in flight, and waits for those in flight. */
  async flush(): Promise<void> {
    this.flushScheduled = false;
    const waits: Promise<void>[] = [];
    for (const [id, r] of this.reporting) {
      if (r.inFlight) waits.push(r.inFlight);
      else if (r.outcomes.length) waits.push((r.inFlight = this.reportNow(id, r)));
      else this.reporting.delete(id);
    }
    await Promise.all(waits);
  }

  private async reportNow(id: string, r: Reporting): Promise<void> {
    const outcomes = r.outcomes;
    r.outcomes = [];
    try {
      await this.platform.system.ask(PayoutInstruction, id, 'record_outcomes', { outcomes }, { org: r.org, principal: SYSTEM, lane: 'system', noReply: true });
    } catch (err) {
      if (!this.life.stopped) logOf('payouts').error('reporting outcomes failed; the tally reminder reports them again', err);
    } finally {
      r.inFlight = undefined;
      if (r.outcomes.length) this.scheduleFlush();
    }
  }

  /**
   * The instruction's reminder: resume a dispatch a node left unfinished, report finals again.
   * While outcomes keep arriving (the count moved since this node's last tally) nothing is re-read;
   * once they stall, only the lines still without an outcome are read (never every payout: a
   * re-read of all of them at each reminder would make a large instruction quadratic).
   */
  async tally(org: string, id: string): Promise<void> {
    const s = await this.platform.system.state(PayoutInstruction, id, org);
    if (s.status !== 'executing') {
      this.tallied.delete(id);
      return;
    }
    if (s.dispatched < s.line_count) {
      await this.lines.dispatch(org, id);
      return;
    }
    const done = s.settled_count + s.failed_count + s.held_count;
    const last = this.tallied.get(id);
    this.tallied.set(id, done);
    if (last !== undefined && last !== done) return;
    await this.reread(org, id, s);
  }

  /** Reads the lines still without an outcome: finals are reported again, overdue answers are marked. */
  private async reread(org: string, id: string, s: InstructionState): Promise<void> {
    const open: number[] = [];
    for (let i = s.outcomes.indexOf('.'); i !== -1; i = s.outcomes.indexOf('.', i + 1)) open.push(i + 1);
    const outcomes: Outcome[] = [];
    const overdue: Array<{ id: string; attempt_id: string }> = [];
    const now = this.platform.clock.now();
    for (let k = 0; k < open.length; k += 500) {
      const states = await Promise.all(open.slice(k, k + 500).map((line) => this.platform.system.state(Payout, payoutIdOf(id, line), org).catch(() => undefined)));
      for (const p of states) {
        if (!p) continue;
        if (FINAL.has(p.status)) outcomes.push(outcomeOf(p));
        else {
          const due = answerDueAt(p);
          if (due !== null && due <= now) overdue.push({ id: p.id, attempt_id: p.attempts[p.attempts.length - 1].id });
        }
      }
    }
    const opts = { org, principal: SYSTEM, lane: 'system' as const, noReply: true };
    // The answer time-out of each payout still sending past it (a send lost with its node): unknown, then asked.
    await Promise.all(overdue.map((o) => this.platform.system.ask(Payout, o.id, 'answer_overdue', { attempt_id: o.attempt_id }, { ...opts, dedupeId: `overdue:${o.attempt_id}` })));
    if (outcomes.length) await this.platform.system.ask(PayoutInstruction, id, 'record_outcomes', { outcomes }, opts);
  }
}
