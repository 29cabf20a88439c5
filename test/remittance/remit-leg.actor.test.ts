/**
 * The leg's transition table (actors/remittance/remit/leg.ts; spec 3 "Remittance instruction
 * set"), decided without I/O: outcomes of an earlier attempt change nothing, a retry makes a new
 * attempt only after a final failure, and a leg completes only with a vaulted receipt.
 */
import { describe, expect, it } from 'vitest';
import { attemptInstructionId, legOfInstruction } from '../../actors/remittance/remit/ids.ts';
import { type CreateLeg, Leg, type LegEvent, type LegState } from '../../actors/remittance/remit/leg.ts';

const ID = 'remit_authority_rail_leg_AAAAAAAAAAAAAAAAAAAAAA';
let clock = 1_000;
const ctx = (version: number) => ({ now: clock, id: ID, org: 'org_x', version, newId: (p: string) => `${p}x` });

function run(s: LegState, version: number, cmd: string, payload: unknown = {}): { s: LegState; events: LegEvent[]; version: number } {
  const decided = (Leg.decide as Record<string, (s: LegState, c: unknown, x: ReturnType<typeof ctx>) => LegEvent[]>)[cmd]!(s, payload, ctx(version));
  let v = version;
  for (const e of decided) s = Leg.evolve(s, e, { at: (clock += 10), version: ++v, eventId: `evt_${v}`, org: 'org_x' });
  return { s, events: decided, version: v };
}

const create: CreateLeg = {
  authority_id: 'remit_authority_rail_obligation_A', authority_name: 'Lagos State Internal Revenue Service', authority_kind: 'state_irs', authority_code: 'NG-LA', jurisdiction: 'NG-LA', levy: 'paye',
  collection_account: { bank_code: '058', account_number: '7000024105', account_name: 'LIRS' }, amount: 500, lines: [],
  remittance_id: 'remit_authority_rail_remittance_A', instruction_set_id: 'remit_authority_rail_instruction_A', run_id: null, period: '2026-01', currency: 'NGN', livemode: false, return_id: 'remit_authority_rail_return_A', drive_ms: 60_000, ask_receipt: true,
};

describe('spec 3 Remittance: the leg actor', () => {
  it('spec 3: an attempt\u2019s instruction id names its leg and attempt, so a payouts event reaches the leg by reaction', () => {
    expect(legOfInstruction(attemptInstructionId(ID, 12))).toEqual({ leg_id: ID, attempt: 12 });
    expect(legOfInstruction('route_multi_rail_payout_AAAAAAAAAAAAAAAAAAAAAA')).toBeUndefined(); // a run's instruction
  });

  it('spec 3: a retry makes a new attempt only after a final failure; an outcome of an earlier attempt changes nothing; only a vaulted receipt completes the leg', () => {
    let { s, version } = run(Leg.initial(ID, 'org_x'), 0, 'create', create);
    expect(s).toMatchObject({ status: 'pending', attempts: [{ n: 1, status: 'submitting' }] });
    ({ s, version } = run(s, version, 'attempt_failed', { attempt: 1, reason: 'short', final: false }));
    let r = run(s, version, 'retry');
    expect(r.events.map((e) => e.type)).toEqual(['leg.attempt_resumed']);
    ({ s, version } = r);
    ({ s, version } = run(s, version, 'payment_started', { attempt: 1 }));
    ({ s, version } = run(s, version, 'payment_outcome', { attempt: 1, outcome: 'failed', reason: 'every rail refused' }));
    expect(s).toMatchObject({ status: 'failed', attempts: [{ n: 1, final: true }] });
    r = run(s, version, 'retry');
    expect(r.events).toEqual([expect.objectContaining({ type: 'leg.attempt_started', n: 2, instruction_ref: `${ID}:attempt:2`, instruction_id: attemptInstructionId(ID, 2) })]);
    ({ s, version } = r);
    // A late settlement of attempt 1 (impossible after a final failure, but never trusted) changes nothing.
    expect(run(s, version, 'payment_outcome', { attempt: 1, outcome: 'settled', reason: null }).events).toEqual([]);
    expect(() => run(s, version, 'receipt_vaulted', { receipt_id: 'r1' })).toThrow(/paid leg/);
    ({ s, version } = run(s, version, 'payment_outcome', { attempt: 2, outcome: 'settled', reason: null }));
    expect(s.status).toBe('paid');
    expect(() => run(s, version, 'retry')).toThrow(/waits for its receipt/);
    ({ s, version } = run(s, version, 'receipt_quarantined', { receipt_id: 'r0' }));
    expect(s).toMatchObject({ status: 'paid', quarantined_receipt_ids: ['r0'] });
    ({ s, version } = run(s, version, 'receipt_vaulted', { receipt_id: 'r1' }));
    expect(s).toMatchObject({ status: 'completed', receipt_id: 'r1' });
    expect(() => run(s, version, 'receipt_vaulted', { receipt_id: 'r2' })).toThrow(/already vaulted/);
  });

  it('spec 3: a paid leg asks the authority for its receipt a bounded number of times', () => {
    let { s, version } = run(Leg.initial(ID, 'org_x'), 0, 'create', create);
    ({ s, version } = run(s, version, 'payment_outcome', { attempt: 1, outcome: 'settled', reason: null }));
    let asks = 1;
    while (Leg.timers!(s).length) {
      ({ s, version } = run(s, version, 'receipt_due'));
      asks++;
      expect(asks).toBeLessThanOrEqual(12);
    }
    expect(asks).toBe(12);
    const manual = run(Leg.initial(ID, 'org_x'), 0, 'create', { ...create, ask_receipt: false });
    const paid = run(manual.s, manual.version, 'payment_outcome', { attempt: 1, outcome: 'settled', reason: null });
    expect(Leg.timers!(paid.s)).toEqual([]);
  });
});
