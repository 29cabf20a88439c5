/**
 * The payouts module's long-lived parts on one node (spec 2.11, 4.10, 8): its rails (providers/),
 * recent rail health, and the work that needs I/O around the actors (the actors' decide functions
 * stay pure; see actors/identity/service.ts for the same pattern):
 * - intake: judging a signed instruction (intake.ts) and submitting the verdict;
 * - dispatch: after instruction.executing, one payout actor per line (name enquiry and the
 *   payee's live passport read first), in chunks, recording progress so a successor resumes;
 * - sending: payout.attempt_started -> the rail's transfer -> record_answer;
 * - asking: payout.status_query_due (a reminder) -> the rail's status query -> record_status;
 * - outcomes: final payouts are reported to their instruction in batches, one batch in flight per
 *   instruction (what arrives meanwhile waits for it, so a busy node sends fewer, larger batches);
 *   the instruction's tally reminder re-reads them, so a report lost with a node is made again, and
 *   tells a payout still sending past its rail's answer time-out that its answer is overdue (a send
 *   lost with its node: payout.ts header);
 * - the payroll run link: submitting a run's instruction and carrying the outcome back;
 * - settlement with reconciliation (settlements.ts, reconcile.ts).
 * Registered under PAYOUTS.
 */
import { ApiError, type Caller, fieldError, isApiError, type Platform, serviceKey } from '../../kernel/index.ts';
import type { Committed } from '../../runtime/index.ts';
import { identityGate } from '../identity/index.ts';
import { payoutInstructionFor, Run, type SignedPayoutInstruction } from '../payroll/index.ts';
import { availableOf, FundingAccount, type FundingState } from './funding-account.ts';
import { fundingAccountIdOf, payoutIdOf } from './ids.ts';
import { accountOf, documentKey, type InstructionDocument, judge, parseDocument } from './intake.ts';
import { type FundingCheck, fundingCheckView, type InstructionState, type Outcome, PayoutInstruction } from './instruction.ts';
import { nubanInstitution } from './nuban.ts';
import { type AccountValidation, answerDueAt, type CreatePayout, FINAL, Payout, type PayoutState, type PayoutTiming } from './payout.ts';
import { ACTIVE_POLICY, railPolicy, type RailPolicy, timing, type Timing } from './policy.ts';
import { type Rail, sandboxRails } from './providers/index.ts';
import { type CreatePlan, RoutePlan, type RoutePlanState } from './route-plan.ts';
import { RunLink, type RunLinkState } from './run-link.ts';
import { settle } from './settlements.ts';
import { derivedId } from '../../kernel/index.ts';

export const PAYOUTS = serviceKey<PayoutsService>('payouts');

const NO_RAILS: string[] = [];

const SYSTEM = 'system';

export interface PlanBody {
  primary_rail_id?: string;
  fallback_rail_ids?: string[];
  max_attempts?: number;
}

export class PayoutsService {
  readonly rails: Rail[];
  readonly timing: Timing;
  private readonly health = new Map<string, boolean[]>();
  /** Outcomes to report per instruction, and the report in flight (at most one each). */
  private readonly reporting = new Map<string, { org: string; outcomes: Outcome[]; inFlight: Promise<void> | undefined }>();
  private flushScheduled = false;
  private readonly dispatching = new Set<string>();
  /** Outcomes counted at this node's last tally of each instruction. */
  private readonly tallied = new Map<string, number>();
  private unsubscribe: (() => void) | undefined;
  private stopped = false;
  /** Rail answers by outcome and status queries asked on this node, for the bench. */
  readonly answers = { settled: 0, refused: 0, pending: 0, timeout: 0, status_queries: 0 };
  /** Failover latencies (ms, platform clock) from a refusal to the next rail's accepted answer, for the bench. */
  readonly failovers: number[] = [];
  private readonly refusedAt = new Map<string, number>();

