/**
 * Every enumerated request field of every route refuses an unknown value naming the values allowed
 * (spec 2.1 ValidationReport: each entry says what was wrong with its field; spec 7
 * validation_failed; docs/gaps.md "Enumerated values"). The walk covers each area's body and query
 * schemas, through objects, lists, records and unions (a nullable object, an object-or-list field),
 * and finds every union of literals (an enumOf, a literal union declared by hand, a nullable
 * enumeration) and every single literal; each is refused through the gateway's validator.
 */
import { Kind, type TSchema } from '@sinclair/typebox';
import { describe, expect, it } from 'vitest';
import { areas } from '../../actors/index.ts';
import { allowedValues, assertValid, compile, parseQuery } from '../../gateway/validate.ts';
import { isApiError } from '../../kernel/index.ts';

const BOGUS = 'not_a_listed_value';

interface Probe {
  route: string;
  field: string;
  value: unknown;
  allowed: unknown[];
}

type S = TSchema & { anyOf?: TSchema[]; allOf?: TSchema[]; properties?: Record<string, TSchema>; items?: TSchema; patternProperties?: Record<string, TSchema>; type?: unknown };

/** Each enumeration under `schema`, with a value that holds BOGUS there and nothing else. */
function* enumerations(schema: S, pointer: string, wrap: (v: unknown) => unknown): Generator<Omit<Probe, 'route'>> {
  const allowed = allowedValues(schema);
  if (allowed !== undefined) {
    yield { field: pointer, value: wrap(BOGUS), allowed };
    return;
  }
  for (const v of schema.anyOf ?? []) yield* enumerations(v as S, pointer, wrap);
  for (const v of schema.allOf ?? []) yield* enumerations(v as S, pointer, wrap);
  for (const [k, v] of Object.entries(schema.properties ?? {})) yield* enumerations(v as S, `${pointer}/${k}`, (x) => wrap({ [k]: x }));
  for (const v of Object.values(schema.patternProperties ?? {})) yield* enumerations(v as S, `${pointer}/k`, (x) => wrap({ k: x }));
  if (schema.type === 'array' && schema.items) yield* enumerations(schema.items as S, `${pointer}/0`, (x) => wrap([x]));
}

function probes(kind: 'body' | 'query'): Probe[] {
  const out: Probe[] = [];
  for (const area of areas) {
    for (const r of area.routes) {
      const schema = r[kind];
      // an Unknown body is documented only and checked by the area itself (heartbeats: parseBatch)
      if (!schema || schema[Kind] === 'Unknown') continue;
      for (const p of enumerations(schema as S, '', (v) => v)) out.push({ route: `${r.method} ${r.path}`, ...p });
    }
  }
  return out;
}

function refusal(run: () => unknown): { code: string; entries: { field: string; detail: string }[] } | undefined {
  try {
    run();
    return undefined;
  } catch (e) {
    if (!isApiError(e)) throw e;
    return { code: e.code, entries: ((e.details as { validation?: { entries: { field: string; detail: string }[] } })?.validation?.entries) ?? [] };
  }
}

describe('every enumerated request field names its allowed values when refused (spec 2.1, 7)', () => {
  const bodies = probes('body');
  const queries = probes('query').filter((p) => /^\/[^/]+$/.test(p.field));

  it('the walk finds the enumerations of every area (guard against an empty comparison)', () => {
    const routes = new Set([...bodies, ...queries].map((p) => p.route.split('/')[2]));
    expect(bodies.length).toBeGreaterThan(40);
    expect(queries.length).toBeGreaterThan(20);
    for (const a of ['identity', 'rail', 'sourcing', 'credentials', 'payroll', 'allocation', 'payouts', 'remittance']) expect(routes).toContain(a);
  });

  it('a body with an unknown value at any enumerated field is refused naming every allowed value, never "Expected union value"', () => {
    const wrong: string[] = [];
    const compiled = new Map<TSchema, ReturnType<typeof compile>>();
    for (const p of bodies) {
      const schema = areas.flatMap((a) => a.routes).find((r) => `${r.method} ${r.path}` === p.route)!.body!;
      const v = compiled.get(schema) ?? compiled.set(schema, compile(schema)).get(schema)!;
      const r = refusal(() => assertValid(v, p.value));
      const entry = r?.entries.find((e) => e.field === p.field);
      const names = entry !== undefined && p.allowed.every((a) => entry.detail.includes(JSON.stringify(a))) && !entry.detail.includes('Expected union value');
      if (!names) wrong.push(`${p.route} ${p.field}: ${entry?.detail ?? JSON.stringify(r?.entries.map((e) => `${e.field} ${e.detail}`))}`);
    }
    expect(wrong).toEqual([]);
  });

  it('a query with an unknown value at any enumerated filter is refused naming every allowed value', () => {
    const wrong: string[] = [];
    for (const p of queries) {
      const schema = areas.flatMap((a) => a.routes).find((r) => `${r.method} ${r.path}` === p.route)!.query!;
      const r = refusal(() => parseQuery(compile(schema), `${p.field.slice(1)}=${BOGUS}`));
      const entry = r?.entries.find((e) => e.field === `/query${p.field}`);
      const names = entry !== undefined && p.allowed.filter((a) => a !== null).every((a) => entry.detail.includes(JSON.stringify(a))) && !entry.detail.includes('Expected union value');
      if (!names) wrong.push(`${p.route} ${p.field}: ${entry?.detail ?? JSON.stringify(r?.entries)}`);
    }
    expect(wrong).toEqual([]);
  });
});
