/**
 * What an area reaches (docs/architecture.md "Adding an area", "Logs, metrics and health"; STYLE
 * "One area, one template"): an area reads the stores only through the kernel's accessors
 * (kernel/records.ts: keyValue, lists, readings, actorEvents), never `platform.stores` itself, so
 * which family serves and how it names things stay the runtime's business; and it logs through
 * the kernel's `logOf(area)`, never `console`, so every line is structured and redacted. Checked
 * on every file under actors/ by the syntax tree, and on made-up sources.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { readTree } from './import-graph.ts';

const root = fileURLToPath(new URL('../..', import.meta.url));

function reaches(file: string, src: string): string[] {
  const sf = ts.createSourceFile(file, src, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
  const out: string[] = [];
  const line = (n: ts.Node) => sf.getLineAndCharacterOfPosition(n.getStart(sf)).line + 1;
  const visit = (n: ts.Node): void => {
    if (ts.isPropertyAccessExpression(n) && n.name.text === 'stores') out.push(`${file}:${line(n)}: reads ${n.getText(sf)}; an area reads the stores through the kernel (keyValue, lists, readings, actorEvents)`);
    if (ts.isBindingElement(n) && ((n.propertyName && ts.isIdentifier(n.propertyName) && n.propertyName.text === 'stores') || (!n.propertyName && ts.isIdentifier(n.name) && n.name.text === 'stores'))) out.push(`${file}:${line(n)}: takes stores off the platform; an area reads them through the kernel`);
    if (ts.isPropertyAccessExpression(n) && ts.isIdentifier(n.expression) && n.expression.text === 'console') out.push(`${file}:${line(n)}: writes to ${n.getText(sf)}; an area logs through logOf(area)`);
    ts.forEachChild(n, visit);
  };
  visit(sf);
  return out;
}

const files = readTree(root, ['actors']).map((f) => f.file).filter((f) => f.endsWith('.ts')).sort();

describe('area boundaries (docs/architecture.md "Adding an area")', () => {
  it('the files under actors/ were read (a guard against checking nothing)', () => {
    expect(files.length).toBeGreaterThan(200);
  });

  it('no area file reads platform.stores or writes to console', () => {
    expect(files.flatMap((f) => reaches(f, readFileSync(`${root}/${f}`, 'utf8')))).toEqual([]);
  });

  it.each([
    ['a read of platform.stores', `const v = await platform.stores.kv.get('k');`],
    ['a read through this.platform', `class S { f() { return this.platform.stores.readings; } }`],
    ['stores taken off the platform', `const { stores } = platform;`],
    ['stores renamed off the platform', `const { stores: s } = req.platform;`],
    ['a console line', `console.error('[payouts] failed', e);`],
    ['a console warning', `if (bad) console.warn('refused');`],
  ])('reports a planted violation: %s', (_what, src) => {
    expect(reaches('actors/x/x.ts', src)).toHaveLength(1);
  });

  it.each([
    ['the kernel accessors', `const v = await keyValue(platform).get('k');\nconst r = await readings(platform).range(id, 0, 1);`],
    ['a log line', `logOf('payouts').error('failed', e);`],
    ['a field of another name', `const n = report.storesCount;`],
  ])('passes what the rule allows: %s', (_what, src) => {
    expect(reaches('actors/x/x.ts', src)).toEqual([]);
  });
});