  constructor(private readonly platform: Platform, rails?: Rail[]) {
    const num = (k: string, d: number) => {
      const v = Number(platform.config[k] ?? d);
      return Number.isFinite(v) && v >= 0 ? v : d;
    };
    const scale = num('PAYOUTS_TIME_SCALE', 1) || 1;
    this.timing = timing(scale);
    this.rails = rails ?? sandboxRails(ACTIVE_POLICY.pack.rails, platform.stores.kv, platform.stores.indexes, {
      resolveAfterMs: Math.max(1, Math.round(num('PAYOUTS_SANDBOX_RESOLVE_MS', 120_000) * scale)),
      latencyMs: num('PAYOUTS_SANDBOX_LATENCY_MS', 0),
    });
  }

  start(): void {
    this.stopped = false;
    this.unsubscribe = this.platform.system.onCommit((c) => this.onCommit(c));
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.unsubscribe?.();
  }

  rail(id: string): Rail | undefined {
    return this.rails.find((r) => r.id === id);
  }

  /** Share of refusals and time-outs among a rail's recent attempts (spec 8: plans weigh rail health). */
  failureRatio(railId: string): { ratio: number; seen: number } {
    const h = this.health.get(railId) ?? [];
    return { ratio: h.length ? h.filter((ok) => !ok).length / h.length : 0, seen: h.length };
  }

  private recordHealth(railId: string, ok: boolean): void {
    let h = this.health.get(railId);
    if (!h) this.health.set(railId, (h = []));
    h.push(ok);
    if (h.length > ACTIVE_POLICY.pack.health.window) h.shift();
  }

  private payoutTiming(): PayoutTiming {
    const q = ACTIVE_POLICY.pack.status_query;
    const t = this.timing;
    return {
      answer_timeout_ms: Object.fromEntries(ACTIVE_POLICY.pack.rails.map((r) => [r.id, t.answerTimeout(r.id)])),
      query_delays_ms: { first: t.queryDelay(1), fast: t.queryDelay(2), fast_tries: q.fast_tries, slow: t.queryDelay(q.fast_tries + 1) },
      not_found_is_failed_after_ms: t.notFoundFailedAfter,
    };
  }

  // ---------------------------------------------------------------------------------------------
  // Intake

  async submit(caller: Caller, env: SignedPayoutInstruction, id: string, dedupeId: string | undefined): Promise<unknown> {
    const { system, stores } = this.platform;
    try {
      return await system.get(PayoutInstruction, id, caller.org); // the same create again (Idempotency-Key)
    } catch (e) {
      if (!isApiError(e) || e.code !== 'not_found') throw e;
    }
    const { submission, document } = await judge(this.platform, caller.org, caller.livemode, env, id);
    await stores.kv.set(documentKey(id), env); // kept as evidence, quarantined or not
    if (document && submission.quarantine_reason === null) this.remember(id, document);
    return system.ask(PayoutInstruction, id, 'submit', { ...submission, tally_interval_ms: this.timing.tallyInterval }, { ...caller, dedupeId });
  }

  /** The parsed documents of the last two instructions submitted on this node (dispatch reads them again). */
  private readonly docs = new Map<string, InstructionDocument>();

  private remember(id: string, doc: InstructionDocument): void {
    this.docs.set(id, doc);
    if (this.docs.size > 2) this.docs.delete(this.docs.keys().next().value!);
  }

  async document(org: string, id: string): Promise<InstructionDocument> {
    const known = this.docs.get(id);
    if (known) return known;
    const env = await this.platform.stores.kv.get<SignedPayoutInstruction>(documentKey(id));
    const doc = env && parseDocument(env.document);
    if (!doc) throw new ApiError('internal_error', `The signed document of instruction ${id} (${org}) is missing.`);
    return doc;
  }

  // ---------------------------------------------------------------------------------------------
  // Funding

