/**
 * GET /v1/ledger/accounts is a list like every other (spec 4 preamble, 4.2): limit 1..100 and
 * starting_after, a bad value or an unknown parameter refused with 400 naming it (spec 2.1
 * validation), pages in code order.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { STARTING_CHART } from '../../actors/ledger/index.ts';
import { startHarness, type Harness } from '../../support/http.ts';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(() => h.close());

type Entry = { field?: string; code: string; severity: string };
const entries = (body: any): Entry[] => body.error.validation.entries;

describe('GET /v1/ledger/accounts validates its query as every list does (spec 4 preamble, 4.2)', () => {
  it('limit 0, 101 and abc are refused with 400 validation_failed naming /query/limit', async () => {
    for (const limit of ['0', '101', 'abc']) {
      const r = await h.request('GET', `/v1/ledger/accounts?limit=${limit}`);
      expect(r.status, `limit=${limit}: ${r.text}`).toBe(400);
      expect(r.body.error.code).toBe('validation_failed');
      expect(entries(r.body).map((e) => e.field)).toEqual(['/query/limit']);
      expect(entries(r.body)[0].severity).toBe('error');
    }
  });

  it('an unknown query parameter is refused with 400 naming it', async () => {
    const r = await h.request('GET', '/v1/ledger/accounts?colour=blue');
    expect(r.status, r.text).toBe(400);
    expect(r.body.error.code).toBe('validation_failed');
    expect(entries(r.body).map((e) => e.field)).toEqual(['/query/colour']);
  });

  it('limit 2 pages in code order with has_more, and starting_after continues after the last id', async () => {
    const codes = STARTING_CHART.map((e) => e.code).sort();
    const first = await h.request('GET', '/v1/ledger/accounts?limit=2');
    expect(first.status, first.text).toBe(200);
    expect(first.body).toMatchObject({ object: 'list', has_more: true });
    expect(first.body.data.map((a: any) => a.code)).toEqual(codes.slice(0, 2));

    const seen: string[] = [];
    let after: string | undefined;
    for (;;) {
      const r = await h.request('GET', `/v1/ledger/accounts?limit=2${after ? `&starting_after=${after}` : ''}`);
      expect(r.status, r.text).toBe(200);
      expect(r.body.data.length).toBeLessThanOrEqual(2);
      seen.push(...r.body.data.map((a: any) => a.code));
      if (!r.body.has_more) break;
      after = r.body.data.at(-1).id;
    }
    expect(seen).toEqual(codes);
  });

  it('a starting_after that is not one of the caller\u2019s accounts gives an empty page, not a refusal', async () => {
    const other = await h.register();
    const theirs = await h.request('GET', '/v1/ledger/accounts?limit=1', { key: other.key });
    const r = await h.request('GET', `/v1/ledger/accounts?starting_after=${theirs.body.data[0].id}`);
    expect(r.status, r.text).toBe(200);
    expect(r.body).toMatchObject({ object: 'list', data: [], has_more: false });
  });
});
