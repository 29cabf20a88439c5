/**
 * The calls this node makes to its rails (spec 2.11, 8; reference 3.1-3.4), and what it learns from
 * them: name enquiry before a payout is made, the transfer on payout.attempt_started, the status
 * query on payout.status_query_due; recent health per rail (route plans weigh it, spec 8), and the
 * answer counts and failover latencies the bench reads. Each answer is recorded on the payout
 * actor, whose decide stays pure (payout.ts).
 */
import type { Platform } from '../../kernel/index.ts';
import { type AccountValidation, Payout } from './payout.ts';
import { ACTIVE_POLICY } from './policy.ts';
import type { Rail } from './providers/index.ts';

const SYSTEM = 'system';

/** The fields of payout.attempt_started a transfer is made from. */
export interface AttemptStarted {
  attempt_id: string;
  rail_id: string;
  reference: string;
  amount: number;
  bank_code: string;
  account_number: string;
  n: number;
}

export interface AccountToCheck {
  bank_code: string;
  account_number: string;
  account_name?: string | null;
}

export class RailCalls {
  /** Rail answers by outcome and status queries asked on this node, for the bench. */
  readonly answers = { settled: 0, refused: 0, pending: 0, timeout: 0, status_queries: 0 };
  /** Failover latencies (ms, platform clock) from a refusal to the next rail's accepted answer, for the bench. */
  readonly failovers: number[] = [];
  private readonly refusedAt = new Map<string, number>();
  private readonly health = new Map<string, boolean[]>();

  constructor(private readonly platform: Platform, readonly rails: Rail[]) {}

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

  /** The account's holder name as the rail knows it, compared with the name on the line. */
  async nameEnquiry(railId: string, account: AccountToCheck): Promise<AccountValidation> {
    const now = this.platform.clock.now();
    const r = await this.rail(railId)!.nameEnquiry(account.bank_code, account.account_number, now, account.account_name ?? null).catch(() => undefined);
    if (!r) return { status: 'not_compared', returned_name: null, rail_id: railId, code: 'no_answer', checked_at: now };
    if (r.status === 'not_found') return { status: 'not_found', returned_name: null, rail_id: railId, code: r.code, checked_at: now };
    const status = !account.account_name ? 'not_compared' : sameName(account.account_name, r.account_name ?? '') ? 'matched' : 'name_mismatch';
    return { status, returned_name: r.account_name, rail_id: railId, code: r.code, checked_at: now };
  }

  /** Makes the attempt's transfer and records the rail's answer; a failed call is a time-out (outcome unknown). */
  async send(org: string, payoutId: string, e: AttemptStarted): Promise<void> {
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
}

const norm = (n: string) => n.toLowerCase().replace(/[^a-z ]/g, ' ').split(/\s+/).filter(Boolean).sort().join(' ');
/** Name enquiry match: the same words in any order, case and punctuation aside. */
const sameName = (a: string, b: string) => norm(a) === norm(b);