  async fundingCheck(caller: Caller, id: string): Promise<ReturnType<typeof fundingCheckView>> {
    const s = await this.platform.system.state<InstructionState>(PayoutInstruction, id, caller.org);
    const check = await this.computeFunding(caller.org, s);
    const after = (await this.platform.system.ask(PayoutInstruction, id, 'record_funding_check', check, caller)) as { id: string };
    void after;
    return fundingCheckView(s, check);
  }

  private async computeFunding(org: string, s: InstructionState): Promise<FundingCheck> {
    const available = await this.available(org, s.livemode);
    const shortfall = Math.max(0, s.total - available);
    return { sufficient: shortfall === 0, required_amount: s.total, available_amount: available, shortfall, checked_at: this.platform.clock.now() };
  }

  async available(org: string, livemode: boolean): Promise<number> {
    try {
      return availableOf(await this.platform.system.state<FundingState>(FundingAccount, fundingAccountIdOf(org, livemode), org));
    } catch (e) {
      if (isApiError(e) && e.code === 'not_found') return 0;
      throw e;
    }
  }

  // ---------------------------------------------------------------------------------------------
  // Route plans

  async makePlan(caller: Caller, instructionId: string, body: PlanBody, planId: string): Promise<unknown> {
    const { system } = this.platform;
    const s = await system.state<InstructionState>(PayoutInstruction, instructionId, caller.org);
    if (s.status === 'quarantined') throw new ApiError('conflict', `Payout instruction ${s.id} is quarantined (${s.quarantine_reason}); it is never planned or executed.`);
    if (s.route_plan_id) throw new ApiError('conflict', `Payout instruction ${s.id} already has route plan ${s.route_plan_id}; a plan is fixed when it is made.`);
    if (s.status !== 'received' && s.status !== 'funding_pending') throw new ApiError('conflict', `Payout instruction ${s.id} is ${s.status}; only an instruction not yet executed can be planned.`);
    const plan = this.plan(s, await this.document(caller.org, s.id), body);
    const view = await system.ask(RoutePlan, planId, 'create', plan, caller);
    await system.ask(PayoutInstruction, s.id, 'plan', { route_plan_id: planId }, { ...caller, dedupeId: `plan:${planId}` });
    return view;
  }

  /** The order of rails and why (spec 2.11 RoutePlan.reasoning): limits, bank reach, recent health. */
  plan(s: InstructionState, doc: InstructionDocument, body: PlanBody): CreatePlan {
    const pack = ACTIVE_POLICY.pack;
    let largest = 0;
    let ofi = 0;
    for (const l of doc.lines) {
      largest = Math.max(largest, l.amount);
      if (typeof l.bank_code === 'string' && l.bank_code.length === 5) ofi++;
    }
    const reasoning: string[] = [];
    const facts = (r: RailPolicy) => {
      const h = this.failureRatio(r.id);
      const over = doc.lines.filter((l) => l.amount > r.per_transfer_max).length;
      const unreachable = r.reach === 'dmb_only' ? ofi : 0;
      return { r, h, over, unreachable, degraded: h.seen > 0 && h.ratio >= pack.health.degraded_failure_ratio };
    };
    let order: string[];
    if (body.primary_rail_id !== undefined || body.fallback_rail_ids !== undefined) {
      const chosen = [body.primary_rail_id ?? pack.default_order[0], ...(body.fallback_rail_ids ?? pack.default_order.filter((x) => x !== (body.primary_rail_id ?? pack.default_order[0])))];
      const unknown = chosen.filter((x) => !railPolicy(x));
      if (unknown.length) throw fieldError('/fallback_rail_ids', 'unknown_rail', `Unknown rail ${unknown[0]}.`, `Unknown rail ${unknown.join(', ')}; GET /v1/payouts/rails lists them.`);
      order = chosen;
      reasoning.push('Order chosen by the caller.');
    } else {
      const all = pack.default_order.map((id) => facts(railPolicy(id)!));
      // Healthy rails first in the pack's order; a degraded rail moves behind them.
      order = [...all.filter((f) => !f.degraded), ...all.filter((f) => f.degraded)].map((f) => f.r.id);
      reasoning.push(`Default order of payouts policy ${pack.version} (${pack.default_order.join(', ')}): instant interbank first (credited within 60 s), batch transfer next, wallet provider last.`);
    }
    for (const id of order) {
      const f = facts(railPolicy(id)!);
      const parts = [`${f.r.name} (${id}): per-transfer limit ${f.r.per_transfer_max} kobo`];
      if (f.over) parts.push(`${f.over} line(s) above it skip this rail`);
      parts.push(f.r.reach === 'dmb_only' ? `reaches deposit money banks only${f.unreachable ? ` (${f.unreachable} line(s) at other institutions skip it)` : ''}` : 'reaches every NUBAN institution');
      parts.push(f.h.seen ? `recent health: ${Math.round(f.h.ratio * 100)}% refused or timed out over the last ${f.h.seen} attempts${f.degraded ? ' (degraded: moved behind healthy rails)' : ''}` : 'recent health: no attempts seen yet on this node');
      reasoning.push(`${parts.join('; ')}.`);
    }
    const max_attempts = body.max_attempts ?? order.length;
    reasoning.push(`Largest line ${largest} kobo; at most ${max_attempts} attempt(s) per payout; a time-out is never failed over until the status query says failed.`);
    return { livemode: s.livemode, instruction_id: s.id, primary_rail_id: order[0], fallback_rail_ids: order.slice(1), reasoning, max_attempts, policy_version: pack.version };
  }

