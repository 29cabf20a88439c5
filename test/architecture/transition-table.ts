/**
 * The transition table an actor file opens with (STYLE "One actor, one file, read top to bottom"),
 * read back so a test can hold it to the kind's `decide`. Pure functions over source text, so the
 * rules can be tried on a made-up header as well as on the tree.
 *
 * A table is a heading line naming a `command` column, a rule line of dash groups under it, and the
 * rows below, up to a blank comment line or the end of the comment. The rule line fixes where each
 * column starts. A row's command cell is the text at the command column up to the first double
 * space; a row whose cell is blank continues the row above. The cell lists one or more commands
 * separated by `,`, `|` or `/`, each optionally followed by a note in parentheses
 * (`due (reminder)`). Two words stand for no single command:
 *   any  every command the rows above do not cover (an "otherwise" row);
 *   -    a row that is not a command.
 */

export interface TableRow {
  /** 1-based line of the file. */
  line: number;
  /** The command names the row lists (`any` and `-` included as written). */
  commands: string[];
}

export interface ParsedHeader {
  rows: TableRow[];
  /** Lines whose command cell could not be read as a list of command names. */
  unreadable: { line: number; cell: string }[];
  /** Tables found (a header may draw more than one). */
  tables: number;
}

export const NOT_A_COMMAND = new Set(['any', '-']);

const ITEM = /^([a-z][a-z0-9_]*|-)(?: \([^()]*\))?$/;

/** The text of the comment a file opens with, one entry per line (the ` * ` prefix removed). */
function headerLines(src: string): string[] {
  const m = /^\s*\/\*\*[\s\S]*?\*\//.exec(src);
  if (!m) return [];
  return m[0].split('\n').map((l) => l.replace(/^\s*\/\*\*\s?/, '').replace(/\s*\*\/$/, '').replace(/^\s*\* ?/, ''));
}

export function parseHeader(src: string): ParsedHeader {
  const lines = headerLines(src);
  const out: ParsedHeader = { rows: [], unreadable: [], tables: 0 };
  for (let i = 1; i < lines.length; i++) {
    if (!/^-+(?: +-+)+\s*$/.test(lines[i])) continue;
    const heading = /\bcommand\b/.exec(lines[i - 1]);
    if (!heading) continue;
    const starts = [...lines[i].matchAll(/-+/g)].map((g) => g.index!);
    if (!starts.includes(heading.index)) {
      out.unreadable.push({ line: i, cell: `heading's command column does not start over a dash group: ${lines[i - 1].trim()}` });
      continue;
    }
    out.tables++;
    const at = heading.index;
    for (let j = i + 1; j < lines.length && lines[j].trim() !== ''; j++) {
      const text = lines[j].slice(at);
      if (text === '' || /^\s/.test(text)) continue;
      if (at > 0 && lines[j][at - 1] !== ' ') {
        out.unreadable.push({ line: j + 1, cell: `the cell before the command column runs into it: ${lines[j].trim()}` });
        continue;
      }
      const cell = /^\S+(?: \S+)*/.exec(text)![0];
      const items = cell.split(/\s*[,|/]\s*/).filter((s) => s !== '');
      const names = items.map((s) => ITEM.exec(s)?.[1]);
      if (names.length === 0 || names.some((n) => n === undefined)) out.unreadable.push({ line: j + 1, cell });
      else out.rows.push({ line: j + 1, commands: names as string[] });
    }
  }
  return out;
}

/**
 * What is wrong between a file's header and its kind's commands: no table, an unreadable cell, a
 * command of `decide` the table never names, a name in the table that `decide` does not have.
 */
export function tableViolations(file: string, src: string, decide: readonly string[]): string[] {
  const parsed = parseHeader(src);
  const out: string[] = [];
  if (parsed.tables === 0) return [`${file}: the header has no transition table (a heading with a command column over a dashed rule)`];
  for (const u of parsed.unreadable) out.push(`${file}:${u.line}: command cell not a list of command names: "${u.cell}"`);
  const named = new Set(parsed.rows.flatMap((r) => r.commands));
  for (const c of decide) if (!named.has(c)) out.push(`${file}: command ${c} of decide is not in the table`);
  const known = new Set(decide);
  for (const r of parsed.rows) {
    for (const c of r.commands) if (!known.has(c) && !NOT_A_COMMAND.has(c)) out.push(`${file}:${r.line}: table names ${c}, which decide does not have`);
  }
  return out;
}
