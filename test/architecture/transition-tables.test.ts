/**
 * Every actor file opens with its transition table, and the table and `decide` name the same
 * commands (STYLE "One actor, one file, read top to bottom": decide follows the table one to one;
 * "One area, one template"). The kinds come from the areas the platform mounts; each is found in
 * the file under actors/ whose defineActor names it. The checker is also run on a made-up header
 * to show it reports what it should.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { areas } from '../../actors/index.ts';
import { readTree } from './import-graph.ts';
import { parseHeader, tableViolations } from './transition-table.ts';

const root = fileURLToPath(new URL('../..', import.meta.url));
const kinds = areas.flatMap((a) => a.kinds);

/** kind -> the files under actors/ whose defineActor names it. */
function definingFiles(): Map<string, { file: string; src: string }[]> {
  const out = new Map<string, { file: string; src: string }[]>();
  for (const { file } of readTree(root, ['actors'])) {
    const src = readFileSync(`${root}/${file}`, 'utf8');
    for (const m of src.matchAll(/defineActor(?:<[^>]*>)?\(\{\s*kind: '([^']+)'/g)) out.set(m[1], [...(out.get(m[1]) ?? []), { file, src }]);
  }
  return out;
}
const files = definingFiles();

describe('transition tables (STYLE "One actor, one file, read top to bottom")', () => {
  it('the areas were read and every kind is defined in exactly one file under actors/ (a guard against checking nothing)', () => {
    expect(kinds.length).toBeGreaterThan(50);
    expect(kinds.filter((k) => files.get(k.kind)?.length !== 1).map((k) => `${k.kind}: ${files.get(k.kind)?.map((f) => f.file).join(', ') ?? 'no file'}`)).toEqual([]);
  });

  it('every defineActor under actors/ is a kind some area mounts', () => {
    const mounted = new Set(kinds.map((k) => k.kind));
    expect([...files.keys()].filter((k) => !mounted.has(k))).toEqual([]);
  });

  it('every actor file opens with a table whose commands are exactly the keys of its decide', () => {
    const found = kinds.flatMap((k) => {
      const [f] = files.get(k.kind) ?? [];
      return f ? tableViolations(f.file, f.src, Object.keys(k.decide)).map((v) => `${k.kind}: ${v}`) : [];
    });
    expect(found).toEqual([]);
  });

  const fixture = (table: string) => `/**\n * A made-up kind.\n *\n${table.split('\n').map((l) => ` * ${l}`.trimEnd()).join('\n')}\n */\nexport const x = 1;\n`;
  const TABLE = [
    'status  command         condition  event          next',
    '------  --------------  ---------  -------------  ------',
    '(none)  open            -          thing.opened   open',
    'open    close (timer)   -          thing.closed   closed',
    'open    rename, retag   -          thing.renamed  open',
    'closed  polish          -          thing.shone    closed',
    '                        continued',
    'closed  any             -          409 conflict',
  ].join('\n');

  it('the checker reads commands, notes, lists and continuation lines from a table', () => {
    expect(parseHeader(fixture(TABLE)).rows.map((r) => r.commands)).toEqual([['open'], ['close'], ['rename', 'retag'], ['polish'], ['any']]);
    expect(tableViolations('x.ts', fixture(TABLE), ['open', 'close', 'rename', 'retag', 'polish'])).toEqual([]);
  });

  it('the checker reports a command of decide missing from the table, and a table command decide does not have', () => {
    expect(tableViolations('x.ts', fixture(TABLE), ['open', 'close', 'rename', 'retag', 'archive'])).toEqual([
      'x.ts: command archive of decide is not in the table',
      'x.ts:9: table names polish, which decide does not have',
    ]);
  });

  it('the checker reports a header with no table, and a command cell that is prose', () => {
    expect(tableViolations('x.ts', fixture('status  open  closed'), ['open'])).toEqual(['x.ts: the header has no transition table (a heading with a command column over a dashed rule)']);
    const prose = TABLE.replace('closed  any    ', 'closed  anything but reads');
    expect(tableViolations('x.ts', fixture(prose), ['open', 'close', 'rename', 'retag', 'polish'])).toEqual(['x.ts:11: command cell not a list of command names: "anything but reads"']);
  });
});