  // ---------------------------------------------------------------------------------------------
  // Execute and dispatch

  async execute(caller: Caller, id: string): Promise<unknown> {
    const { system } = this.platform;
    const s = await system.state<InstructionState>(PayoutInstruction, id, caller.org);
    if (s.status === 'executing' || s.status === 'settled' || s.status === 'partially_settled') return PayoutInstruction.view(s);
    if (s.status !== 'planned' || s.route_plan_id === null) return system.ask(PayoutInstruction, id, 'execute', { check: { sufficient: false, required_amount: s.total, available_amount: 0, shortfall: s.total, checked_at: 0 } }, caller); // the actor refuses with the reason
    const check = await this.computeFunding(caller.org, s);
    if (!check.sufficient) {
      await system.ask(PayoutInstruction, id, 'record_funding_check', check, caller);
      throw new ApiError('conflict', `The funding account is short by ${check.shortfall} kobo (${check.required_amount} required, ${check.available_amount} available); instruction ${id} is held in funding_pending.`, { shortfall: check.shortfall });
    }
    try {
      await system.ask(FundingAccount, fundingAccountIdOf(caller.org, s.livemode), 'reserve', { instruction_id: id, amount: s.total }, { ...caller, dedupeId: `reserve:${id}` });
    } catch (e) {
      if (isApiError(e) && e.code === 'conflict') await system.ask(PayoutInstruction, id, 'record_funding_check', { ...check, sufficient: false }, caller);
      throw e;
    }
    return system.ask(PayoutInstruction, id, 'execute', { check }, { ...caller, dedupeId: `execute:${id}` });
  }

