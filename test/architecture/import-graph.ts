/**
 * The import graph of the tree and the layering rules it must keep (DESIGN "Top level";
 * docs/architecture.md). Pure functions over `{ file, imports }` so the rules can be tried on a
 * made-up graph as well as on the tree.
 */
import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { join, posix, relative } from 'node:path';

export interface SourceFile {
  /** Repository-relative path, forward slashes. */
  file: string;
  /** Repository-relative paths of the project files it imports (type-only imports included), and bare package names. */
  imports: string[];
}

const IMPORT = /(?:^|[;\s])(?:import|export)\s+(?:type\s+)?(?:[\w*${}\s,]+?\s+from\s+)?['"]([^'"]+)['"]|import\(\s*['"]([^'"]+)['"]\s*\)/g;

/** Every `.ts` file under `dirs` (and the given top-level files), with what it imports. */
export function readTree(root: string, dirs: string[], files: string[] = []): SourceFile[] {
  const out: SourceFile[] = [];
  const visit = (abs: string) => {
    for (const name of readdirSync(abs)) {
      if (name === 'node_modules' || name.startsWith('.')) continue;
      const p = join(abs, name);
      if (statSync(p).isDirectory()) visit(p);
      else if (name.endsWith('.ts')) out.push(parse(root, relative(root, p).split('\\').join('/')));
    }
  };
  for (const d of dirs) if (existsSync(join(root, d))) visit(join(root, d));
  for (const f of files) out.push(parse(root, f));
  return out;
}

