/**
 * Reversals (spec 2.11, 2.3; reference 3.4: a success can later become a reversal, NEFT returns
 * unapplied items): a settled payout whose credit the payee's bank returns is reversed, by the
 * rail's statement or by a person recording what the bank reported. The payee is then not paid,
 * the instruction counts the line reversed and the ledger puts the amount back in the bank against
 * the net pay owed again (docs/gaps.md#payouts).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, type Harness } from '../../support/http.ts';
import { advanceUntil, fund, ik, livePassports, post, runWithAccounts } from './support.ts';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(async () => {
  await h?.close();
});

type Org = { key: string; org: string };

async function executed(o: Org, payees: Array<{ ref: string; tag: string }>) {
  const x = await runWithAccounts(h, o, payees);
  await livePassports(h, o.org, payees.map((p) => p.ref));
  const r = await h.request('POST', '/v1/payouts/instructions', { key: o.key, idempotencyKey: ik('instr'), body: x.signed });
  expect(r.body.status, r.text).toBe('received');
  await fund(h, o.key, x.doc.total);
  // The instant rail first, whatever this node's recent rail health says: sandbox 93 times out only there.
  expect((await post(h, o.key, `/v1/payouts/instructions/${r.body.id}/plan`, { primary_rail_id: 'route_multi_rail_rail_nip', fallback_rail_ids: ['route_multi_rail_rail_batch'] })).status).toBe(201);
  expect((await post(h, o.key, `/v1/payouts/instructions/${r.body.id}/execute`)).status).toBe(200);
  await h.platform.system.settle();
  return { ...x, id: r.body.id as string };
}

const payouts = async (o: Org, id: string) => (await h.request('GET', `/v1/payouts/payouts?instruction_id=${id}&limit=100`, { key: o.key })).body.data as any[];
const byRef = async (o: Org, id: string, ref: string) => (await payouts(o, id)).find((p) => p.payee_ref === ref);
const instruction = async (o: Org, id: string) => (await h.request('GET', `/v1/payouts/instructions/${id}`, { key: o.key })).body;
const postings = async (o: Org) => (await h.request('GET', '/v1/ledger/postings?limit=100', { key: o.key })).body.data as any[];
const amountOn = (p: any, code: string, side: 'debit' | 'credit') => p.lines.filter((l: any) => l.account_code === code).reduce((n: number, l: any) => n + l[side].amount, 0);

describe('a settled payout can be reversed (spec 2.11 payout statuses, reference 3.4 success -> reversed)', () => {
  it('a credit the rail\u2019s statement shows returned reverses its payout at settlement: the instruction turns partially_settled and the ledger posts the amount back against net pay, naming the instruction\u2019s posting', async () => {
    const o = await h.register();
    const x = await executed(o, [{ ref: 'keep', tag: '10' }, { ref: 'back', tag: '98' }]);
    expect(await instruction(o, x.id)).toMatchObject({ status: 'settled', progress: { settled: 2, reversed: 0 } });
    const back = await byRef(o, x.id, 'back');
    expect(back).toMatchObject({ status: 'settled', reversal: null, reversed_at: null });
    const paid = (await postings(o)).find((p) => p.memo.includes(x.id));
    expect(amountOn(paid, 'liability.net_pay', 'debit')).toBe(x.doc.total);
    // The payee's bank returns the credit later (sandbox serial 98: at the rail's resolve time).
    await h.clock.advance(180_000);
    await h.platform.system.settle();
    const s = await h.request('POST', '/v1/payouts/settlements', { key: o.key, idempotencyKey: ik('settle'), body: { instruction_id: x.id } });
    expect(s.status, s.text).toBe(201);
    expect(s.body).toMatchObject({ settled_count: 1, settled_amount: { amount: x.doc.total - back.amount.amount }, reversed_count: 1, exception_count: 0, instruction_status: 'partially_settled' });
    await h.platform.system.settle();
    const reversed = await byRef(o, x.id, 'back');
    expect(reversed).toMatchObject({ status: 'reversed', reversal: { by: 'rail', code: 'RV', attempt_id: back.current_attempt_id } });
    const attempts = (await h.request('GET', `/v1/payouts/payouts/${back.id}/attempts`, { key: o.key })).body.data;
    expect(attempts.map((a: any) => a.status)).toEqual(['reversed']); // sent once, never again
    expect(await instruction(o, x.id)).toMatchObject({ status: 'partially_settled', progress: { settled: 1, reversed: 1, reversed_amount: { amount: back.amount.amount } } });
    const returned = (await postings(o)).find((p) => p.reverses_id === paid.id);
    expect(returned, 'a posting reversing the instruction\u2019s').toBeDefined();
    expect(amountOn(returned, 'asset.bank', 'debit')).toBe(back.amount.amount);
    expect(amountOn(returned, 'liability.net_pay', 'credit')).toBe(back.amount.amount);
    const reversedList = (await h.request('GET', `/v1/payouts/payouts?instruction_id=${x.id}&status=reversed`, { key: o.key })).body.data;
    expect(reversedList.map((p: any) => p.id)).toEqual([back.id]);
    const types = (await h.request('GET', '/v1/payouts/events?limit=100', { key: o.key })).body.data.map((e: { type: string }) => e.type);
    expect(types).toEqual(expect.arrayContaining(['route.payout.reversed', 'route.payout_instruction.payout_reversed']));
    // The run keeps the outcome it was given; the payee is paid by a later instruction.
    expect((await h.request('GET', `/v1/payroll/runs/${x.run.id}`, { key: o.key })).body.status).toBe('completed');
  });

  it('a person records a return the bank reported: reverse needs a settled payout (409 otherwise, and 409 again once reversed)', async () => {
    const o = await h.register();
    const x = await executed(o, [{ ref: 'ok', tag: '10' }, { ref: 'slow', tag: '93' }]);
    const slow = await byRef(o, x.id, 'slow');
    expect(slow.status).toBe('unknown');
    const refused = await post(h, o.key, `/v1/payouts/payouts/${slow.id}/reverse`, { reason: 'Bank letter of return.' });
    expect(refused.status, refused.text).toBe(409);
    expect(refused.body.error.code).toBe('conflict');
    const ok = await byRef(o, x.id, 'ok');
    const r = await post(h, o.key, `/v1/payouts/payouts/${ok.id}/reverse`, { reason: 'The bank reported the credit returned: account closed.' });
    expect(r.status, r.text).toBe(200);
    expect(r.body).toMatchObject({ status: 'reversed', reversal: { by: 'operator', reason: 'The bank reported the credit returned: account closed.', code: null } });
    expect((await post(h, o.key, `/v1/payouts/payouts/${ok.id}/reverse`, { reason: 'Again.' })).status).toBe(409);
    expect((await post(h, o.key, `/v1/payouts/payouts/${ok.id}/reverse`, {})).status).toBe(400);
  });

  it('a payout reversed while its instruction still executes is counted reversed, not settled: the instruction and the run end partially_settled and the posting pays only what stands', async () => {
    const o = await h.register();
    const x = await executed(o, [{ ref: 'ret', tag: '10' }, { ref: 'late', tag: '93' }]);
    const ret = await byRef(o, x.id, 'ret');
    expect((await post(h, o.key, `/v1/payouts/payouts/${ret.id}/reverse`, { reason: 'Returned by the payee\u2019s bank.' })).status).toBe(200);
    await h.platform.system.settle();
    expect(await instruction(o, x.id)).toMatchObject({ status: 'executing', progress: { settled: 0, reversed: 1 } });
    await advanceUntil(h, async () => (await instruction(o, x.id)).status !== 'executing', 60_000);
    const late = await byRef(o, x.id, 'late');
    expect(late.status).toBe('settled');
    expect(await instruction(o, x.id)).toMatchObject({ status: 'partially_settled', progress: { settled: 1, reversed: 1 } });
    expect((await h.request('GET', `/v1/payroll/runs/${x.run.id}`, { key: o.key })).body.status).toBe('partially_settled');
    const paid = (await postings(o)).find((p) => p.memo.includes(x.id));
    expect(amountOn(paid, 'asset.bank', 'credit')).toBe(late.amount.amount);
    expect((await postings(o)).filter((p) => p.reverses_id === paid.id)).toEqual([]);
  });
});
