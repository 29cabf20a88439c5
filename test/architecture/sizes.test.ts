/**
 * No file does two jobs and no function hides its steps (STYLE "One area, one template"; the
 * house rules in DEVELOPERS.md): every source file under actors/, kernel/, runtime/, gateway/ and
 * stores/ is at most 450 lines, and every function at most 80, counted from the line that opens it
 * to the line that closes it, there and in every other TypeScript folder of the tree (examples,
 * clients, the load tool, the operator CLI, scripts, support, the benches and the tests) but
 * generated data. A function longer than that names
 * its steps as functions of their own. A test file's `describe` callback is a suite, a list of
 * tests, not a function with steps: it is not counted, the tests and hooks inside it are. The
 * checker reads the TypeScript syntax tree, and is also run on made-up sources to show that it
 * reports what it should.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { readTree } from './import-graph.ts';

const root = fileURLToPath(new URL('../..', import.meta.url));
const FOLDERS = ['actors', 'kernel', 'runtime', 'gateway', 'stores'];
/** Where functions are held to their length too (files there may be longer). */
const FUNCTION_FOLDERS = ['bench', 'examples', 'clients', 'load', 'operator', 'scripts', 'support', 'test'];
/** Data written by a generator, not by hand. */
const GENERATED = new Set(['clients/typescript/src/generated.ts']);
const MAX_FILE_LINES = 450;
const MAX_FUNCTION_LINES = 80;

/** A suite's callback: `describe(...)`, `describe.each(...)(...)`, `describe.runIf(...)(...)` and the like. */
function isSuite(n: ts.Node, sf: ts.SourceFile): boolean {
  return ts.isCallExpression(n.parent) && n.parent.arguments.includes(n as ts.Expression) && /^describe\b/.test(n.parent.expression.getText(sf));
}

/** What is too long in one source: the file itself (where `files` holds), and each function by its first line. */
function oversize(file: string, src: string, files = true): string[] {
  const out: string[] = [];
  const lines = src.endsWith('\n') ? src.split('\n').length - 1 : src.split('\n').length;
  if (files && lines > MAX_FILE_LINES) out.push(`${file}: ${lines} lines`);
  const sf = ts.createSourceFile(file, src, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
  const visit = (n: ts.Node): void => {
    if (ts.isFunctionLike(n) && 'body' in n && n.body && !isSuite(n, sf)) {
      const first = sf.getLineAndCharacterOfPosition(n.getStart(sf)).line;
      const last = sf.getLineAndCharacterOfPosition(n.end).line;
      if (last - first + 1 > MAX_FUNCTION_LINES) {
        const name = (n as ts.FunctionLikeDeclaration).name?.getText(sf) ?? '(anonymous)';
        out.push(`${file}:${first + 1} ${name}: ${last - first + 1} lines`);
      }
    }
    ts.forEachChild(n, visit);
  };
  visit(sf);
  return out;
}

describe('sizes (STYLE "One area, one template")', () => {
  const files = readTree(root, FOLDERS).filter(({ file }) => file.endsWith('.ts'));

  it('the tree was read (a guard against checking nothing)', () => {
    expect(files.length).toBeGreaterThan(200);
  });

  it(`no source file is over ${MAX_FILE_LINES} lines and no function over ${MAX_FUNCTION_LINES}`, () => {
    expect(files.flatMap(({ file }) => oversize(file, readFileSync(`${root}/${file}`, 'utf8')))).toEqual([]);
  });

  it(`no function over ${MAX_FUNCTION_LINES} lines in the rest of the tree (tests, benches, examples, clients, tools), generated data aside`, () => {
    const rest = readTree(root, FUNCTION_FOLDERS).filter(({ file }) => !GENERATED.has(file));
    expect(rest.length).toBeGreaterThan(200);
    expect(rest.flatMap(({ file }) => oversize(file, readFileSync(`${root}/${file}`, 'utf8'), false))).toEqual([]);
  });

  it('the checker reports a long file, a long function, method and arrow, and passes short ones', () => {
    const body = (n: number) => Array.from({ length: n }, (_, i) => `  x += ${i};`).join('\n');
    const src = [
      `function short() {\n  let x = 0;\n${body(70)}\n  return x;\n}`,
      `function long() {\n  let x = 0;\n${body(80)}\n  return x;\n}`,
      `class C {\n  method() {\n    let x = 0;\n${body(79)}\n  }\n}`,
      `const arrow = () => {\n  let x = 0;\n${body(79)}\n};`,
      body(200),
    ].join('\n');
    const found = oversize('planted.ts', src);
    expect(found).toHaveLength(4);
    expect(found[0]).toMatch(/^planted\.ts: \d+ lines$/);
    expect(found.slice(1).map((f) => f.split(' ')[1])).toEqual(['long:', 'method:', '(anonymous):']);
  });

  it('the checker passes a long describe callback but reports a long test inside it; outside the five folders a long file passes', () => {
    const body = (n: number) => Array.from({ length: n }, (_, i) => `    x += ${i};`).join('\n');
    const shortTest = `  it('short', () => {\n    let x = 0;\n${body(40)}\n  });`;
    const longTest = `  it('long', () => {\n    let x = 0;\n${body(80)}\n  });`;
    const suite = (tests: string[]) => `describe('suite', () => {\n${tests.join('\n')}\n});`;
    expect(oversize('planted.test.ts', suite([shortTest, shortTest, shortTest]), false)).toEqual([]);
    expect(oversize('planted.test.ts', `describe.runIf(true)('suite', () => {\n${[shortTest, shortTest, shortTest].join('\n')}\n});`, false)).toEqual([]);
    const found = oversize('planted.test.ts', suite([shortTest, longTest]), false);
    expect(found).toHaveLength(1);
    expect(found[0]).toMatch(/^planted\.test\.ts:\d+ \(anonymous\): \d+ lines$/);
    expect(oversize('planted.ts', body(500), false)).toEqual([]);
    expect(oversize('planted.ts', body(500))).toHaveLength(1);
  });
});
