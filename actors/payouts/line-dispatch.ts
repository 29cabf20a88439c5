/**
 * Dispatching an executing instruction (spec 2.11, 4.10): one payout actor per line, each made
 * after the line's name enquiry and the payee's live-passport read (spec 4.3 gating), in a sliding
 * window of the policy's dispatch_chunk, with progress recorded on the instruction so a successor
 * node resumes where this one stopped.
 */
import type { Platform } from '../../kernel/index.ts';
import { identityGate } from '../identity/index.ts';
import { payoutIdOf } from './ids.ts';
import { accountOf } from './intake.ts';
import { type InstructionState, PayoutInstruction } from './instruction.ts';
import { nubanInstitution } from './nuban.ts';
import { type CreatePayout, Payout, type PayoutTiming } from './payout.ts';
import { ACTIVE_POLICY, railPolicy, type RailPolicy, type Timing } from './policy.ts';
import type { RailCalls } from './rail-calls.ts';
import { RoutePlan } from './route-plan.ts';
import type { InstructionDocuments } from './submission.ts';

const NO_RAILS: string[] = [];
const SYSTEM = 'system';

export class LineDispatch {
  private readonly dispatching = new Set<string>();

  constructor(
    private readonly platform: Platform,
    private readonly timing: Timing,
    private readonly documents: InstructionDocuments,
    private readonly calls: RailCalls,
    private readonly life: { readonly stopped: boolean },
  ) {}

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
      const s = known ?? (await system.state(PayoutInstruction, id, org));
      if (s.status !== 'executing' || s.dispatched >= s.line_count) return;
      const doc = await this.documents.get(org, id);
      const plan = await system.state(RoutePlan, s.route_plan_id!, org);
      const order = [plan.primary_rail_id, ...plan.fallback_rail_ids];
      const policies = order.map((r) => railPolicy(r)!);
      const t = payoutTiming(this.timing);
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
        const validation = account && live && rails.length ? await this.calls.nameEnquiry(rails[0], account) : null;
        const cmd: CreatePayout = {
          instruction_id: id, line: l.line, payslip_id: l.payslip_id ?? null, ...(l.pay_profile_id ? { pay_profile_id: l.pay_profile_id } : {}), payee_ref: l.payee_ref, amount: l.amount, currency: s.currency,
          account, validation, passport_live: live, rails, max_attempts: plan.max_attempts, timing: t, livemode: s.livemode, mocked: true,
        };
        await system.ask(Payout, payoutIdOf(id, l.line), 'create', cmd, createOpts);
      };
      const worker = async () => {
        while (next < s.line_count && !this.life.stopped) {
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
}

/** The answer time-outs and status-query delays a payout carries, scaled for this node (policy.ts timing). */
function payoutTiming(t: Timing): PayoutTiming {
  const q = ACTIVE_POLICY.pack.status_query;
  return {
    answer_timeout_ms: Object.fromEntries(ACTIVE_POLICY.pack.rails.map((r) => [r.id, t.answerTimeout(r.id)])),
    query_delays_ms: { first: t.queryDelay(1), fast: t.queryDelay(2), fast_tries: q.fast_tries, slow: t.queryDelay(q.fast_tries + 1) },
    not_found_is_failed_after_ms: t.notFoundFailedAfter,
  };
}

/** A rail can carry a line when the amount fits its limit and it reaches the line's institution. */
export function eligible(r: RailPolicy, bankCode: string, amount: number): boolean {
  if (amount > r.per_transfer_max) return false;
  if (!nubanInstitution(bankCode)) return false;
  return r.reach === 'all_nuban' || bankCode.length === 3;
}
