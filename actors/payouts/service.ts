/**
 * The payouts module's long-lived parts on one node (spec 2.11, 4.10, 8): its rails (providers/),
 * and the process that listens to commits and starts the work that needs I/O around the actors (the
 * actors' decide functions stay pure; see actors/identity/service.ts for the same pattern). Each
 * job lives in its own file; this one holds their state for the node and routes commits to them:
 * - intake: judging a signed instruction and submitting the verdict (intake.ts, submission.ts);
 * - funding and execution (funding.ts); route plans (route-plans.ts);
 * - dispatch: after instruction.executing, one payout actor per line (line-dispatch.ts);
 * - the rails: payout.attempt_started -> send, payout.status_query_due -> status query, and name
 *   enquiry for dispatch (rail-calls.ts); operator resolution (resolution.ts);
 * - outcomes: finals reported to their instruction in batches, and the tally reminder (outcomes.ts);
 * - the payroll run link: submitting a run's instruction and carrying the outcome back (run-links.ts);
 * - settlement with reconciliation (settlements.ts, reconcile.ts).
 * Registered under PAYOUTS.
 */
import { ApiError, type Caller, keyValue, lists, logOf, type Platform, serviceKey } from '../../kernel/index.ts';
import type { Committed } from '../../runtime/index.ts';
import type { SignedPayoutInstruction } from '../payroll/index.ts';
import * as funding from './funding.ts';
import type { InstructionDocument } from './intake.ts';
import { type fundingCheckView, type InstructionState, type Outcome, PayoutInstruction } from './instruction.ts';
import { LineDispatch } from './line-dispatch.ts';
import { OutcomeReports } from './outcomes.ts';
import { Payout, type PayoutState } from './payout.ts';
import { ACTIVE_POLICY, timing, type Timing } from './policy.ts';
import { type Rail, sandboxRails } from './providers/index.ts';
import { type AttemptStarted, RailCalls } from './rail-calls.ts';
import * as resolution from './resolution.ts';
import type { CreatePlan } from './route-plan.ts';
import { makePlan, plan, type PlanBody } from './route-plans.ts';
import { RunLink } from './run-link.ts';
import { linkRun } from './run-links.ts';
import { settle } from './settlements.ts';
import { InstructionDocuments, submit } from './submission.ts';

export type { PlanBody } from './route-plans.ts';

export const PAYOUTS = serviceKey<PayoutsService>('payouts');

export class PayoutsService {
  readonly rails: Rail[];
  readonly timing: Timing;
  /** Rail answers by outcome and status queries asked on this node, for the bench. */
  readonly answers: RailCalls['answers'];
  /** Failover latencies (ms, platform clock) from a refusal to the next rail's accepted answer, for the bench. */
  readonly failovers: number[];
  private readonly calls: RailCalls;
  private readonly documents: InstructionDocuments;
  private readonly lines: LineDispatch;
  private readonly outcomes: OutcomeReports;
  /** Read by the jobs' loops and error paths: work cut short by stop() is not an error. */
  private readonly life = { stopped: false };
  private unsubscribe: (() => void) | undefined;

