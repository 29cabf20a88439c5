/**
 * No input reaches a 5xx (spec 7: a request the platform cannot read is the client's 400): a JSON
 * body nested or sized beyond the bounds is refused with 400 invalid_request naming the bound,
 * before it is parsed or validated (kernel/json-bounds.ts; docs/gaps.md#gateway).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { areas } from '../../actors/index.ts';
import { JSON_MAX_DEPTH, JSON_MAX_VALUES, jsonBoundsRefusal } from '../../kernel/index.ts';
import { rng } from '../../support/rng.ts';
import { startHarness, type Harness } from '../../support/http.ts';

const nested = (depth: number, inner = '"iam:read"') => '['.repeat(depth) + inner + ']'.repeat(depth);

/** The oracle: depth and value count of a parsed value, walked with an explicit stack. */
function measure(root: unknown): { depth: number; values: number } {
  let depth = 0;
  let values = 0;
  const stack: Array<[unknown, number]> = [[root, 0]];
  while (stack.length) {
    const [v, d] = stack.pop()!;
    values++;
    if (v === null || typeof v !== 'object') continue;
    depth = Math.max(depth, d + 1);
    for (const child of Object.values(v)) stack.push([child, d + 1]);
  }
  return { depth, values };
}

/** Random JSON text with strings that hold brackets, commas, quotes and backslashes. */
function randomJson(next: () => number, depth = 0): unknown {
  const r = next();
  if (depth > 6 || r < 0.3) {
    const scalars = [0, -1.5e3, true, false, null, '', 'a,b', '[{', '"}]\\', 'é, ]', '\\"[', 12345];
    return scalars[Math.floor(next() * scalars.length)];
  }
  const n = Math.floor(next() * 5);
  if (r < 0.65) return Array.from({ length: n }, () => randomJson(next, depth + 1));
  const o: Record<string, unknown> = {};
  for (let i = 0; i < n; i++) o[`k${i},[${i}]"`] = randomJson(next, depth + 1);
  return o;
}

describe('JSON bounds, counted on the bytes (kernel/json-bounds.ts)', () => {
  it('counts depth and values exactly as a walk of the parsed value does (seeded, 2,000 documents)', () => {
    const next = rng(20260301);
    let deepest = 0;
    for (let i = 0; i < 2000; i++) {
      const value = randomJson(next);
      const text = Buffer.from(JSON.stringify(value, null, i % 3 === 0 ? 2 : undefined));
      const { depth, values } = measure(value);
      deepest = Math.max(deepest, depth);
      expect(jsonBoundsRefusal(text, depth, values), `document ${i}`).toBeUndefined();
      if (depth > 0) expect(jsonBoundsRefusal(text, depth - 1, values), `document ${i}`).toMatch(/deeper than/);
      if (values > 1) expect(jsonBoundsRefusal(text, depth, values - 1), `document ${i}`).toMatch(/more than/);
    }
    expect(deepest).toBeGreaterThan(4); // the corpus did nest
  });
});

let h: Harness;
beforeAll(async () => {
  h = await startHarness({ areas });
});
afterAll(async () => {
  await h.close();
});

describe('no input reaches a 5xx: JSON beyond the bounds is 400 invalid_request naming the bound (spec 7)', () => {
  for (const depth of [JSON_MAX_DEPTH, 5_000, 10_000, 100_000]) {
    it(`scopes nested ${depth} deep on POST /v1/api_keys answers 400 invalid_request`, async () => {
      const body = `{"name":"deep","scopes":${nested(depth)}}`;
      const r = await h.request('POST', '/v1/api_keys', { body, idempotencyKey: `deep-${depth}` });
      expect(r.status).toBe(400);
      expect(r.body.error).toMatchObject({ code: 'invalid_request', retryable: false, message: expect.stringContaining(`deeper than ${JSON_MAX_DEPTH} levels`) });
    });
  }

  it('nesting within the bound is read and judged by the schema (validation_failed)', async () => {
    const body = `{"name":"deep","scopes":${nested(JSON_MAX_DEPTH - 1)}}`; // the outer object is level 1
    const r = await h.request('POST', '/v1/api_keys', { body, idempotencyKey: 'deep-within' });
    expect(r.status).toBe(400);
    expect(r.body.error.code).toBe('validation_failed');
  });

  it(`a body of more than ${JSON_MAX_VALUES} values answers 400 invalid_request naming the bound`, async () => {
    const body = `{"name":"many","scopes":[${'0,'.repeat(JSON_MAX_VALUES)}0]}`;
    const r = await h.request('POST', '/v1/api_keys', { body, idempotencyKey: 'many' });
    expect(r.status).toBe(400);
    expect(r.body.error).toMatchObject({ code: 'invalid_request', message: expect.stringContaining(`more than ${JSON_MAX_VALUES} JSON values`) });
  });
});
