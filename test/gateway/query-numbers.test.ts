/**
 * Numbers in query strings are read strictly (spec 2.1 ValidationReport; docs/gaps.md#gateway): only
 * plain decimal digits (an optional leading minus, no leading zero; a fraction only for a number
 * field) in range are read; anything else answers 400 validation_failed naming the field, never a
 * quiet reading of something the client did not write.
 */
import { Type } from '@sinclair/typebox';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { areas } from '../../actors/index.ts';
import { compile, parseQuery } from '../../gateway/validate.ts';
import type { ApiError } from '../../kernel/index.ts';
import { startHarness, type Harness } from '../../support/http.ts';

let h: Harness;
beforeAll(async () => {
  h = await startHarness({ areas });
});
afterAll(async () => {
  await h.close();
});

describe('limit on a list route reads only a plain decimal integer in range (GET /v1/api_keys)', () => {
  const refused: Array<[string, string]> = [
    ['1.5', 'invalid_type'],
    ['1e400', 'invalid_type'],
    ['1e1', 'invalid_type'],
    ['0x10', 'invalid_type'],
    ['%205', 'invalid_type'], // " 5"
    ['+5', 'invalid_type'], // a + in a query string is a space
    ['%2B5', 'invalid_type'], // "+5"
    ['', 'invalid_type'],
    ['05', 'invalid_type'],
    ['5%20', 'invalid_type'],
    ['Infinity', 'invalid_type'],
    ['abc', 'invalid_type'],
    ['99999999999999999999', 'out_of_range'],
    ['0', 'out_of_range'],
    ['101', 'out_of_range'],
    ['-1', 'out_of_range'],
  ];
  for (const [text, code] of refused) {
    it(`limit=${text} answers 400 validation_failed naming /query/limit (${code})`, async () => {
      const r = await h.request('GET', `/v1/api_keys?limit=${text}`);
      expect(r.status).toBe(400);
      expect(r.body.error.code).toBe('validation_failed');
      expect(r.body.error.validation.entries).toEqual([expect.objectContaining({ field: '/query/limit', code })]);
      expect(r.body.error.message).toContain('/query/limit');
    });
  }

  it('limit given twice is refused, naming the field', async () => {
    const r = await h.request('GET', '/v1/api_keys?limit=5&limit=6');
    expect(r.status).toBe(400);
    expect(r.body.error.validation.entries).toEqual([expect.objectContaining({ field: '/query/limit' })]);
  });

  it('limit=1 and limit=100 are read', async () => {
    for (const limit of ['1', '100']) {
      const r = await h.request('GET', `/v1/api_keys?limit=${limit}`);
      expect(r.status).toBe(200);
      expect(r.body.object).toBe('list');
    }
  });
});

describe('number fields read plain decimals with a fraction, nothing else (parseQuery)', () => {
  const v = compile(Type.Object({ latitude: Type.Number({ minimum: -90, maximum: 90 }), limit: Type.Optional(Type.Integer()), name: Type.Optional(Type.String()) }, { additionalProperties: false }));
  const refusal = (raw: string) => {
    try {
      parseQuery(v, raw);
    } catch (e) {
      return (e as ApiError).details?.validation?.entries;
    }
    return undefined;
  };

  it('reads -0.5, 12.25 and 0 as numbers, and leaves strings as text', () => {
    expect(parseQuery(v, 'latitude=-0.5&name=05')).toEqual({ latitude: -0.5, name: '05' });
    expect(parseQuery(v, 'latitude=12.25&limit=7')).toEqual({ latitude: 12.25, limit: 7 });
    expect(parseQuery(v, 'latitude=0')).toEqual({ latitude: 0 });
  });

  it('refuses 1e1, .5, 5., 0x1, 1_0 and a fraction in an integer field, each named once', () => {
    for (const raw of ['latitude=1e1', 'latitude=.5', 'latitude=5.', 'latitude=0x1', 'latitude=1_0', 'latitude=1&limit=2.0']) {
      const entries = refusal(raw);
      expect(entries, raw).toHaveLength(1);
      expect(entries![0].code, raw).toBe('invalid_type');
    }
  });

  it('a refused required field is named once (not also as missing), beside other failing fields', () => {
    const entries = refusal('latitude=1e1&limit=x&other=1');
    expect(entries?.map((e) => e.field).sort()).toEqual(['/query/latitude', '/query/limit', '/query/other']);
  });
});
