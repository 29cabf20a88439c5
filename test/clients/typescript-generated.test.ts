/**
 * The client's types are generated from docs/openapi.json (clients/typescript/scripts/generate.ts,
 * written by `npm run docs`): the committed file must be what the committed document renders, so
 * a route changed without the client fails here.
 */
import { readFileSync } from 'node:fs';
import { expect, it } from 'vitest';
import { renderClient } from '../../clients/typescript/scripts/generate.ts';

const read = (rel: string): string => readFileSync(new URL(`../../${rel}`, import.meta.url), 'utf8');

it('client - src/generated.ts is what docs/openapi.json renders (run npm run docs after changing a route)', () => {
  expect(read('clients/typescript/src/generated.ts')).toBe(renderClient(JSON.parse(read('docs/openapi.json'))));
});

it('client - every /v1 operation of the document is reachable from the resource tree', async () => {
  const doc = JSON.parse(read('docs/openapi.json')) as { paths: Record<string, Record<string, { operationId: string }>> };
  const { RESOURCE_TABLE } = await import('../../clients/typescript/src/generated.ts');
  const reached = new Set<string>();
  const walk = (t: Record<string, unknown>): void => {
    for (const v of Object.values(t)) {
      const e = v as { op?: unknown };
      if (typeof e.op === 'string') reached.add(e.op);
      else walk(v as Record<string, unknown>);
    }
  };
  walk(RESOURCE_TABLE as unknown as Record<string, unknown>);
  const ops = Object.entries(doc.paths).filter(([p]) => p.startsWith('/v1/')).flatMap(([, o]) => Object.values(o).map((op) => op.operationId));
  expect(ops.filter((op) => !reached.has(op))).toEqual([]);
  expect(reached.size).toBe(ops.length);
});