  /**
   * One payout actor per line from `dispatched` on, with at most `dispatch_chunk` lines in flight
   * (a sliding window, not chunk by chunk: one slow name enquiry holds back no other line).
   * Progress is the highest line below which every line is dispatched, recorded each time it has
   * moved by a chunk and at the end, so a successor resumes from it (a line dispatched twice is
   * harmless: create is idempotent, dedupe id 'create').
   */
  async dispatch(org: string, id: string, known?: InstructionState): Promise<void> {
    if (this.dispatching.has(id)) return;
    this.dispatching.add(id);
    try {
      const { system } = this.platform;
      const s = known ?? (await system.state<InstructionState>(PayoutInstruction, id, org));
      if (s.status !== 'executing' || s.dispatched >= s.line_count) return;
      const doc = await this.document(org, id);
      const plan = await system.state<RoutePlanState>(RoutePlan, s.route_plan_id!, org);
      const order = [plan.primary_rail_id, ...plan.fallback_rail_ids];
      const policies = order.map((r) => railPolicy(r)!);
      const t = this.payoutTiming();
      const gate = identityGate(this.platform);
      const window = ACTIVE_POLICY.pack.instruction.dispatch_chunk;
      const opts = { org, principal: SYSTEM, lane: 'system' as const };
      const createOpts = { ...opts, dedupeId: 'create', noReply: true };
      // The live-passport gate is for paying a person (the policy's basis; spec 4.3 gating): a
      // remittance line pays an authority (a State IRS, a custodian, FMBN...), which has none.
      const passportRequired = ACTIVE_POLICY.pack.passport.required && s.source === 'run';
      const lines = doc.lines;
      // The rails of a line depend only on its institution and whether its amount fits each rail:
      // one array per combination, shared by every payout that has it (not one per payout).
      const railSets = new Map<string, string[]>();
      const railsOf = (bankCode: string, amount: number): string[] => {
        let mask = bankCode;
        for (const p of policies) mask += amount > p.per_transfer_max ? '1' : '0';
        let r = railSets.get(mask);
        if (!r) railSets.set(mask, (r = order.filter((_, k) => eligible(policies[k], bankCode, amount))));
        return r;
      };
      const done = new Uint8Array(s.line_count);
      let next = s.dispatched;
      let mark = s.dispatched;
      let recorded = s.dispatched;
      let progress: Promise<unknown> = Promise.resolve();
      const one = async (l: (typeof lines)[number]) => {
        const account = accountOf(l);
        const rails = account ? railsOf(account.bank_code, l.amount) : NO_RAILS;
        const live = !passportRequired || gate.isLive(org, l.payee_ref);
        const validation = account && live && rails.length ? await this.nameEnquiry(rails[0], account) : null;
        const cmd: CreatePayout = {
          instruction_id: id, line: l.line, payslip_id: l.payslip_id ?? null, payee_ref: l.payee_ref, amount: l.amount, currency: s.currency,
          account, validation, passport_live: live, rails, max_attempts: plan.max_attempts, timing: t, livemode: s.livemode, mocked: true,
        };
        await system.ask(Payout, payoutIdOf(id, l.line), 'create', cmd, createOpts);
      };
      const worker = async () => {
        while (next < s.line_count && !this.stopped) {
          const i = next++;
          await one(lines[i]);
          done[i] = 1;
          while (mark < s.line_count && done[mark]) mark++;
          if (mark - recorded >= window || mark === s.line_count) {
            const through = (recorded = mark);
            progress = progress.then(() => system.ask(PayoutInstruction, id, 'dispatched', { through }, opts));
          }
        }
      };
      await Promise.all(Array.from({ length: Math.min(window, s.line_count - next) }, worker));
      await progress;
    } finally {
      this.dispatching.delete(id);
    }
  }

  private async nameEnquiry(railId: string, account: { bank_code: string; account_number: string; account_name?: string | null }): Promise<AccountValidation> {
    const now = this.platform.clock.now();
    const r = await this.rail(railId)!.nameEnquiry(account.bank_code, account.account_number, now, account.account_name ?? null).catch(() => undefined);
    if (!r) return { status: 'not_compared', returned_name: null, rail_id: railId, code: 'no_answer', checked_at: now };
    if (r.status === 'not_found') return { status: 'not_found', returned_name: null, rail_id: railId, code: r.code, checked_at: now };
    const status = !account.account_name ? 'not_compared' : sameName(account.account_name, r.account_name ?? '') ? 'matched' : 'name_mismatch';
    return { status, returned_name: r.account_name, rail_id: railId, code: r.code, checked_at: now };
  }

  // ---------------------------------------------------------------------------------------------
  // Rails: sending and asking

