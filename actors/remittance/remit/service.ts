/**
 * The remit part's work that needs I/O around its actors (their decide functions stay pure; the
 * pattern of actors/payouts/service.ts):
 * - paying a leg: on leg.attempt_started / attempt_resumed / drive_due, sign the attempt's
 *   instruction with remittance's key and hand it to the payouts module (submit, plan, execute);
 *   the leg hears the outcome by reaction to payouts' instruction events (leg.ts), not from here;
 * - the authority's receipt: on leg.paid / receipt_due, ask the authority's sandbox for its receipt
 *   of the payment and record it like any receipt (vaulted or quarantined);
 * - the annual return: when a December PAYE leg completes, prepare that State IRS's Form H1.
 * Each step is repeated by the leg's own reminder until its actor moves, so a node that dies in
 * between loses nothing, and each step is idempotent (derived ids, payouts' idempotency key).
 * Registered under REMIT; also provides REMIT_INSTRUCTION_CHECK for the payouts module's intake.
 */
import { ApiError, type Caller, derivedId, isApiError, type Platform, serviceKey } from '../../../kernel/index.ts';
import type { Committed } from '../../../runtime/index.ts';
import { payouts, REMIT_INSTRUCTION_CHECK } from '../../payouts/index.ts';
import { ROUTE_PLAN_PREFIX } from './ids.ts';
import { remitInstructionCheck, signedLegInstruction } from './leg-instruction.ts';
import { Leg, type LegState } from './leg.ts';
import { type AuthorityGateway, sandboxAuthority } from './providers/sandbox-authority.ts';
import { prepareAnnualReturn } from './returns.ts';
import { recordReceipt, sandboxReceiptId } from './receipts.ts';
import { REMIT_AUTHORITY } from './service-key.ts';

export const REMIT = serviceKey<RemitService>('remit');
const SYSTEM = 'system';

export class RemitService {
  private unsubscribe: (() => void) | undefined;
  private stopped = false;
  private readonly driving = new Set<string>();
  /** False when REMIT_SANDBOX_RECEIPTS=manual: receipts arrive only by POST /v1/remittance/receipts. */
  readonly autoReceipts: boolean;

  constructor(private readonly platform: Platform, readonly authority: AuthorityGateway = sandboxAuthority) {
    this.autoReceipts = (platform.config.REMIT_SANDBOX_RECEIPTS ?? 'authority') !== 'manual';
  }

  start(): void {
    this.unsubscribe = this.platform.system.onCommit((c) => this.onCommit(c));
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.unsubscribe?.();
  }

  private caller(org: string, livemode: boolean): Caller {
    return { org, livemode, principal: SYSTEM };
  }

  /** Pays the leg's current attempt through the payouts module (spec 1 rule 10, 2.11). */
  async drive(org: string, legId: string): Promise<void> {
    if (this.driving.has(legId)) return;
    this.driving.add(legId);
    try {
      const { system } = this.platform;
      const leg = await system.state<LegState>(Leg, legId, org);
      const attempt = leg.attempts[leg.attempts.length - 1];
      if (leg.status !== 'pending' || !attempt) return;
      const caller = this.caller(org, leg.livemode);
      const svc = payouts(this.platform);
      // Neither command carries a dedupe id: each is guarded by the leg's status and attempt, and a resumed attempt may need both again.
      const fail = (reason: string, final: boolean) => system.ask(Leg, legId, 'attempt_failed', { attempt: attempt.n, reason, final }, caller);
      const env = await signedLegInstruction(this.platform, leg, attempt.n);
      const view = (await svc.submit(caller, env, attempt.instruction_id, `remit_leg:${attempt.instruction_id}`)) as { status: string; quarantine_reason: string | null; route_plan_id: string | null; failure_reason?: string | null };
      if (view.status === 'quarantined') return void (await fail(`The payouts module quarantined instruction ${attempt.instruction_id} (${view.quarantine_reason}).`, true));
      if (view.status === 'failed') return void (await fail(view.failure_reason ?? `Instruction ${attempt.instruction_id} failed.`, true));
      if (view.status === 'settled' || view.status === 'partially_settled' || view.status === 'executing') {
        // Already under way or done: its final event reaches the leg by reaction.
        await system.ask(Leg, legId, 'payment_started', { attempt: attempt.n }, caller);
        return;
      }
      try {
        if (!view.route_plan_id) await svc.makePlan(caller, attempt.instruction_id, {}, derivedId(ROUTE_PLAN_PREFIX, [attempt.instruction_id, 'plan']));
        // Held for a shortfall before: a fresh funding check moves it back to planned when the account now suffices.
        if (view.status === 'funding_pending') await svc.fundingCheck(caller, attempt.instruction_id);
        await svc.execute(caller, attempt.instruction_id);
      } catch (e) {
        // Not executed (a funding shortfall, no rail for the account): the instruction is not final, so a retry resumes it.
        if (isApiError(e) && e.status < 500) return void (await fail(e.message, false));
        throw e;
      }
      await system.ask(Leg, legId, 'payment_started', { attempt: attempt.n }, caller);
    } finally {
      this.driving.delete(legId);
    }
  }