function parse(root: string, file: string): SourceFile {
  const src = readFileSync(join(root, file), 'utf8').replace(/\/\*[\s\S]*?\*\//g, '').replace(/^\s*\/\/.*$/gm, '');
  const imports: string[] = [];
  for (const m of src.matchAll(IMPORT)) {
    const spec = m[1] ?? m[2];
    imports.push(spec.startsWith('.') ? posix.normalize(posix.join(posix.dirname(file), spec)) : spec);
  }
  return { file, imports };
}

const FACES = new Set(['kernel/index.ts', 'runtime/index.ts', 'runtime/cluster/index.ts', 'stores/index.ts', 'gateway/index.ts', 'actors/index.ts']);
const areaOf = (p: string): string | undefined => (p.startsWith('actors/') && p.split('/').length > 2 ? p.split('/')[1] : undefined);
const isAreaFace = (p: string): boolean => /^actors\/[^/]+\/index\.ts$/.test(p);
const isFace = (p: string): boolean => FACES.has(p) || isAreaFace(p);
const within = (p: string, dir: string): boolean => p.startsWith(dir + '/');
/** The client libraries' public faces, and the generator that writes the TypeScript client's types (npm run docs). */
const CLIENT_FACES = new Set(['clients/typescript/src/index.ts', 'clients/device/src/index.ts']);
const CLIENT_GENERATOR = 'clients/typescript/scripts/generate.ts';
const packageOf = (p: string): string | undefined => (within(p, 'clients') ? p.split('/').slice(0, 2).join('/') : undefined);

/** Why `from` may not import `to`, or undefined when it may. Only project files (relative imports) are judged here. */
export function refusal(from: string, to: string): string | undefined {
  if (within(to, 'test') && !within(from, 'test')) return 'nothing outside test/ imports test/';
  if (within(from, 'test')) return undefined; // a test may open up what it checks
  if (within(from, 'stores')) return within(to, 'stores') ? undefined : 'stores/ imports nothing of ours';
  if (within(from, 'kernel/base')) return within(to, 'kernel/base') ? undefined : 'kernel/base/ imports nothing of ours';
  if (within(from, 'runtime')) {
    if (within(to, 'runtime') || to === 'stores/index.ts' || to === 'kernel/base/index.ts') return undefined;
    return 'runtime/ imports only itself, stores/index.ts and kernel/base/index.ts';
  }
  if (within(from, 'kernel')) {
    if (within(to, 'kernel') || to === 'runtime/index.ts' || to === 'stores/index.ts') return undefined;
    return 'kernel/ imports only itself, runtime/index.ts and stores/index.ts';
  }
  const area = areaOf(from);
  if (area !== undefined) {
    if (areaOf(to) === area) return undefined;
    if (isAreaFace(to)) return undefined;
    if (to === 'kernel/index.ts' || to === 'runtime/index.ts' || to === 'stores/index.ts') return undefined;
    return `actors/${area}/ imports the kernel, the runtime, the stores and other areas only through their faces`;
  }
  if (from === 'actors/index.ts') return isAreaFace(to) || to === 'kernel/index.ts' ? undefined : 'actors/index.ts lists the areas through their faces';
  if (within(from, 'gateway')) {
    if (within(to, 'gateway') || to === 'kernel/index.ts' || to === 'runtime/index.ts' || to === 'stores/index.ts') return undefined;
    return 'gateway/ knows areas only through the kernel (platform.areas), and the rest through faces';
  }
  if (within(from, 'bench') || within(from, 'support')) {
    if (within(to, 'bench') || within(to, 'support') || isFace(to)) return undefined;
    return 'bench/ uses the platform only through faces';
  }
  // clients/<name>/ is published alone (its own package.json): it imports nothing outside itself
  if (within(from, 'clients')) return packageOf(to) === packageOf(from) ? undefined : 'a client library imports only its own package (it is published alone)';
  // load/ (npm run load) is a client of a running deployment: it imports nothing of the platform,
  // and calls it through the client libraries' faces
  if (within(from, 'load')) return within(to, 'load') || CLIENT_FACES.has(to) ? undefined : 'load/ is a client of a running deployment: it imports only itself and the client libraries';
  // examples/ are a user's scripts against a running platform: the client libraries only
  if (within(from, 'examples')) return CLIENT_FACES.has(to) ? undefined : 'examples/ are a user\'s scripts: they import only the client libraries\' faces';
  if (to === CLIENT_GENERATOR) return within(from, 'scripts') ? undefined : 'only scripts/ runs the client generator';
  if (within(to, 'clients')) return 'only load/, examples/ and tests use the client libraries';
  if (within(to, 'load')) return 'only load/ imports load/';
  if (within(to, 'bench')) return 'only bench/ imports bench/';
  if (within(to, 'scripts') && !within(from, 'scripts')) return 'nothing but tests imports scripts/';
  // main.ts, operator/, scripts/: composition and tools, through faces
  if (within(to, 'operator') && (from === 'main.ts' || within(from, 'operator'))) return undefined;
  return isFace(to) ? undefined : `${from.split('/')[0]} uses the platform only through faces`;
}

/** Every import that breaks a layering rule. */
export function violations(files: SourceFile[]): string[] {
  const out: string[] = [];
  for (const f of files) {
    for (const to of f.imports) {
      if (!to.includes('/') || !to.endsWith('.ts')) continue; // a package
      const why = refusal(f.file, to);
      if (why) out.push(`${f.file} -> ${to}: ${why}`);
    }
  }
  return out;
}

/** Files that import a package, other than those allowed to. */
export function packageImporters(files: SourceFile[], pkg: string): string[] {
  return files.filter((f) => f.imports.some((i) => i === pkg || i.startsWith(pkg + '/'))).map((f) => f.file);
}

/** Every import cycle among `files` (type-only imports count), each as its files in order. */
export function cycles(files: SourceFile[]): string[][] {
  const graph = new Map(files.map((f) => [f.file, f.imports.filter((i) => i.endsWith('.ts'))]));
  const state = new Map<string, 1 | 2>(); // 1: on the stack, 2: done
  const stack: string[] = [];
  const found: string[][] = [];
  const visit = (n: string) => {
    state.set(n, 1);
    stack.push(n);
    for (const m of graph.get(n) ?? []) {
      if (!graph.has(m)) continue;
      const s = state.get(m);
      if (s === 1) found.push([...stack.slice(stack.indexOf(m)), m]);
      else if (s === undefined) visit(m);
    }
    stack.pop();
    state.set(n, 2);
  };
  for (const n of graph.keys()) if (!state.has(n)) visit(n);
  return found;
}
