/**
 * An area's public event types (spec 6) are data: one table per area, `events.json` beside its
 * `events.ts`, read here into the declarations the event catalogue takes
 * (actors/delivery/catalogue.ts, which renders docs/events.md). A table names the area's spec 6
 * `source`, the types the spec itself names (every other type is ours, a gap listed in
 * docs/gaps.md), and for each actor kind its types in order: the public type, the journal event
 * `on` that produces it, and what a subscriber reads in it.
 *
 * ```json
 * { "source": "run", "named_by_spec": ["run.approved"],
 *   "kinds": { "payroll_run": [{ "type": "run.approved", "on": "run.approved", "description": "The run was approved." }] } }
 * ```
 *
 * A table that is not of this shape stops the area from loading, with the file and the row named.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { PublicEventDecl } from './area.ts';

/** The shape of an area's events.json. */
export interface PublicEventTable {
  source: string;
  /** The types spec 6 names, used exactly. */
  named_by_spec?: string[];
  kinds: Record<string, PublicEventRow[]>;
}

export interface PublicEventRow {
  type: string;
  on: string;
  description: string;
}

const isText = (v: unknown): v is string => typeof v === 'string' && v.length > 0;
const isRow = (v: unknown): v is PublicEventRow =>
  typeof v === 'object' && v !== null && Object.keys(v).length === 3 && ['type', 'on', 'description'].every((k) => isText((v as Record<string, unknown>)[k]));

/** The declarations of one table, in its order; throws naming what is off. */
export function publicEventsOf(table: unknown, where = 'event table'): PublicEventDecl[] {
  const off = (why: string): never => {
    throw new Error(`${where}: ${why}`);
  };
  const t = table as Partial<PublicEventTable> | null;
  if (typeof t !== 'object' || t === null || !isText(t.source)) return off('no source');
  if (typeof t.kinds !== 'object' || t.kinds === null) return off('no kinds');
  const named = t.named_by_spec ?? [];
  if (!Array.isArray(named) || !named.every(isText)) return off('named_by_spec is not a list of types');
  const out: PublicEventDecl[] = [];
  for (const [kind, rows] of Object.entries(t.kinds)) {
    if (!Array.isArray(rows)) return off(`${kind} is not a list of rows`);
    rows.forEach((row: unknown, i) => {
      if (!isRow(row)) off(`${kind} row ${i + 1} is not { type, on, description }`);
      const { type, on, description } = row as PublicEventRow;
      out.push({ type, source: t.source!, schemaVersion: 1, kind, on, description, specGap: !named.includes(type) });
    });
  }
  const unknown = named.filter((type) => !out.some((d) => d.type === type));
  if (unknown.length > 0) off(`named_by_spec lists ${unknown.join(', ')}, which no row declares`);
  return out;
}

/** The declarations of the events.json at `file` (an area passes `new URL('./events.json', import.meta.url)`). */
export const publicEventTable = (file: URL): PublicEventDecl[] => publicEventsOf(JSON.parse(readFileSync(fileURLToPath(file), 'utf8')), fileURLToPath(file));
