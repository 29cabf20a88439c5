/**
 * One error catalogue (spec 7; STYLE "One error catalogue"): every code the code can raise is in
 * CATALOGUE, every catalogue code is in the OpenAPI document and in docs/errors.md, and the codes
 * spec 7 names are there with the spec's status.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { CATALOGUE } from '../../kernel/index.ts';
import { currentErrors, ERRORS_DOC } from '../../scripts/write-docs.ts';
import { readTree } from './import-graph.ts';

const root = fileURLToPath(new URL('../..', import.meta.url));
const read = (p: string) => readFileSync(`${root}/${p}`, 'utf8');
const codes = new Set(Object.keys(CATALOGUE));

/** Codes written as literals where a refusal is made: an ApiError, or an error body built by hand. */
function raisedCodes(): Map<string, string[]> {
  const found = new Map<string, string[]>();
  const files = readTree(root, ['stores', 'runtime', 'kernel', 'actors', 'gateway', 'operator'], ['main.ts']);
  for (const { file } of files) {
    const src = read(file);
    for (const m of src.matchAll(/new ApiError\(\s*'([^']+)'|error: \{ code: '([^']+)'|errorFrame\(\s*'([^']+)'/g)) {
      const code = m[1] ?? m[2] ?? m[3];
      found.set(code, [...(found.get(code) ?? []), file]);
    }
  }
  return found;
}

/** Spec 7: the codes its table names (not "not named") and its "Other codes", with their status. */
function specCodes(): Map<string, number | undefined> {
  const spec = readFileSync(fileURLToPath(new URL('../../../shared/spec/interface-specification.md', import.meta.url)), 'utf8');
  const section = spec.slice(spec.indexOf('## 7. Errors'), spec.indexOf('## 8. Limits'));
  const out = new Map<string, number | undefined>();
  for (const m of section.matchAll(/^\| (\d{3}) \| ([a-z_]+) \|/gm)) out.set(m[2], Number(m[1]));
  const other = /Other codes: ([^\n]*)/.exec(section)?.[1] ?? '';
  for (const m of other.matchAll(/([a-z]+(?:_[a-z]+)+) \(/g)) if (!out.has(m[1])) out.set(m[1], undefined);
  return out;
}

describe('error catalogue (spec 7)', () => {
  it('every code raised in the code is in the catalogue (and raising was found at all)', () => {
    const raised = raisedCodes();
    expect(raised.size).toBeGreaterThan(10);
    const unknown = [...raised].filter(([c]) => !codes.has(c)).map(([c, files]) => `${c} in ${files.join(', ')}`);
    expect(unknown).toEqual([]);
  });

  it('every catalogue code is in the OpenAPI document\'s error code enumeration', () => {
    const doc = JSON.parse(read('docs/openapi.json')) as { components: { schemas: Record<string, unknown> } };
    const text = JSON.stringify(doc.components);
    const enums = [...text.matchAll(/"enum":\[([^\]]*)\]/g)].map((m) => JSON.parse(`[${m[1]}]`) as string[]);
    const errorEnum = enums.find((e) => e.includes('not_found') && e.includes('forbidden'));
    expect(errorEnum).toBeDefined();
    expect([...errorEnum!].sort()).toEqual([...codes].sort());
  });

  it('docs/errors.md lists exactly the catalogue, each code with its status (and is what npm run docs writes)', () => {
    expect(readFileSync(ERRORS_DOC, 'utf8')).toBe(currentErrors());
    const rows = [...read('docs/errors.md').matchAll(/^\| `([a-z_]+)` \| (\d{3}) \|/gm)].map((m) => [m[1], Number(m[2])] as const);
    expect(rows.map(([c]) => c).sort()).toEqual([...codes].sort());
    for (const [code, status] of rows) expect(status, code).toBe(CATALOGUE[code as keyof typeof CATALOGUE].status);
  });

  it('the codes spec 7 names are in the catalogue with the spec\'s status, and only they are marked as the spec\'s', () => {
    const named = specCodes();
    expect(named.size).toBeGreaterThanOrEqual(7);
    for (const [code, status] of named) {
      expect(codes.has(code), code).toBe(true);
      const entry = CATALOGUE[code as keyof typeof CATALOGUE];
      if (status !== undefined) expect(entry.status, code).toBe(status);
      expect(entry.spec, code).toBe(true);
    }
    const markedSpec = Object.entries(CATALOGUE).filter(([, c]) => c.spec).map(([c]) => c);
    expect(markedSpec.sort()).toEqual([...named.keys()].sort());
  });
});