  constructor(private readonly platform: Platform, rails?: Rail[]) {
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

  rail(id: string): Rail | undefined {
    return this.calls.rail(id);
  }

  /** Share of refusals and time-outs among a rail's recent attempts (spec 8: plans weigh rail health). */
  failureRatio(railId: string): { ratio: number; seen: number } {
    return this.calls.failureRatio(railId);
  }

  submit(caller: Caller, env: SignedPayoutInstruction, id: string, dedupeId: string | undefined): Promise<unknown> {
    return submit(this.platform, this.documents, this.timing.tallyInterval, caller, env, id, dedupeId);
  }

  document(org: string, id: string): Promise<InstructionDocument> {
    return this.documents.get(org, id);
  }

  fundingCheck(caller: Caller, id: string): Promise<ReturnType<typeof fundingCheckView>> {
    return funding.fundingCheck(this.platform, caller, id);
  }

  available(org: string, livemode: boolean): Promise<number> {
    return funding.available(this.platform, org, livemode);
  }

  makePlan(caller: Caller, instructionId: string, body: PlanBody, planId: string): Promise<unknown> {
    return makePlan(this.platform, this.documents, this.calls, caller, instructionId, body, planId);
  }

  /** The order of rails and why (spec 2.11 RoutePlan.reasoning): limits, bank reach, recent health. */
  plan(s: InstructionState, doc: InstructionDocument, body: PlanBody): CreatePlan {
    return plan(this.calls, s, doc, body);
  }

  execute(caller: Caller, id: string): Promise<unknown> {
    return funding.execute(this.platform, caller, id);
  }

  dispatch(org: string, id: string, known?: InstructionState): Promise<void> {
    return this.lines.dispatch(org, id, known);
  }

  /** Asks the rail's status query for the payout's current attempt and records the answer. */
  query(org: string, payoutId: string, attemptId: string, railId: string): Promise<void> {
    return this.calls.query(org, payoutId, attemptId, railId);
  }

  /** POST /v1/payouts/payouts/{id}/resolve: ask the rail now (409 unless the payout waits for an answer). */
  resolvePayout(caller: Caller, payoutId: string): Promise<unknown> {
    return resolution.resolvePayout(this.platform, this.calls, caller, payoutId);
  }

  /** Every payout of an instruction in a status, as states. */
  payoutsOf(org: string, instructionId: string, status?: string): AsyncGenerator<PayoutState[]> {
    return resolution.payoutsOf(this.platform, org, instructionId, status);
  }

  markUnknown(caller: Caller, id: string, reason: string): Promise<unknown> {
    return resolution.markUnknown(this.platform, caller, id, reason);
  }

  resolveInstruction(caller: Caller, id: string): Promise<unknown> {
    return resolution.resolveInstruction(this.platform, this.calls, this.outcomes, caller, id);
  }

  /** Reports what is waiting for every instruction with no report in flight, and waits for those in flight. */
  flush(): Promise<void> {
    return this.outcomes.flush();
  }

  tally(org: string, id: string): Promise<void> {
    return this.outcomes.tally(org, id);
  }

  settle(caller: Caller, instructionId: string): Promise<unknown> {
    return settle(this.platform, this.rails, caller, instructionId);
  }

  private onCommit(c: Committed): void {
    if (c.kind === Payout.kind) {
      for (const e of c.events) {
        const d = e.data as Record<string, unknown> & { instruction_id: string; line: number; amount: number };
        if (e.type === 'payout.attempt_started') this.later(this.calls.send(c.org, c.id, d as unknown as AttemptStarted), 'sending');
        else if (e.type === 'payout.status_query_due') this.later(this.calls.query(c.org, c.id, d.attempt_id as string, d.rail_id as string), 'status query');
        else if (e.type === 'payout.settled' || e.type === 'payout.failed' || e.type === 'payout.held') {
          const s = c.state as PayoutState;
          this.outcomes.report(c.org, s.instruction_id, { line: s.line, outcome: s.status as Outcome['outcome'], amount: s.amount });
        }
      }
    } else if (c.kind === PayoutInstruction.kind) {
      for (const e of c.events) {
        if (e.type === 'instruction.executing') this.later(this.lines.dispatch(c.org, c.id, c.state as InstructionState), 'dispatch');
        else if (e.type === 'instruction.tally_due') this.later(this.outcomes.tally(c.org, c.id), 'tally');
      }
    } else if (c.kind === RunLink.kind) {
      if (c.events.some((e) => e.type === 'link.requested' || e.type === 'link.retry_due' || e.type === 'link.outcome_due')) this.later(linkRun(this.platform, this, c.org, c.id), 'run link');
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
