/**
 * What an idempotency record keeps (spec 1.9, 8: the same key and body return the original
 * response): its status, body and headers, but not its request id; a replay carries its own.
 */
import { describe, expect, it } from 'vitest';
import { Idempotency } from '../../gateway/idempotency.ts';
import type { WireResponse } from '../../gateway/wire.ts';
import { createMemoryStores } from '../../stores/index.ts';

const stores = () => createMemoryStores({ now: () => 0 });

describe('an idempotency record keeps the original answer without its request id (spec 1.9, 8)', () => {
  it('replays status, body and every header but the request id', async () => {
    const idem = new Idempotency(stores().kv);
    const first: WireResponse = {
      status: 201,
      headers: { 'content-type': 'text/csv', 'service-request-id': 'req_first', 'content-disposition': 'attachment; filename="a.csv"' },
      body: 'a,b\n1,2\n',
    };
    const run = await idem.run('org_1', 'k1', 'fp', async () => ({ response: first }));
    expect(run.replay).toBe(false);
    expect(run.response.headers['service-request-id']).toBe('req_first');
    const again = await idem.run('org_1', 'k1', 'fp', async () => {
      throw new Error('must not run twice');
    });
    expect(again.replay).toBe(true);
    expect(again.response.status).toBe(201);
    expect(again.response.body).toBe('a,b\n1,2\n');
    expect(again.response.headers).toEqual({ 'content-type': 'text/csv', 'content-disposition': 'attachment; filename="a.csv"' });
  });

  it('a plain JSON answer replays with its content type only', async () => {
    const idem = new Idempotency(stores().kv);
    await idem.run('org_1', 'k2', 'fp', async () => ({ response: { status: 200, headers: { 'content-type': 'application/json', 'service-request-id': 'req_x' }, body: '{"ok":true}' } }));
    const again = await idem.run('org_1', 'k2', 'fp', async () => ({ response: { status: 500, headers: {}, body: '' } }));
    expect(again.replay).toBe(true);
    expect(again.response.headers).toEqual({ 'content-type': 'application/json' });
    expect(again.response.body).toBe('{"ok":true}');
  });

  it('records are per organisation: the same key in another organisation runs anew', async () => {
    const idem = new Idempotency(stores().kv);
    await idem.run('org_1', 'k3', 'fp', async () => ({ response: { status: 200, headers: { 'content-type': 'application/json' }, body: '1' } }));
    const other = await idem.run('org_2', 'k3', 'fp', async () => ({ response: { status: 200, headers: { 'content-type': 'application/json' }, body: '2' } }));
    expect(other.replay).toBe(false);
    expect(other.response.body).toBe('2');
  });
});
