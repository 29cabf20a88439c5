/**
 * The actor protocol is typed from the definition (STYLE "One area, one template"; runtime/actor.ts
 * StateOf, PayloadOf, AnswerOf): `system.state(def, ...)` reads the kind's state type, `ask` takes
 * only the kind's commands with their payloads and answers the view, or the decider's named reply.
 * Each rule is checked by compiling a small source against the runtime face with the TypeScript
 * checker: what the protocol allows compiles, and each thing it forbids is reported at its line.
 */
import { fileURLToPath } from 'node:url';
import { join } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../..', import.meta.url));
const fixture = join(root, 'test/architecture/__typed-protocol-fixture.ts');

/** A toy kind, and calls on it; `BAD` marks a line the checker must refuse. */
const header = `
import { ActorSystem, defineActor, type Decision } from './../../runtime/index.ts';
interface ToyState { id: string; count: number }
type ToyEvent = { type: 'toy.bumped'; by: number };
const Toy = defineActor({
  kind: 'toy', prefix: 'toy_', creates: ['bump'],
  initial: (id: string): ToyState => ({ id, count: 0 }),
  decide: {
    bump: (_s: ToyState, cmd: { by: number }): ToyEvent[] => [{ type: 'toy.bumped', by: cmd.by }],
    peek: (s: ToyState) => ({ events: [] as ToyEvent[], reply: { seen: s.count } }),
    loose: (_s: ToyState): Decision<ToyEvent> => [],
  },
  evolve: (s: ToyState, e: ToyEvent): ToyState => ({ ...s, count: s.count + e.by }),
  view: (s: ToyState) => ({ object: 'toy' as const, id: s.id, count: s.count }),
});
declare const system: ActorSystem;
const opts = { org: 'org_1' };
export async function calls() {
`;

function diagnostics(body: string): { line: number; text: string }[] {
  const source = `${header}${body}\n}\n`;
  const options: ts.CompilerOptions = { target: ts.ScriptTarget.ES2022, module: ts.ModuleKind.NodeNext, moduleResolution: ts.ModuleResolutionKind.NodeNext, strict: true, noEmit: true, allowImportingTsExtensions: true, skipLibCheck: true, types: ['node'] };
  const host = ts.createCompilerHost(options);
  const read = host.readFile.bind(host);
  host.readFile = (f) => (f === fixture ? source : read(f));
  const exists = host.fileExists.bind(host);
  host.fileExists = (f) => f === fixture || exists(f);
  const getSource = host.getSourceFile.bind(host);
  host.getSourceFile = (f, lang, ...rest) => (f === fixture ? ts.createSourceFile(f, source, lang) : getSource(f, lang, ...rest));
  const program = ts.createProgram([fixture], options, host);
  const sf = program.getSourceFile(fixture)!;
  const headerLines = header.split('\n').length - 1;
  return ts.getPreEmitDiagnostics(program, sf).map((d) => ({ line: sf.getLineAndCharacterOfPosition(d.start ?? 0).line + 1 - headerLines, text: ts.flattenDiagnosticMessageText(d.messageText, ' ') }));
}

describe('typed actor protocol (runtime/actor.ts StateOf, PayloadOf, AnswerOf)', () => {
  it('state, ask and their answers type from the definition: the allowed calls compile', () => {
    const found = diagnostics(`
  const s = await system.state(Toy, 'toy_1', 'org_1');
  const n: number = s.count;
  const v = await system.ask(Toy, 'toy_1', 'bump', { by: 2 }, opts);
  const c: number = v.count;
  const r = await system.ask(Toy, 'toy_1', 'peek', undefined, opts);
  const seen: number = 'seen' in r ? r.seen : r.count;
  const named = await system.state<{ other: true }>('toy', 'toy_1', 'org_1');
  const t: true = named.other;
  return [n, c, seen, t];`);
    expect(found).toEqual([]);
  }, 60_000);

  it('a wrong command, a wrong payload, a misread state or answer, and a loose reply used as the view are refused', () => {
    const found = diagnostics(`
  await system.ask(Toy, 'toy_1', 'unknown_command', {}, opts);
  await system.ask(Toy, 'toy_1', 'bump', { by: 'two' }, opts);
  const wrong: string = (await system.state(Toy, 'toy_1', 'org_1')).count;
  const missing = (await system.ask(Toy, 'toy_1', 'bump', { by: 1 }, opts)).total;
  const loose: number = (await system.ask(Toy, 'toy_1', 'loose', undefined, opts)).count;
  return [wrong, missing, loose];`);
    // one report per line 2..6 of the body (line 1 is the blank after the template's opening)
    expect([...new Set(found.map((d) => d.line))]).toEqual([2, 3, 4, 5, 6]);
  }, 60_000);
});
