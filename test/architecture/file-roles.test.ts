/**
 * The file roles of the area template (docs/architecture.md "Adding an area"; STYLE "One area, one
 * template"): `<actor>.ts` holds one actor, `<actor>s.ts` its operations, and a route file declares
 * routes and calls those operations. So a route file never asks an actor or reads an actor's state
 * itself, and takes nothing but types from the runtime face. Checked on every route file under
 * actors/, and on made-up sources to show each rule reports what it should.
 *
 * A route file is `routes.ts`, `<name>-routes.ts`, or any file under a `routes/` folder. The
 * checkers read the TypeScript syntax tree, so comments, strings and unrelated `state` properties
 * (an identity source's `s.state()`) are not mistaken for calls on the actor system.
 */
import { readFileSync } from 'node:fs';
import { posix } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { readTree } from './import-graph.ts';

const root = fileURLToPath(new URL('../..', import.meta.url));

/** routes.ts, <name>-routes.ts, or a file under a routes/ folder, inside actors/. */
const isRouteFile = (file: string): boolean =>
  file.startsWith('actors/') && file.endsWith('.ts') && (/(^|\/)routes\.ts$/.test(file) || /-routes\.ts$/.test(file) || /\/routes\//.test(file));

const sourceOf = (file: string, src: string) => ts.createSourceFile(file, src, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
const lineOf = (sf: ts.SourceFile, node: ts.Node) => sf.getLineAndCharacterOfPosition(node.getStart(sf)).line + 1;

function walk(node: ts.Node, visit: (n: ts.Node) => void): void {
  visit(node);
  ts.forEachChild(node, (c) => walk(c, visit));
}

/** An expression with its parentheses, `!` and `as` casts taken off. */
function bare(e: ts.Expression): ts.Expression {
  while (ts.isParenthesizedExpression(e) || ts.isNonNullExpression(e) || ts.isAsExpression(e)) e = e.expression;
  return e;
}

/** The name a property access or a `['name']` element access reaches, if it is written out. */
function memberName(e: ts.Expression): string | undefined {
  if (ts.isPropertyAccessExpression(e)) return e.name.text;
  if (ts.isElementAccessExpression(e) && ts.isStringLiteralLike(e.argumentExpression)) return e.argumentExpression.text;
  return undefined;
}

/**
 * The names the file gives the actor system: `system` (the platform's field, as route files reach
 * it: `req.platform.system`, `const { system } = req.platform`), a variable set to it, a renamed
 * destructuring of it, and a parameter typed ActorSystem (the runtime face's class).
 */
function systemNames(sf: ts.SourceFile): Set<string> {
  const names = new Set(['system']);
  const isSystemExpr = (e: ts.Expression | undefined): boolean => {
    if (!e) return false;
    const b = bare(e);
    return (ts.isIdentifier(b) && names.has(b.text)) || memberName(b) === 'system';
  };
  let grew = true;
  while (grew) {
    const before = names.size;
    walk(sf, (n) => {
      if (ts.isVariableDeclaration(n) && ts.isIdentifier(n.name) && isSystemExpr(n.initializer)) names.add(n.name.text);
      if (ts.isVariableDeclaration(n) && ts.isObjectBindingPattern(n.name)) {
        for (const el of n.name.elements) {
          const prop = el.propertyName && ts.isIdentifier(el.propertyName) ? el.propertyName.text : ts.isIdentifier(el.name) ? el.name.text : undefined;
          if (prop === 'system' && ts.isIdentifier(el.name)) names.add(el.name.text);
        }
      }
      if (ts.isParameter(n) && ts.isIdentifier(n.name) && n.type && ts.isTypeReferenceNode(n.type) && ts.isIdentifier(n.type.typeName) && n.type.typeName.text === 'ActorSystem') names.add(n.name.text);
    });
    grew = names.size > before;
  }
  return names;
}

/**
 * Rule: a route file never calls an actor. It reports every `.ask(` call (whatever it is called on),
 * and every reach of `ask` or `state` off the actor system: `system.state(...)`, an alias's
 * `.state(...)`, or `const { ask, state } = system`.
 */
function actorCalls(file: string, src: string): string[] {
  const sf = sourceOf(file, src);
  const names = systemNames(sf);
  const isSystem = (e: ts.Expression): boolean => {
    const b = bare(e);
    return (ts.isIdentifier(b) && names.has(b.text)) || memberName(b) === 'system';
  };
  const out: string[] = [];
  walk(sf, (n) => {
    if (ts.isCallExpression(n)) {
      const callee = bare(n.expression);
      const name = memberName(callee);
      if (name === 'ask') out.push(`${file}:${lineOf(sf, n)}: asks an actor (${callee.getText(sf)}); a route calls an operation that asks`);
      else if (name === 'state' && isSystem((callee as ts.PropertyAccessExpression | ts.ElementAccessExpression).expression)) {
        out.push(`${file}:${lineOf(sf, n)}: reads an actor's state (${callee.getText(sf)}); a route calls an operation that reads it`);
      }
    }
    if (ts.isVariableDeclaration(n) && ts.isObjectBindingPattern(n.name) && n.initializer && isSystem(n.initializer)) {
      for (const el of n.name.elements) {
        const prop = el.propertyName && ts.isIdentifier(el.propertyName) ? el.propertyName.text : ts.isIdentifier(el.name) ? el.name.text : undefined;
        if (prop === 'ask' || prop === 'state') out.push(`${file}:${lineOf(sf, el)}: takes ${prop} off the actor system; a route calls an operation instead`);
      }
    }
  });
  return out;
}

const intoRuntime = (file: string, spec: string): boolean => {
  if (!spec.startsWith('.')) return false;
  const to = posix.normalize(posix.join(posix.dirname(file), spec));
  return to === 'runtime/index.ts' || to.startsWith('runtime/');
};

/** True where every name of an import or export clause is a type. */
function onlyTypes(n: ts.ImportDeclaration | ts.ExportDeclaration): boolean {
  if (ts.isImportDeclaration(n)) {
    const clause = n.importClause;
    if (!clause) return false; // a bare import runs the module
    if (clause.isTypeOnly) return true;
    if (clause.name) return false;
    const b = clause.namedBindings;
    return !!b && ts.isNamedImports(b) && b.elements.every((e) => e.isTypeOnly);
  }
  if (n.isTypeOnly) return true;
  const c = n.exportClause;
  return !!c && ts.isNamedExports(c) && c.elements.every((e) => e.isTypeOnly);
}

/**
 * Rule: a route file takes only types from the runtime face. It reports every import or re-export
 * from runtime/ that brings a value (named, default, namespace, bare or dynamic); `import type`,
 * `import { type X }` and `import('...').X` in a type are types.
 */
function runtimeValueImports(file: string, src: string): string[] {
  const sf = sourceOf(file, src);
  const out: string[] = [];
  walk(sf, (n) => {
    if ((ts.isImportDeclaration(n) || ts.isExportDeclaration(n)) && n.moduleSpecifier && ts.isStringLiteralLike(n.moduleSpecifier)) {
      if (intoRuntime(file, n.moduleSpecifier.text) && !onlyTypes(n)) out.push(`${file}:${lineOf(sf, n)}: takes a value from the runtime (${n.moduleSpecifier.text}); a route file takes types only`);
    }
    if (ts.isCallExpression(n) && n.expression.kind === ts.SyntaxKind.ImportKeyword) {
      const [arg] = n.arguments;
      if (arg && ts.isStringLiteralLike(arg) && intoRuntime(file, arg.text)) out.push(`${file}:${lineOf(sf, n)}: imports the runtime at run time (${arg.text}); a route file takes types only`);
    }
  });
  return out;
}

const routeFiles = readTree(root, ['actors']).map((f) => f.file).filter(isRouteFile).sort();
const read = (file: string) => readFileSync(`${root}/${file}`, 'utf8');

describe('file roles of the area template (docs/architecture.md "Adding an area"; STYLE "One area, one template")', () => {
  it('the route files under actors/ were found, one or more per area (a guard against checking nothing)', () => {
    expect(routeFiles.length).toBeGreaterThan(10);
    expect(routeFiles).toEqual(expect.arrayContaining(['actors/payroll/routes.ts', 'actors/allocation/work-orders/routes.ts', 'actors/remittance/authorities/routes.ts']));
  });

  it.each(routeFiles)('%s - routes.ts declares routes and calls operations: it never asks an actor nor reads its state (docs/architecture.md "Adding an area"; STYLE "One area, one template")', (file) => {
    expect(actorCalls(file, read(file))).toEqual([]);
  });

  it.each(routeFiles)('%s - routes.ts declares routes and calls operations: it takes only types from the runtime face (docs/architecture.md "Adding an area"; STYLE "One area, one template")', (file) => {
    expect(runtimeValueImports(file, read(file))).toEqual([]);
  });

  it('a route file is routes.ts, <name>-routes.ts or a file under routes/; an actor file or an operations file is not', () => {
    for (const f of ['actors/payroll/routes.ts', 'actors/allocation/dispatch-routes.ts', 'actors/remittance/remit/routes.ts', 'actors/payroll/routes/runs.ts']) expect(isRouteFile(f), f).toBe(true);
    for (const f of ['actors/payroll/runs/run.ts', 'actors/payouts/route-plans.ts', 'actors/payouts/route-plan.ts', 'actors/x/reroutes.ts', 'actors/x/routes-table.ts', 'gateway/router.ts']) expect(isRouteFile(f), f).toBe(false);
  });

  const route = (body: string) => `import { callerOf, idOf, listPage, route } from '../../kernel/index.ts';\n${body}\n`;

  it.each([
    ['an ask on the platform\'s system', route(`export const r = route({ handler: (req) => req.platform.system.ask(Run, idOf(req.params.run_id), 'approve', {}, callerOf(req)) });`)],
    ['an ask on the destructured system', route(`async function h(req) {\n  const { system } = req.platform;\n  return system.ask(Run, 'run_1', 'approve', {}, callerOf(req));\n}`)],
    ['an ask with a type argument', route(`const h = (req) => req.platform.system.ask<typeof Run, 'approve'>(Run, 'run_1', 'approve', {}, callerOf(req));`)],
    ['an ask on anything else', route(`const h = (req) => runs(req.platform).ask('run_1', 'approve');`)],
    ['a read of an actor\'s state', route(`const h = (req) => req.platform.system.state<RunState>(Run, 'run_1', req.org);`)],
    ['a read of state through an alias of the system', route(`async function h(req) {\n  const actors = req.platform.system;\n  return actors.state(Run, 'run_1', req.org);\n}`)],
    ['a read of state through a renamed destructuring', route(`async function h(req) {\n  const { system: sys } = req.platform;\n  return sys?.state(Run, 'run_1', req.org);\n}`)],
    ['a read of state through a parameter typed ActorSystem', route(`const load = (s: ActorSystem, org: string) => s.state(Run, 'run_1', org);`)],
    ['ask taken off the system', route(`const h = (req) => {\n  const { ask } = req.platform.system;\n  return ask(Run, 'run_1', 'approve', {}, callerOf(req));\n};`)],
  ])('the rule "a route file never calls an actor" reports a planted violation: %s', (_what, src) => {
    expect(actorCalls('actors/x/routes.ts', src)).toHaveLength(1);
  });

  it('the rule "a route file never calls an actor" names the file and line of each call', () => {
    const src = route(`const a = (req) => req.platform.system.ask(Run, 'run_1', 'approve', {}, callerOf(req));\nconst b = (req) => req.platform.system.state(Run, 'run_1', req.org);`);
    expect(actorCalls('actors/x/routes.ts', src)).toEqual([
      'actors/x/routes.ts:2: asks an actor (req.platform.system.ask); a route calls an operation that asks',
      'actors/x/routes.ts:3: reads an actor\'s state (req.platform.system.state); a route calls an operation that reads it',
    ]);
  });

  it.each([
    ['an operation called with the platform', route(`const h = (req) => approveRun(req.platform, callerOf(req), idOf(req.params.run_id));`)],
    ['reads the runtime face leaves to routes: get and lists', route(`const g = (req) => req.platform.system.get(Run, 'run_1', req.org);\nconst l = (req) => listPage(req.platform.system, Run, req.org, 'all', req.query, 'desc');`)],
    ['a state that is not an actor\'s (an identity source\'s)', route(`const h = (req) => sources(req.platform).map((s) => ({ id: s.id, state: s.state() }));`)],
    ['a local helper named ask', route(`const ask = (req) => ({ ...callerOf(req) });\nconst h = (req) => fail(req.platform, ask(req));`)],
    ['a state property read', route(`const h = (run) => run.state === 'approved';`)],
    ['the words in a comment or a string', route(`// routes never call req.platform.system.ask(Run, ...) nor system.state(Run, ...)\nconst s = 'system.ask(Run) and system.state(Run)';\nconst t = \`\${s} system.state(x)\`;`)],
  ])('the rule "a route file never calls an actor" leaves alone: %s', (_what, src) => {
    expect(actorCalls('actors/x/routes.ts', src)).toEqual([]);
  });

  it.each([
    ['a named value', `import { defineActor } from '../../runtime/index.ts';`],
    ['a value beside a type', `import { iso, type ActorSystem } from '../../runtime/index.ts';`],
    ['a namespace', `import * as runtime from '../../runtime/index.ts';`],
    ['a bare import', `import '../../runtime/index.ts';`],
    ['a re-export of a value', `export { iso } from '../../runtime/index.ts';`],
    ['a file past the face', `import { ActorSystem } from '../../runtime/system.ts';`],
    ['a dynamic import', `const h = async () => (await import('../../runtime/index.ts')).iso(0);`],
  ])('the rule "a route file takes only types from the runtime face" reports a planted violation: %s', (_what, src) => {
    expect(runtimeValueImports('actors/x/routes.ts', src)).toHaveLength(1);
  });

  it('the rule "a route file takes only types from the runtime face" resolves the path from a family\'s sub-folder', () => {
    expect(runtimeValueImports('actors/remittance/authorities/routes.ts', `import { iso } from '../../../runtime/index.ts';`)).toEqual([
      'actors/remittance/authorities/routes.ts:1: takes a value from the runtime (../../../runtime/index.ts); a route file takes types only',
    ]);
  });

  it.each([
    ['import type', `import type { ActorSystem, AskOptions } from '../../runtime/index.ts';`],
    ['types named one by one', `import { type ActorSystem, type AskOptions } from '../../runtime/index.ts';`],
    ['a type re-exported', `export type { AskOptions } from '../../runtime/index.ts';`],
    ['an import type in a type position', `type S = import('../../runtime/index.ts').ActorSystem;`],
    ['values from the kernel face', `import { callerOf, idOf } from '../../kernel/index.ts';`],
  ])('the rule "a route file takes only types from the runtime face" leaves alone: %s', (_what, src) => {
    expect(runtimeValueImports('actors/x/routes.ts', src)).toEqual([]);
  });
});
