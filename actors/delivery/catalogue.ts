/**
 * The one catalogue of public event types (spec 6): every area declares its types in
 * `Area.events`; this builds the lookup the event pipeline uses and renders docs/events.md.
 * A journal event becomes a public event when its (actor kind, journal type) pair is declared;
 * the public event's stream is the area that owns the kind (sequence is per organisation and per
 * stream, docs/gaps.md#delivery).
 */
import { type Area, MODULES, type PublicEventDecl } from '../../kernel/index.ts';

export interface CatalogueEntry extends PublicEventDecl {
  /** Area that declared it. */
  area: string;
  /** Area owning `kind`: the stream the event is sequenced in. */
  stream: string;
}

const TYPE_PATTERN = /^[a-z][a-z0-9_]*(\.[a-z][a-z0-9_]*)+$/;

export class EventCatalogue {
  private readonly byType = new Map<string, CatalogueEntry>();
  private readonly byTrigger = new Map<string, CatalogueEntry>();
  private readonly areaOfKind = new Map<string, string>();

  /** Declarations that were refused (logged at start; a test keeps the real areas free of them). */
  readonly problems: string[] = [];

  constructor(areas: readonly Area[]) {
    for (const area of areas) for (const def of area.kinds) this.areaOfKind.set(def.kind, area.name);
    for (const area of areas) for (const decl of area.events ?? []) this.add(area.name, decl);
  }

  private add(area: string, decl: PublicEventDecl): void {
    const refuse = (why: string) => void this.problems.push(`${area}: ${decl.type}: ${why}`);
    if (!TYPE_PATTERN.test(decl.type)) return refuse('not module.resource.past_tense_verb style');
    if (!Number.isInteger(decl.schemaVersion) || decl.schemaVersion < 1) return refuse('schemaVersion must be an integer >= 1');
    if (this.byType.has(decl.type)) return refuse('declared twice');
    const stream = this.areaOfKind.get(decl.kind);
    if (stream === undefined) return refuse(`names kind ${decl.kind}, which no area defines`);
    const trigger = `${decl.kind}\u0000${decl.on}`;
    const prev = this.byTrigger.get(trigger);
    // One journal event is one public event: its id is the journal event's id (spec 6).
    if (prev) return refuse(`${decl.kind} ${decl.on} already produces ${prev.type}`);
    const entry: CatalogueEntry = { ...decl, area, stream };
    this.byType.set(decl.type, entry);
    this.byTrigger.set(trigger, entry);
  }

  /** The public event a committed journal event of `kind` produces, if any. */
  match(kind: string, journalType: string): CatalogueEntry | undefined {
    return this.byTrigger.get(`${kind}\u0000${journalType}`);
  }

  type(type: string): CatalogueEntry | undefined {
    return this.byType.get(type);
  }

  /** The area whose `kinds` contains `kind`. */
  areaOf(kind: string): string | undefined {
    return this.areaOfKind.get(kind);
  }

  get entries(): CatalogueEntry[] {
    return [...this.byType.values()].sort((a, b) => a.area.localeCompare(b.area) || a.type.localeCompare(b.type));
  }
}

/** docs/events.md, generated from the declarations (a test keeps the file in step). */
export function renderCatalogue(catalogue: EventCatalogue): string {
  const lines: string[] = [
    '# Event catalogue',
    '',
    'Generated from the areas\' public event tables (`events.json` beside each area\'s `events.ts`,',
    'read by the kernel\'s `publicEventTable`) by `npm run events` (scripts/write-docs.ts);',
    '`test/delivery/catalogue.test.ts` fails when',
    'this file is stale. Every event is sent in the envelope of spec 6 (`id`, `type`, `schema_version`,',
    '`org_id`, `sequence`, `occurred_at`, `request_id`, `livemode`, `mocked`, `source`, `data`); `data` is',
    'the record (API view) of the producing actor as it stood right after the event. `sequence` counts per',
    'organisation and per stream; the stream is the module (area) named below.',
    '',
  ];
  const byArea = new Map<string, CatalogueEntry[]>();
  for (const e of catalogue.entries) byArea.set(e.stream, [...(byArea.get(e.stream) ?? []), e]);
  if (byArea.size === 0) lines.push('No area declares public events yet.', '');
  for (const [area, entries] of byArea) {
    const mod = MODULES.find((m) => m.area === area);
    lines.push(`## ${area}${mod ? ` (GET ${mod.path}/events)` : ''}`, '');
    lines.push('| type | source | schema_version | produced by (kind: journal event) | data | description |');
    lines.push('|---|---|---|---|---|---|');
    for (const e of entries) {
      const gap = e.specGap ? ' (type not named by the spec: gap)' : '';
      lines.push(`| ${e.type} | ${e.source} | ${e.schemaVersion} | ${e.kind}: ${e.on} | ${e.kind} record | ${e.description.replace(/\|/g, '\\|')}${gap} |`);
    }
    lines.push('');
  }
  return lines.join('\n');
}
