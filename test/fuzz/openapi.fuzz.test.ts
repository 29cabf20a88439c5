/**
 * Hostile input never reaches a 5xx, a hang or a crash (spec 7: every refusal is a 4xx with a
 * code; docs/gaps.md#gateway). Driven by the committed OpenAPI document: for every operation,
 * fast-check makes requests from the operation's own schemas (path ids, queries, bodies, headers)
 * bent the way an attacker would (wrong types, odd numbers, ids 5,000 characters long, deep
 * nesting, control characters, unknown fields, bad Idempotency-Keys), sends each through a real
 * socket with a 5 s deadline, and fails on any 5xx or timeout. Bounded in count (seeded, so a
 * failure reproduces) and run over both store families.
 */
import { readFileSync } from 'node:fs';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, type Harness } from '../../support/http.ts';

type Schema = Record<string, any>;
interface Operation {
  method: string;
  path: string;
  params: string[];
  query: Record<string, Schema>;
  body?: Schema;
  idempotent: boolean;
}

const doc = JSON.parse(readFileSync(new URL('../../docs/openapi.json', import.meta.url), 'utf8'));
const cluster = process.env.TEST_STORES === 'cluster';
/** Requests per operation: about 2,400 (embedded) or 760 (cluster) in all. */
const RUNS = cluster ? 8 : 25;
const DEADLINE_MS = 5000;
const SEED = 20261123;

function resolve(s: Schema | undefined): Schema | undefined {
  if (s?.$ref) return resolve(s.$ref.split('/').slice(1).reduce((o: any, k: string) => o[k], doc));
  return s;
}

function operations(): Operation[] {
  const out: Operation[] = [];
  for (const [path, item] of Object.entries<any>(doc.paths)) {
    for (const method of ['get', 'post', 'put', 'patch', 'delete']) {
      const op = item[method];
      if (!op) continue;
      const params = [...path.matchAll(/\{(\w+)\}/g)].map((m) => m[1]);
      const query: Record<string, Schema> = {};
      for (const p of (op.parameters ?? []).map(resolve)) if (p?.in === 'query') query[p.name] = resolve(p.schema) ?? {};
      const body = resolve(op.requestBody?.content?.['application/json']?.schema);
      out.push({ method: method.toUpperCase(), path, params, query, body, idempotent: op['x-idempotency-key'] !== undefined });
    }
  }
  return out;
}

const base62 = fc.stringMatching(/^[0-9A-Za-z]{22}$/);
const nasty = fc.constantFrom('', ' ', '\u0000', '\r\n', '../../etc', '%00', '*', '>', 'a.b.c', '"\'`', '\u202e', '💥', '-1', 'null', 'NaN');
const longText = fc.integer({ min: 300, max: 5000 }).map((n) => 'x'.repeat(n));
const oddNumbers = fc.constantFrom('1.5', '1e400', '0x10', '-1', '+5', ' 5', '', '9007199254740993', 'Infinity', '0', '101', 'abc');