  private async send(org: string, payoutId: string, e: { attempt_id: string; rail_id: string; reference: string; amount: number; bank_code: string; account_number: string; n: number }): Promise<void> {
    const rail = this.rail(e.rail_id);
    const { system, clock } = this.platform;
    const opts = { org, principal: SYSTEM, lane: 'system' as const, noReply: true };
    if (!rail) {
      await system.ask(Payout, payoutId, 'record_answer', { attempt_id: e.attempt_id, outcome: 'refused', code: 'rail_unavailable', detail: `Rail ${e.rail_id} is not mounted on this platform.` }, opts);
      return;
    }
    const answer = await rail.send({ reference: e.reference, org, payout_id: payoutId, amount: e.amount, currency: 'NGN', bank_code: e.bank_code, account_number: e.account_number, narration: `Payout ${payoutId}` }, clock.now())
      .catch((err: unknown) => ({ outcome: 'timeout' as const, code: 'no_answer', detail: `The rail call failed (${err instanceof Error ? err.message : String(err)}); the outcome is unknown.` }));
    this.recordHealth(e.rail_id, answer.outcome === 'settled' || answer.outcome === 'pending');
    this.answers[answer.outcome]++;
    if (answer.outcome === 'refused') this.refusedAt.set(payoutId, performance.now());
    else if (e.n > 1 && answer.outcome === 'settled') {
      const at = this.refusedAt.get(payoutId);
      if (at !== undefined) (this.failovers.push(performance.now() - at), this.refusedAt.delete(payoutId));
    }
    await system.ask(Payout, payoutId, 'record_answer', { attempt_id: e.attempt_id, ...answer }, opts);
  }

  /** Asks the rail's status query for the payout's current attempt and records the answer. */
  async query(org: string, payoutId: string, attemptId: string, railId: string): Promise<void> {
    const rail = this.rail(railId);
    if (!rail) return;
    this.answers.status_queries++;
    const answer = await rail.status(attemptId, this.platform.clock.now()).catch(() => undefined);
    if (!answer) return; // no answer: still unknown; the next reminder asks again
    await this.platform.system.ask(Payout, payoutId, 'record_status', { attempt_id: attemptId, ...answer }, { org, principal: SYSTEM, lane: 'system' });
  }

  /** POST /v1/payouts/payouts/{id}/resolve: ask the rail now (409 unless the payout waits for an answer). */
  async resolvePayout(caller: Caller, payoutId: string): Promise<unknown> {
    const s = await this.platform.system.state<PayoutState>(Payout, payoutId, caller.org);
    const a = s.attempts[s.attempts.length - 1];
    if (!a || (s.status !== 'unknown' && s.status !== 'pending')) throw new ApiError('conflict', `Payout ${payoutId} is ${s.status}; only an unknown or pending payout is resolved by asking its rail.`, { status: s.status });
    await this.query(caller.org, payoutId, a.id, a.rail_id);
    return this.platform.system.get(Payout, payoutId, caller.org);
  }

  /** Every payout of an instruction in a status, as states. */
  async *payoutsOf(org: string, instructionId: string, status?: string): AsyncGenerator<PayoutState[]> {
    const list = status ? `instruction:${instructionId}:status:${status}` : `instruction:${instructionId}`;
    for await (const ids of this.platform.system.eachIds(Payout, org, list)) {
      yield await Promise.all(ids.map((pid) => this.platform.system.state<PayoutState>(Payout, pid, org)));
    }
  }

  async markUnknown(caller: Caller, id: string, reason: string): Promise<unknown> {
    await this.platform.system.ask(PayoutInstruction, id, 'mark_unknown', { reason }, caller);
    let marked = 0;
    for (const status of ['sending', 'pending']) {
      for await (const page of this.payoutsOf(caller.org, id, status)) {
        for (const p of page) {
          if (p.status !== 'sending' && p.status !== 'pending') continue;
          await this.platform.system.ask(Payout, p.id, 'mark_unknown', { reason }, { ...caller, dedupeId: `mark_unknown:${caller.requestId ?? reason}` });
          marked++;
        }
      }
    }
    return { ...((await this.platform.system.get(PayoutInstruction, id, caller.org)) as object), marked_unknown: marked };
  }

