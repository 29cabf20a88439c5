/**
 * Spec 3 "Remittance instruction set": a set received while no intake service was listening (the
 * node that committed it stopped) is still validated, and an accepted set's obligations still
 * recorded, by the set's own reminder (instruction-set.ts RETRY_MS) on the manual clock.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { INTAKE, INTAKE_STEPS, IngestedInstructionSet, IntakeService, type SetState } from '../../actors/remittance/intake/index.ts';
import { obligationsFor } from '../../actors/remittance/authorities/index.ts';
import { startHarness, type Harness } from '../../support/http.ts';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(() => h?.close());

const ngn = (amount: number) => ({ amount, currency: 'NGN' });
const lines = {
  paye: [{ authority_id: null, jurisdiction: 'NG-LA', amount: ngn(700), payee_count: 1, reconciliation_reference: 'r:paye' }],
  pension: [],
  levies: [{ code: 'nhf' as const, amount: ngn(300), reconciliation_reference: 'r:nhf' }],
  totals: { total: ngn(1_000) },
};

function swapService(on: boolean) {
  if (!on) {
    h.platform.services.require(INTAKE).stop();
    h.platform.services.remove(INTAKE);
  } else {
    const svc = new IntakeService(h.platform, INTAKE_STEPS);
    h.platform.services.provide(INTAKE, svc);
    svc.start();
  }
}

describe('the set\u2019s reminder finishes what a stopped node left undone (spec 3)', () => {
  it('a received set is validated and an accepted set\u2019s obligations recorded when the reminder fires', async () => {
    const o = await h.register();
    const caller = { org: o.org, livemode: false, principal: 'system' };
    const id = 'remit_authority_rail_instruction_reminder1';
    swapService(false);
    await h.platform.system.ask(IngestedInstructionSet, id, 'receive', { source: 'external_api', livemode: false, period: '2026-01', run_id: null, pay_date: '2026-01-28', import_id: null, lines }, { org: o.org });
    await h.platform.system.settle();
    expect((await h.platform.system.state<SetState>(IngestedInstructionSet, id, o.org)).status).toBe('received');
    swapService(true);
    await h.clock.advance(31_000);
    await h.platform.system.settle();
    expect((await h.platform.system.state<SetState>(IngestedInstructionSet, id, o.org)).status).toBe('pending_acceptance');

    swapService(false);
    await h.platform.system.ask(IngestedInstructionSet, id, 'accept', {}, { org: o.org });
    await h.platform.system.settle();
    expect(await obligationsFor(h.platform, caller, '2026-01')).toEqual([]);
    swapService(true);
    await h.clock.advance(31_000);
    await h.platform.system.settle();
    expect((await obligationsFor(h.platform, caller, '2026-01')).map((x) => [x.levy, x.amount.amount]).sort()).toEqual([['nhf', 300], ['paye', 700]]);
    expect((await h.platform.system.state<SetState>(IngestedInstructionSet, id, o.org)).obligations_recorded).toBe(true);
  });
});