/** A value for a schema: mostly the right shape, often bent. */
function valueFor(s: Schema | undefined, depth = 0): fc.Arbitrary<unknown> {
  const schema = resolve(s) ?? {};
  const hostile = fc.oneof(fc.jsonValue({ maxDepth: 2 }), nasty, longText, fc.constant(null), fc.double(), fc.integer());
  if (depth > 4) return hostile;
  const options = (schema.anyOf ?? schema.oneOf) as Schema[] | undefined;
  if (options) return fc.oneof(...options.map((o) => valueFor(o, depth + 1)), hostile);
  if (schema.const !== undefined) return fc.oneof({ weight: 3, arbitrary: fc.constant(schema.const) }, { weight: 1, arbitrary: hostile });
  if (schema.enum) return fc.oneof({ weight: 3, arbitrary: fc.constantFrom(...schema.enum) }, { weight: 1, arbitrary: hostile });
  switch (schema.type) {
    case 'object': {
      const props = Object.fromEntries(Object.entries<Schema>(schema.properties ?? {}).map(([k, v]) => [k, valueFor(v, depth + 1)]));
      const shaped = fc.record(props, { requiredKeys: [] });
      return fc.oneof({ weight: 4, arbitrary: shaped }, { weight: 1, arbitrary: fc.tuple(shaped, fc.dictionary(fc.string(), fc.jsonValue({ maxDepth: 1 }), { maxKeys: 3 })).map(([a, b]) => ({ ...b, ...a })) }, { weight: 1, arbitrary: hostile });
    }
    case 'array':
      return fc.oneof({ weight: 3, arbitrary: fc.array(valueFor(schema.items, depth + 1), { maxLength: 6 }) }, { weight: 1, arbitrary: hostile });
    case 'integer':
    case 'number':
      return fc.oneof(fc.integer({ min: -5, max: 200 }), fc.constantFrom(0, -1, 1.5, 2 ** 53, -(2 ** 53), 1e300, Number.MAX_SAFE_INTEGER), hostile);
    case 'boolean':
      return fc.oneof(fc.boolean(), hostile);
    case 'string':
      if (typeof schema.pattern === 'string' && schema.pattern.startsWith('^') && /^\^[a-z_]+$/.test(schema.pattern)) {
        return fc.oneof(base62.map((r) => schema.pattern.slice(1) + r), hostile);
      }
      return fc.oneof({ weight: 3, arbitrary: fc.string({ maxLength: 40 }) }, { weight: 1, arbitrary: hostile });
    default:
      return hostile;
  }
}

/** Deep nesting in the first array or object field of a body: the validator's stack must hold. */
const deep = fc.integer({ min: 50, max: 20000 }).map((n) => '['.repeat(n) + ']'.repeat(n));

function requestFor(op: Operation): fc.Arbitrary<{ path: string; body?: string; headers: Record<string, string> }> {
  const idArb = fc.oneof(
    { weight: 2, arbitrary: fc.tuple(fc.constantFrom('run_enterprise_', 'whe_', 'api_key_', 'payslip_', 'ledger_posting_', 'pay_profile_', 'roster_entry_', 'flag_', ''), base62).map(([p, r]) => p + r) },
    { weight: 1, arbitrary: fc.string({ maxLength: 30 }) },
    { weight: 1, arbitrary: longText },
    { weight: 1, arbitrary: nasty },
  );
  const params = fc.tuple(...op.params.map(() => idArb));
  const query = fc.dictionary(
    fc.oneof(fc.constantFrom(...Object.keys(op.query), 'limit', 'starting_after'), fc.string({ maxLength: 8 })),
    fc.oneof(oddNumbers, fc.string({ maxLength: 12 }), longText, nasty),
    { maxKeys: 3 },
  );
  const body = op.method === 'GET' || op.method === 'DELETE'
    ? fc.constant(undefined)
    : fc.oneof(
        { weight: 5, arbitrary: valueFor(op.body).map((v) => JSON.stringify(v) ?? 'null') },
        { weight: 1, arbitrary: op.body?.properties ? fc.constantFrom(...Object.keys(op.body.properties)).chain((k) => deep.map((d) => `{"${k}":${d}}`)) : deep },
        { weight: 1, arbitrary: fc.constantFrom('{', '{"a":', 'null', '[]', '"x"', '1e400', '{"a":1,"a":2}', '\u0000', 'not json') },
      );
  const key = fc.oneof({ weight: 4, arbitrary: fc.uuid() }, { weight: 1, arbitrary: fc.oneof(fc.constant(''), longText, fc.constant('key with spaces'), fc.constant('cl\u00e9'), fc.string({ maxLength: 10 }).map((x) => x.replace(/[^\x20-\x7e]/g, '?'))) });
  const contentType = fc.constantFrom('application/json', 'application/json', 'application/json; charset=utf-8', 'text/plain', 'application/json; charset=latin1', 'multipart/form-data');
  return fc.tuple(params, query, body, key, contentType).map(([ps, q, b, k, ct]) => {
    let path = op.path;
    op.params.forEach((name, i) => (path = path.replace(`{${name}}`, encodeURIComponent(String(ps[i])))));
    const qs = Object.entries(q).map(([n, v]) => `${encodeURIComponent(n)}=${encodeURIComponent(v)}`).join('&');
    const headers: Record<string, string> = {};
    if (b !== undefined) headers['content-type'] = ct;
    if (op.idempotent || op.method === 'POST') headers['idempotency-key'] = k;
    return { path: qs ? `${path}?${qs}` : path, body: b, headers };
  });
}