  async resolveInstruction(caller: Caller, id: string): Promise<unknown> {
    await this.platform.system.ask(PayoutInstruction, id, 'resolve', {}, caller);
    let asked = 0;
    for (const status of ['unknown', 'pending']) {
      for await (const page of this.payoutsOf(caller.org, id, status)) {
        await Promise.all(page.filter((p) => p.status === status).map((p) => {
          asked++;
          const a = p.attempts[p.attempts.length - 1];
          return this.query(caller.org, p.id, a.id, a.rail_id);
        }));
      }
    }
    await this.flush();
    return { ...((await this.platform.system.get(PayoutInstruction, id, caller.org)) as object), status_queries_asked: asked };
  }

  // ---------------------------------------------------------------------------------------------
  // Outcomes

  private report(org: string, instructionId: string, o: Outcome): void {
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

  private async reportNow(id: string, r: { org: string; outcomes: Outcome[]; inFlight: Promise<void> | undefined }): Promise<void> {
    const outcomes = r.outcomes;
    r.outcomes = [];
    try {
      await this.platform.system.ask(PayoutInstruction, id, 'record_outcomes', { outcomes }, { org: r.org, principal: SYSTEM, lane: 'system', noReply: true });
    } catch (err) {
      if (!this.stopped) console.error('[payouts] reporting outcomes failed; the tally reminder reports them again', err);
    } finally {
      r.inFlight = undefined;
      if (r.outcomes.length) this.scheduleFlush();
    }
  }

  /**
   * The instruction's reminder: resume a dispatch a node left unfinished, report finals again.
   * While outcomes keep arriving (the count moved since this node's last tally) nothing is re-read;
   * once they stall, only the lines still without an outcome are read (never every payout: a
   * re-read of all of them at each reminder made a large instruction quadratic).
   */
  async tally(org: string, id: string): Promise<void> {
    const s = await this.platform.system.state<InstructionState>(PayoutInstruction, id, org);
    if (s.status !== 'executing') {
      this.tallied.delete(id);
      return;
    }
    if (s.dispatched < s.line_count) {
      await this.dispatch(org, id);
      return;
    }
    const done = s.settled_count + s.failed_count + s.held_count;
    const last = this.tallied.get(id);
    this.tallied.set(id, done);
    if (last !== undefined && last !== done) return;
    const open: number[] = [];
    for (let i = s.outcomes.indexOf('.'); i !== -1; i = s.outcomes.indexOf('.', i + 1)) open.push(i + 1);
    const outcomes: Outcome[] = [];
    const overdue: Array<{ id: string; attempt_id: string }> = [];
    const now = this.platform.clock.now();
    for (let k = 0; k < open.length; k += 500) {
      const states = await Promise.all(open.slice(k, k + 500).map((line) => this.platform.system.state<PayoutState>(Payout, payoutIdOf(id, line), org).catch(() => undefined)));
      for (const p of states) {
        if (!p) continue;
        if (FINAL.has(p.status)) outcomes.push({ line: p.line, outcome: p.status as Outcome['outcome'], amount: p.amount });
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

  // ---------------------------------------------------------------------------------------------
  // The payroll run link

  private async linkRun(org: string, linkId: string): Promise<void> {
    const { system } = this.platform;
    const link = await system.state<RunLinkState>(RunLink, linkId, org);
    const opts = { org, principal: SYSTEM, lane: 'system' as const };
    if (link.status === 'requested') {
      const env = await payoutInstructionFor(system, org, link.run_id);
      if (!env) {
        await system.ask(RunLink, linkId, 'submitted', { instruction_id: null, note: 'The run has no net pay to pay out.' }, opts);
        return;
      }
      const lines = parseDocument(env.document)?.lines ?? [];
      if (!lines.some((l) => accountOf(l) !== null)) {
        // No payee of the run has a bank account on its pay profile (docs/gaps.md#payouts): every line would be held.
        await system.ask(RunLink, linkId, 'submitted', { instruction_id: null, note: 'The run\u2019s signed instruction carries no bank account on any line; set bank_account on the pay profiles and pay it by a later run.' }, opts);
        return;
      }
      const run = await system.state<{ livemode: boolean }>(Run, link.run_id, org);
      const id = derivedId(PayoutInstruction.prefix, [org, 'run_link', link.run_id]);
      await this.submit({ org, livemode: run.livemode, principal: SYSTEM }, env, id, `run_link:${link.run_id}`);
      await system.ask(RunLink, linkId, 'submitted', { instruction_id: id }, opts);
    } else if (link.status === 'outcome_due' && link.outcome) {
      let note: string | undefined;
      try {
        await system.ask(Run, link.run_id, 'record_payout_outcome', { outcome: link.outcome }, { ...opts, dedupeId: `payout_outcome:${link.instruction_id}` });
      } catch (e) {
        if (!isApiError(e) || e.status >= 500) throw e;
        note = `The run refused the outcome: ${e.message}`;
      }
      await system.ask(RunLink, linkId, 'outcome_delivered', { note }, opts);
    }
  }

  // ---------------------------------------------------------------------------------------------
  // Settlements and reconciliation

  settle(caller: Caller, instructionId: string): Promise<unknown> {
    return settle(this.platform, this.rails, caller, instructionId);
  }

  // ---------------------------------------------------------------------------------------------

  private onCommit(c: Committed): void {
    if (c.kind === Payout.kind) {
      for (const e of c.events) {
        const d = e.data as Record<string, unknown> & { instruction_id: string; line: number; amount: number };
        if (e.type === 'payout.attempt_started') this.later(this.send(c.org, c.id, d as unknown as Parameters<PayoutsService['send']>[2]), 'sending');
        else if (e.type === 'payout.status_query_due') this.later(this.query(c.org, c.id, d.attempt_id as string, d.rail_id as string), 'status query');
        else if (e.type === 'payout.settled' || e.type === 'payout.failed' || e.type === 'payout.held') {
          const s = c.state as PayoutState;
          this.report(c.org, s.instruction_id, { line: s.line, outcome: s.status as Outcome['outcome'], amount: s.amount });
        }
      }
    } else if (c.kind === PayoutInstruction.kind) {
      for (const e of c.events) {
        if (e.type === 'instruction.executing') this.later(this.dispatch(c.org, c.id, c.state as InstructionState), 'dispatch');
        else if (e.type === 'instruction.tally_due') this.later(this.tally(c.org, c.id), 'tally');
      }
    } else if (c.kind === RunLink.kind) {
      if (c.events.some((e) => e.type === 'link.requested' || e.type === 'link.retry_due' || e.type === 'link.outcome_due')) this.later(this.linkRun(c.org, c.id), 'run link');
    }
  }

  private later(p: Promise<unknown>, what: string): void {
    void this.platform.system.track(p).catch((err) => {
      if (this.stopped) return;
      if (!(err instanceof ApiError) || err.status >= 500) console.error(`[payouts] ${what} failed; its reminder tries again`, err);
    });
  }
}

function eligible(r: RailPolicy, bankCode: string, amount: number): boolean {
  if (amount > r.per_transfer_max) return false;
  if (!nubanInstitution(bankCode)) return false;
  return r.reach === 'all_nuban' || bankCode.length === 3;
}

const norm = (n: string) => n.toLowerCase().replace(/[^a-z ]/g, ' ').split(/\s+/).filter(Boolean).sort().join(' ');
/** Name enquiry match: the same words in any order, case and punctuation aside. */
const sameName = (a: string, b: string) => norm(a) === norm(b);

export const payoutsService = (platform: Platform): PayoutsService => platform.services.require(PAYOUTS);
