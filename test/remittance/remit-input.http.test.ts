/**
 * Bad input to the remit routes gets a clear error with the spec's code (spec 7), never a crash,
 * a half-done record or another organisation's data.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, type Harness, type Registered } from '../../support/http.ts';
import { get, post } from './remit-support.ts';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(() => h?.close());

describe('spec 7: remit routes refuse bad input with the catalogue\u2019s codes', () => {
  let o: Registered;
  beforeAll(async () => {
    o = await h.register();
  });

  it('spec 7: unknown or malformed ids are 404; a missing or malformed body field is 400 validation_failed; a fractional amount is invalid_money_amount', async () => {
    const cases: Array<[string, string, unknown, number, string | null]> = [
      ['POST', '/v1/remittance/remittances', { instruction_set_id: 'nope' }, 404, null],
      ['POST', '/v1/remittance/remittances', { instruction_set_id: 'remit_authority_rail_instruction_AAAAAAAAAAAAAAAAAAAAAA' }, 404, null],
      ['POST', '/v1/remittance/remittances', {}, 400, 'validation_failed'],
      ['POST', '/v1/remittance/remittances', { instruction_set_id: 'x', extra: 1 }, 400, 'validation_failed'],
      ['GET', '/v1/remittance/remittances/remit_authority_rail_remittance_AAAAAAAAAAAAAAAAAAAAAA', undefined, 404, null],
      ['GET', '/v1/remittance/remittances/not-an-id', undefined, 404, null],
      ['POST', '/v1/remittance/remittances/remit_authority_rail_remittance_AAAAAAAAAAAAAAAAAAAAAA/approve', {}, 404, null],
      ['POST', '/v1/remittance/remittances/remit_authority_rail_remittance_AAAAAAAAAAAAAAAAAAAAAA/execute', {}, 404, null],
      ['GET', '/v1/remittance/remittances/remit_authority_rail_remittance_AAAAAAAAAAAAAAAAAAAAAA/legs', undefined, 404, null],
      ['GET', '/v1/remittance/remittances/remit_authority_rail_remittance_AAAAAAAAAAAAAAAAAAAAAA/legs?status=lost', undefined, 400, 'validation_failed'],
      ['POST', '/v1/remittance/remittances/remit_authority_rail_remittance_AAAAAAAAAAAAAAAAAAAAAA/legs/remit_authority_rail_leg_AAAAAAAAAAAAAAAAAAAAAA/retry', {}, 404, null],
      ['POST', '/v1/remittance/receipts', { leg_id: 'remit_authority_rail_leg_AAAAAAAAAAAAAAAAAAAAAA', fields: { period: '2026-01' } }, 404, null],
      ['POST', '/v1/remittance/receipts', { leg_id: 'bad', document: '{}' }, 404, null],
      ['POST', '/v1/remittance/receipts', { leg_id: 'remit_authority_rail_leg_AAAAAAAAAAAAAAAAAAAAAA', fields: { amount: { amount: 1.5, currency: 'NGN' } } }, 400, 'invalid_money_amount'],
      ['POST', '/v1/remittance/receipts', { leg_id: 'remit_authority_rail_leg_AAAAAAAAAAAAAAAAAAAAAA', fields: { period: '2026-13' } }, 400, 'validation_failed'],
      ['GET', '/v1/remittance/receipts/remit_authority_rail_receipt_AAAAAAAAAAAAAAAAAAAAAA', undefined, 404, null],
      ['GET', '/v1/remittance/returns/remit_authority_rail_return_AAAAAAAAAAAAAAAAAAAAAA', undefined, 404, null],
      ['POST', '/v1/remittance/returns/remit_authority_rail_return_AAAAAAAAAAAAAAAAAAAAAA/approve', {}, 404, null],
      ['POST', '/v1/remittance/returns/remit_authority_rail_return_AAAAAAAAAAAAAAAAAAAAAA/submit', {}, 404, null],
      ['GET', '/v1/remittance/reconciliations', undefined, 400, 'validation_failed'],
      ['GET', '/v1/remittance/audit_exports?period=2026-1', undefined, 400, 'validation_failed'],
    ];
    for (const [method, path, body, status, code] of cases) {
      const r = method === 'GET' ? await get(h, o.key, path) : await post(h, o.key, path, body);
      expect(r.status, `${method} ${path}: ${r.text}`).toBe(status);
      if (code) expect(r.body.error.code, `${method} ${path}`).toBe(code);
    }
  });

  it('spec 5.6: the remit scope: a key without remit:approve cannot approve, without remit:write cannot create', async () => {
    const k = await h.request<any>('POST', '/v1/account/api_keys', { session: o.session, idempotencyKey: `ro-${process.pid}-${Date.now()}`, body: { name: 'read only', scopes: ['remit:read'] } });
    expect(k.status, k.text).toBe(200);
    const create = await post(h, k.body.key, '/v1/remittance/remittances', { instruction_set_id: 'remit_authority_rail_instruction_AAAAAAAAAAAAAAAAAAAAAA' });
    expect(create.status).toBe(403);
    expect(create.body.error.message).toMatch(/remit:write/);
    const approve = await post(h, k.body.key, '/v1/remittance/remittances/remit_authority_rail_remittance_AAAAAAAAAAAAAAAAAAAAAA/approve');
    expect(approve.status).toBe(403);
    expect(approve.body.error.message).toMatch(/remit:approve/);
    expect((await get(h, k.body.key, '/v1/remittance/reconciliations?period=2026-01')).status).toBe(200);
  });
});