describe('hostile input never reaches a 5xx, a hang or a crash (spec 7; docs/gaps.md#gateway)', () => {
  let h: Harness;
  const ops = operations();
  let sent = 0;

  beforeAll(async () => {
    // Webhook endpoints the fuzzer creates point anywhere; none may be reached from a test.
    h = await startHarness();
  });
  afterAll(async () => {
    await h?.close();
  });

  it('the OpenAPI document names every operation (a guard against fuzzing nothing)', () => {
    expect(ops.length).toBeGreaterThanOrEqual(90);
  });

  it.each(ops.map((op) => [`${op.method} ${op.path}`, op] as const))('%s: no 5xx, no hang', async (_name, op) => {
    const failures: string[] = [];
    await fc.assert(
      fc.asyncProperty(requestFor(op), async (req) => {
        const headers = { ...req.headers, 'service-api-key': h.key };
        let status: number;
        let text: string;
        try {
          const res = await fetch(h.url + req.path, { method: op.method, headers, body: req.body, signal: AbortSignal.timeout(DEADLINE_MS) });
          status = res.status;
          text = await res.text();
        } catch (e) {
          failures.push(`${op.method} ${req.path.slice(0, 120)}: no answer within ${DEADLINE_MS} ms (${(e as Error).name}: ${(e as Error).message} ${String((e as { cause?: unknown }).cause ?? '')})`);
          return false;
        }
        sent++;
        if (status >= 500) {
          failures.push(`${op.method} ${req.path.slice(0, 120)} body ${String(req.body).slice(0, 120)} -> ${status} ${text.slice(0, 200)}`);
          return false;
        }
        return true;
      }),
      { numRuns: RUNS, seed: SEED, endOnFailure: true },
    ).catch((e) => failures.push(String(e).split('\n').slice(0, 6).join('\n')));
    expect(failures).toEqual([]);
  });

  // Random draws rarely nest deep in exactly the field a validator recurses into, so every field of
  // every body gets a value nested 10,000 deep, once (and the body itself).
  it.each(ops.filter((op) => op.body).map((op) => [`${op.method} ${op.path}`, op] as const))('%s: a body nested 10,000 deep in any field is refused with a 4xx', async (_name, op) => {
    const nested = '['.repeat(10_000) + ']'.repeat(10_000);
    const fields = Object.keys(op.body?.properties ?? {});
    const path = op.path.replace(/\{\w+\}/g, 'x');
    for (const body of [nested, ...fields.map((f) => `{"${f}":${nested}}`)]) {
      const res = await fetch(h.url + path, {
        method: op.method, body, signal: AbortSignal.timeout(DEADLINE_MS),
        headers: { 'content-type': 'application/json', 'service-api-key': h.key, 'idempotency-key': `deep-${sent++}` },
      });
      await res.text();
      expect(res.status, `${op.method} ${path} ${body.slice(10_000, 10_040)}`).toBeLessThan(500);
    }
  });

  it('the server still answers after every operation was fuzzed (no crash)', async () => {
    expect(sent).toBeGreaterThan(ops.length * RUNS);
    const r = await h.request('GET', '/v1/openapi.json', { key: null });
    expect(r.status).toBe(200);
  });
});
