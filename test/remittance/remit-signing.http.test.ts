/**
 * Remittance's own signing key (spec 1 rule 10: payout instructions arrive signed from payroll or
 * remittance, each checked against the key of the area that produced it; spec 2.11 quarantine
 * reasons). The payouts module verifies a `remit` document against remittance's key, never
 * payroll's, and checks its line against the remittance and leg it names.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signingKey, signWith } from '../../kernel/index.ts';
import { signedLegInstruction } from '../../actors/remittance/remit/leg-instruction.ts';
import { Leg, type LegState } from '../../actors/remittance/remit/leg.ts';
import { startHarness, type Harness, type Registered } from '../../support/http.ts';
import { acceptedSet, advanceUntil, executedRemittance, externalSet, get, ik, legsOf } from './remit-support.ts';

/** Cluster stores on a shared two-core machine: a flow of many requests and clock steps needs more than the default 30 s. */
const SLOW = 180_000;

let h: Harness;
beforeAll(async () => {
  h = await startHarness({ config: { REMIT_SANDBOX_RECEIPTS: 'manual' } });
});
afterAll(() => h?.close());

const submit = (o: Registered, env: unknown) => h.request<any>('POST', '/v1/payouts/instructions', { key: o.key, idempotencyKey: ik('instr'), body: env });

async function signedAs(area: string, org: string, document: string) {
  const k = await signingKey(h.platform.stores.kv, area, org, 'test');
  return { algorithm: 'ed25519', key_id: k.key_id, document, signature: signWith(k, document) };
}

describe('spec 1 rule 10: remittance signs its own instructions', () => {
  let o: Registered;
  let leg: LegState;
  let doc: any;
  beforeAll(async () => {
    o = await h.register();
    const set = await acceptedSet(h, o, externalSet('2026-01', { kano: 0, pension: 0, nhf: 0 }));
    const rem = await executedRemittance(h, o, set.id);
    await advanceUntil(h, async () => (await legsOf(h, o, rem.id)).every((l) => l.status === 'paid'));
    const [l] = await legsOf(h, o, rem.id);
    leg = await h.platform.system.state<LegState>(Leg, l.id, o.org);
    doc = JSON.parse((await signedLegInstruction(h.platform, leg, 1)).document);
  }, SLOW);

  it('spec 1 rule 10: a leg\u2019s instruction verifies under remittance\u2019s key, and a remit document signed with payroll\u2019s key is quarantined signature_invalid', async () => {
    const instr = (await get(h, o.key, `/v1/payouts/instructions/${leg.attempts[0]!.instruction_id}`)).body;
    expect(instr).toMatchObject({ signature_verified: true, source: 'remit', remittance_id: leg.remittance_id });
    const remitKey = await signingKey(h.platform.stores.kv, 'remittance', o.org, 'test');
    const payrollKey = await signingKey(h.platform.stores.kv, 'payroll', o.org, 'test');
    expect(instr.key_id).toBe(remitKey.key_id);
    expect(remitKey.key_id).not.toBe(payrollKey.key_id);
    const r = await submit(o, await signedAs('payroll', o.org, JSON.stringify({ ...doc, instruction_ref: `${doc.instruction_ref}:forged` })));
    expect(r.status, r.text).toBe(201);
    expect(r.body).toMatchObject({ status: 'quarantined', quarantine_reason: 'signature_invalid', signature_verified: false });
  }, SLOW);

  it('spec 1 rule 10: a run document signed with remittance\u2019s key is quarantined signature_invalid', async () => {
    const runDoc = { ...doc, source: 'run', run_id: 'run_enterprise_AAAAAAAAAAAAAAAAAAAAAA', remittance_id: null, instruction_ref: 'forged:net_pay' };
    const r = await submit(o, await signedAs('remittance', o.org, JSON.stringify(runDoc)));
    expect(r.body).toMatchObject({ status: 'quarantined', quarantine_reason: 'signature_invalid' });
  }, SLOW);

  it('spec 2.11: a remit line that disagrees with its leg (amount or account) is quarantined integrity_mismatch', async () => {
    const more = { ...doc, total: doc.total + 100, lines: [{ ...doc.lines[0], amount: doc.lines[0].amount + 100 }] };
    const r1 = await submit(o, await signedAs('remittance', o.org, JSON.stringify(more)));
    expect(r1.body).toMatchObject({ status: 'quarantined', quarantine_reason: 'integrity_mismatch', signature_verified: true });
    expect(r1.body.quarantine_findings.map((f: any) => f.code)).toContain('line_disagrees_with_leg');
    const elsewhere = { ...doc, lines: [{ ...doc.lines[0], bank_code: '058', account_number: '0000000019' }] };
    const r2 = await submit(o, await signedAs('remittance', o.org, JSON.stringify(elsewhere)));
    expect(r2.body.quarantine_reason).toBe('integrity_mismatch');
    const noLeg = { ...doc, leg_id: 'remit_authority_rail_leg_AAAAAAAAAAAAAAAAAAAAAA' };
    const r3 = await submit(o, await signedAs('remittance', o.org, JSON.stringify(noLeg)));
    expect(r3.body.quarantine_reason).toBe('integrity_mismatch');
    expect(r3.body.quarantine_findings.map((f: any) => f.code)).toEqual(['leg_unknown']);
  }, SLOW);

  it('spec 2.11: the same leg attempt submitted again under another id is quarantined duplicate_instruction (a leg is never paid twice)', async () => {
    const again = await signedLegInstruction(h.platform, leg, 1);
    const r = await submit(o, again);
    expect(r.body).toMatchObject({ status: 'quarantined', quarantine_reason: 'duplicate_instruction' });
  }, SLOW);
});