  /** The authority's sandbox receipt of a paid leg, recorded as any receipt is. */
  async fetchReceipt(org: string, legId: string): Promise<void> {
    if (!this.autoReceipts) return;
    const leg = await this.platform.system.state<LegState>(Leg, legId, org);
    const paid = leg.attempts.find((a) => a.status === 'settled');
    if (leg.status !== 'paid' || !paid || leg.paid_at === null || !leg.ask_receipt) return;
    const document = this.authority.receiptFor({
      authority_id: leg.authority_id, authority_code: leg.authority_code, authority_name: leg.authority_name, levy: leg.levy, period: leg.period,
      amount: leg.amount, currency: leg.currency, payment_reference: paid.instruction_id, paid_at: new Date(leg.paid_at).toISOString(), payer: org,
    });
    await recordReceipt(this.platform, this.caller(org, leg.livemode), { leg_id: leg.id, document }, sandboxReceiptId(leg.id, paid.n), 'authority_sandbox');
  }

  private onCommit(c: Committed): void {
    if (c.kind !== Leg.kind) return;
    for (const e of c.events) {
      if (e.type === 'leg.attempt_started' || e.type === 'leg.attempt_resumed' || e.type === 'leg.drive_due') this.later(this.drive(c.org, c.id), 'paying a leg');
      else if (e.type === 'leg.paid' || e.type === 'leg.receipt_due') this.later(this.fetchReceipt(c.org, c.id), 'the authority receipt');
      else if (e.type === 'leg.completed') {
        const s = c.state as LegState;
        if (s.levy === 'paye' && s.period.endsWith('-12')) this.later(prepareAnnualReturn(this.platform, this.caller(c.org, s.livemode), s), 'the annual return');
      }
    }
  }

  private later(p: Promise<unknown>, what: string): void {
    void this.platform.system.track(p).catch((err) => {
      if (this.stopped) return;
      // The runtime's own retryable refusals (a node stopping, overload): the leg's reminder asks again.
      if (err instanceof ApiError && (err.code === 'unavailable' || err.code === 'overloaded')) return;
      if (!(err instanceof ApiError) || err.status >= 500) console.error(`[remittance] ${what} failed; its reminder tries again`, err);
    });
  }
}

export const remitService = (p: Platform): RemitService => p.services.require(REMIT);

export function startRemit(p: Platform): void {
  const svc = new RemitService(p);
  p.services.provide(REMIT, svc);
  p.services.provide(REMIT_AUTHORITY, svc.authority);
  p.services.provide(REMIT_INSTRUCTION_CHECK, remitInstructionCheck(p));
  svc.start();
}

export async function stopRemit(p: Platform): Promise<void> {
  await p.services.get(REMIT)?.stop();
  p.services.remove(REMIT);
  p.services.remove(REMIT_AUTHORITY);
  p.services.remove(REMIT_INSTRUCTION_CHECK);
}
