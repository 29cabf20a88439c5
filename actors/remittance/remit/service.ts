/**
 * The remit part's node-local process: it runs the steps that need I/O around its actors as this
 * node commits a leg's events (their decide functions stay pure):
 * - paying a leg (legs.ts payLeg): on leg.attempt_started / attempt_resumed / drive_due;
 * - the authority's receipt (receipts.ts fetchAuthorityReceipt): on leg.paid / receipt_due;
 * - the annual return (returns.ts): when a December PAYE leg completes.
 * Each step is repeated by the leg's own reminder until its actor moves, so a node that dies in
 * between loses nothing, and each step is idempotent (derived ids, payouts' idempotency key).
 * Registered under REMIT; also provides REMIT_INSTRUCTION_CHECK for the payouts module's intake.
 */
import { ApiError, logOf, type Platform, serviceKey } from '../../../kernel/index.ts';
import type { Committed } from '../../../runtime/index.ts';
import { REMIT_INSTRUCTION_CHECK } from '../../payouts/index.ts';
import { remitInstructionCheck } from './leg-instruction.ts';
import { Leg, type LegState } from './leg.ts';
import { payLeg } from './legs.ts';
import { type AuthorityGateway, sandboxAuthority } from './providers/sandbox-authority.ts';
import { prepareAnnualReturn } from './returns.ts';
import { fetchAuthorityReceipt } from './receipts.ts';
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

  /** Pays the leg's current attempt (legs.ts payLeg); a leg already being paid on this node is left to that. */
  async drive(org: string, legId: string): Promise<void> {
    if (this.driving.has(legId)) return;
    this.driving.add(legId);
    try {
      await payLeg(this.platform, org, legId);
    } finally {
      this.driving.delete(legId);
    }
  }

  /** The authority's sandbox receipt of a paid leg (receipts.ts), unless receipts arrive only by POST. */
  async fetchReceipt(org: string, legId: string): Promise<void> {
    if (this.autoReceipts) await fetchAuthorityReceipt(this.platform, org, legId, this.authority);
  }

  private onCommit(c: Committed): void {
    if (c.kind !== Leg.kind) return;
    for (const e of c.events) {
      if (e.type === 'leg.attempt_started' || e.type === 'leg.attempt_resumed' || e.type === 'leg.drive_due') this.later(this.drive(c.org, c.id), 'paying a leg');
      else if (e.type === 'leg.paid' || e.type === 'leg.receipt_due') this.later(this.fetchReceipt(c.org, c.id), 'the authority receipt');
      else if (e.type === 'leg.completed') {
        const s = c.state as LegState;
        if (s.levy === 'paye' && s.period.endsWith('-12')) this.later(prepareAnnualReturn(this.platform, { org: c.org, livemode: s.livemode, principal: SYSTEM }, s), 'the annual return');
      }
    }
  }

  private later(p: Promise<unknown>, what: string): void {
    void this.platform.system.track(p).catch((err) => {
      if (this.stopped) return;
      // The runtime's own retryable refusals (a node stopping, overload): the leg's reminder asks again.
      if (err instanceof ApiError && (err.code === 'unavailable' || err.code === 'overloaded')) return;
      if (!(err instanceof ApiError) || err.status >= 500) logOf('remittance').error(`${what} failed; its reminder tries again`, err);
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
