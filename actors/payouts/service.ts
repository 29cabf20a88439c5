/**
 * The payouts module's node-local process (docs/architecture.md "Adding an area": service.ts; spec
 * 2.11, 4.10, 8): its rails (providers/), the parts that hold this node's state for the jobs (rail
 * calls and their health, recently parsed documents, the dispatch window, outcome batches), and
 * the following of commits that start work needing I/O around the actors (their decide stays pure):
 * - payout.attempt_started -> send, payout.status_query_due -> status query (rail-calls.ts);
 * - final payouts -> reported to their instruction in batches (outcomes.ts);
 * - instruction.executing -> one payout per line (line-dispatch.ts); instruction.tally_due -> tally;
 * - the run link's due steps, funds arriving and held payouts' causes clearing: handed to the
 *   operations the face gives it (run-links.ts, funding.ts, holds.ts), so operations reach the
 *   service and the service never reaches them.
 * Provided under PAYOUTS by the face's start; payoutsService is its accessor.
 */
import { ApiError, keyValue, lists, logOf, type Platform, serviceKey } from '../../kernel/index.ts';
import type { Committed } from '../../runtime/index.ts';
import { FundingAccount } from './funding-account.ts';
import { type InstructionState, PayoutInstruction } from './instruction.ts';
import { LineDispatch } from './line-dispatch.ts';
import { OutcomeReports, outcomeOf } from './outcomes.ts';
import { PayeeHold } from './payee-hold.ts';
import { Payout, type PayoutState } from './payout.ts';
import { ACTIVE_POLICY, timing, type Timing } from './policy.ts';
import { type Rail, sandboxRails } from './providers/index.ts';
import { type AttemptStarted, RailCalls } from './rail-calls.ts';
import { RunLink } from './run-link.ts';
import { InstructionDocuments } from './submission.ts';

export const PAYOUTS = serviceKey<PayoutsService>('payouts');

/** The operations the process hands due work to (given by the face, as identity's collector is). */
export interface DueWork {
  /** A run link has a step due (submit and pay the run's instruction, or carry its outcome back). */
  linkRun(org: string, linkId: string): Promise<void>;
  /** A deposit arrived: instructions waiting for funds are executed when they now fit. */
  fundsArrived(org: string, livemode: boolean): Promise<void>;
  /** A payee's held payouts are due for release (their cause cleared). */
  releaseHeld(org: string, holdId: string): Promise<void>;
}

export class PayoutsService {
  readonly rails: Rail[];
  readonly timing: Timing;
  readonly calls: RailCalls;
  readonly documents: InstructionDocuments;
  readonly lines: LineDispatch;
  readonly outcomes: OutcomeReports;
  /** Rail answers by outcome and status queries asked on this node, for the bench. */
  readonly answers: RailCalls['answers'];
  /** Failover latencies (ms, platform clock) from a refusal to the next rail's accepted answer, for the bench. */
  readonly failovers: number[];
  /** Read by the jobs' loops and error paths: work cut short by stop() is not an error. */
  private readonly life = { stopped: false };
  private unsubscribe: (() => void) | undefined;

  constructor(private readonly platform: Platform, private readonly due: DueWork, rails?: Rail[]) {
    const num = (k: string, d: number) => {
      const v = Number(platform.config[k] ?? d);
      return Number.isFinite(v) && v >= 0 ? v : d;
    };
    const scale = num('PAYOUTS_TIME_SCALE', 1) || 1;
    this.timing = timing(scale);
    this.rails = rails ?? sandboxRails(ACTIVE_POLICY.pack.rails, keyValue(platform), lists(platform), {
      resolveAfterMs: Math.max(1, Math.round(num('PAYOUTS_SANDBOX_RESOLVE_MS', 120_000) * scale)),
      latencyMs: num('PAYOUTS_SANDBOX_LATENCY_MS', 0),
    });
    this.calls = new RailCalls(platform, this.rails);
    this.answers = this.calls.answers;
    this.failovers = this.calls.failovers;
    this.documents = new InstructionDocuments(platform);
    this.lines = new LineDispatch(platform, this.timing, this.documents, this.calls, this.life);
    this.outcomes = new OutcomeReports(platform, this.lines, this.life);
  }

  start(): void {
    this.life.stopped = false;
    this.unsubscribe = this.platform.system.onCommit((c) => this.onCommit(c));
  }

  async stop(): Promise<void> {
    this.life.stopped = true;
    this.unsubscribe?.();
  }

  private onCommit(c: Committed): void {
    switch (c.kind) {
      case Payout.kind:
        return this.onPayout(c);
      case PayoutInstruction.kind:
        for (const e of c.events) {
          if (e.type === 'instruction.executing') this.later(this.lines.dispatch(c.org, c.id, c.state as InstructionState), 'dispatch');
          else if (e.type === 'instruction.tally_due') this.later(this.outcomes.tally(c.org, c.id), 'tally');
        }
        return;
      case RunLink.kind:
        if (c.events.some((e) => e.type === 'link.requested' || e.type === 'link.retry_due' || e.type === 'link.outcome_due')) this.later(this.due.linkRun(c.org, c.id), 'run link');
        return;
      case FundingAccount.kind:
        if (c.events.some((e) => e.type === 'funding.deposited')) this.later(this.due.fundsArrived(c.org, (c.state as { livemode: boolean }).livemode), 'funds arrived');
        return;
      case PayeeHold.kind:
        if (c.events.some((e) => e.type === 'hold.added' || e.type === 'hold.release_due' || e.type === 'hold.retry_due')) this.later(this.due.releaseHeld(c.org, c.id), 'release held payouts');
        return;
    }
  }

  private onPayout(c: Committed): void {
    for (const e of c.events) {
      const d = e.data as Record<string, unknown>;
      if (e.type === 'payout.attempt_started') this.later(this.calls.send(c.org, c.id, d as unknown as AttemptStarted), 'sending');
      else if (e.type === 'payout.status_query_due') this.later(this.calls.query(c.org, c.id, d.attempt_id as string, d.rail_id as string), 'status query');
      else if (e.type === 'payout.settled' || e.type === 'payout.failed' || e.type === 'payout.held' || e.type === 'payout.hold_changed') {
        const s = c.state as PayoutState;
        this.outcomes.report(c.org, s.instruction_id, outcomeOf(s));
      } else if (e.type === 'payout.released') {
        const s = c.state as PayoutState;
        this.outcomes.report(c.org, s.instruction_id, { line: s.line, outcome: 'released', amount: s.amount });
      }
    }
  }

  private later(p: Promise<unknown>, what: string): void {
    void this.platform.system.track(p).catch((err) => {
      if (this.life.stopped) return;
      if (!(err instanceof ApiError) || err.status >= 500) logOf('payouts').error(`${what} failed; its reminder tries again`, err);
    });
  }
}

export const payoutsService = (platform: Platform): PayoutsService => platform.services.require(PAYOUTS);
