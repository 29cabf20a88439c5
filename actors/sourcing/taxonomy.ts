/**
 * The occupation taxonomy and the inference of the fields a requisition leaves out (spec 2.7:
 * occupation_code "inferred from the title when absent"; the issue adds the employment type, the
 * compensation period, the location's State and the start date). The taxonomy is data
 * (`packs/ng-occupations-YYYY.MM.N.json`, served by GET /v1/sourcing/taxonomies/{id}): ISCO-08
 * unit groups as `ng-NNNN` codes (reference 2.3; whether Nigerian codes equal ISCO-08 is
 * unconfirmed, so the codes live in the data), each with title keywords and the defaults used
 * when inferring, and the 36 States and the FCT (ISO 3166-2:NG) with the places that name them.
 * Every inferred field is listed in inferred_fields until the caller confirms it.
 */
import { readFileSync, readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { contentHash } from '../../kernel/index.ts';
import { compareVersions } from './fair-hiring.ts';
import { nearestOccupation } from './nearest-occupation.ts';

export const EMPLOYMENT_TYPES = ['permanent', 'fixed_term', 'contract', 'casual', 'apprenticeship'] as const;
export type EmploymentType = (typeof EMPLOYMENT_TYPES)[number];
export const PERIODS = ['monthly', 'annual', 'daily', 'per_task'] as const;
export type Period = (typeof PERIODS)[number];

export interface Occupation {
  code: string;
  name: string;
  isco_label: string;
  keywords: string[];
  employment_type: EmploymentType;
  compensation_period: Period;
  source: string;
}

export interface StateEntry {
  code: string;
  name: string;
  aliases: string[];
}

export interface Taxonomy {
  id: string;
  name: string;
  version: string;
  basis: string;
  defaults: { employment_type: EmploymentType; compensation_period: Period; casual_compensation_period: Period; starts_on_lead_days: number };
  occupations: Occupation[];
  states: StateEntry[];
}

export interface LoadedTaxonomy {
  taxonomy: Taxonomy;
  hash: string;
  /** Keywords longest first, each with its occupation (the longest match names the occupation). */
  keywords: Array<{ re: RegExp; occupation: Occupation; length: number }>;
  places: Array<{ re: RegExp; state: StateEntry; length: number }>;
  byCode: Map<string, Occupation>;
  stateCodes: Map<string, StateEntry>;
}

const dir = join(dirname(fileURLToPath(import.meta.url)), 'packs');
const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&').replace(/[ -]/g, '[ -]?');
const word = (s: string) => new RegExp(`(?:^|[^a-z0-9])${escape(s)}(?:$|[^a-z0-9])`, 'i');

export function loadTaxonomy(raw: unknown): LoadedTaxonomy {
  const t = raw as Taxonomy;
  const problems: string[] = [];
  if (typeof t?.id !== 'string' || !t.id.startsWith('flow_taxonomy_')) problems.push('id');
  if (typeof t?.version !== 'string' || !/^\d{4}\.(0[1-9]|1[0-2])\.[1-9]\d*$/.test(t.version)) problems.push('version');
  if (!EMPLOYMENT_TYPES.includes(t?.defaults?.employment_type)) problems.push('defaults.employment_type');
  if (!PERIODS.includes(t?.defaults?.compensation_period) || !PERIODS.includes(t?.defaults?.casual_compensation_period)) problems.push('defaults.compensation_period');
  if (!Number.isInteger(t?.defaults?.starts_on_lead_days) || t.defaults.starts_on_lead_days < 0) problems.push('defaults.starts_on_lead_days');
  for (const [i, o] of (t?.occupations ?? []).entries()) {
    if (!/^ng-\d{4}$/.test(o.code)) problems.push(`occupations[${i}].code`);
    if (!EMPLOYMENT_TYPES.includes(o.employment_type) || !PERIODS.includes(o.compensation_period)) problems.push(`occupations[${i}] defaults`);
  }
  for (const [i, s] of (t?.states ?? []).entries()) if (!/^NG-[A-Z]{2}$/.test(s.code)) problems.push(`states[${i}].code`);
  if (problems.length) throw new Error(`taxonomy ${String(t?.version)} refused: ${problems.join(', ')}`);
  const keywords = t.occupations.flatMap((o) => o.keywords.map((k) => ({ re: word(k), occupation: o, length: k.length }))).sort((a, b) => b.length - a.length);
  const places = t.states.flatMap((s) => [s.name, ...s.aliases].map((a) => ({ re: word(a), state: s, length: a.length }))).sort((a, b) => b.length - a.length);
  return { taxonomy: t, hash: contentHash(t), keywords, places, byCode: new Map(t.occupations.map((o) => [o.code, o])), stateCodes: new Map(t.states.map((s) => [s.code, s])) };
}

let taxonomies: Map<string, LoadedTaxonomy> | undefined;

/** Every taxonomy shipped in packs/, by id. */
export function allTaxonomies(): Map<string, LoadedTaxonomy> {
  if (!taxonomies) {
    taxonomies = new Map();
    for (const f of readdirSync(dir)) {
      if (!/^ng-occupations-.*\.json$/.test(f)) continue;
      const t = loadTaxonomy(JSON.parse(readFileSync(join(dir, f), 'utf8')));
      taxonomies.set(t.taxonomy.id, t);
    }
  }
  return taxonomies;
}

/** The newest taxonomy, or the one with this version. */
export function taxonomy(version?: string): LoadedTaxonomy {
  const all = [...allTaxonomies().values()];
  if (version) {
    const t = all.find((x) => x.taxonomy.version === version);
    if (!t) throw new Error(`no occupation taxonomy ${version}`);
    return t;
  }
  return all.sort((a, b) => compareVersions(b.taxonomy.version, a.taxonomy.version))[0];
}

export const occupationOf = (t: LoadedTaxonomy, title: string): Occupation | undefined => t.keywords.find((k) => k.re.test(title))?.occupation;
export const stateOf = (t: LoadedTaxonomy, description: string): StateEntry | undefined => t.places.find((p) => p.re.test(description))?.state;

/** Cues in a title for the employment type, before the occupation's default. */
const TYPE_CUES: Array<[RegExp, EmploymentType]> = [
  [/\b(?:apprentice(?:ship)?|trainee|intern(?:ship)?)\b/i, 'apprenticeship'],
  [/\b(?:casual|temporary|temp|daily[- ]paid|day labou?r(?:er)?)\b/i, 'casual'],
  [/\bfixed[- ]term\b/i, 'fixed_term'],
  [/\b(?:contract|contractor|freelance)\b/i, 'contract'],
];

export interface MoneyAmount {
  amount: number;
  currency: string;
}

export interface Compensation {
  amount: MoneyAmount;
  period: Period;
  negotiable: boolean;
}

export interface Location {
  description: string;
  state: string | null;
  geofence_radius_metres: number | null;
}

/** The inferable fields of a requisition as a caller sends them: undefined means left out. */
export interface InferableInput {
  job_title: string;
  occupation_code?: string | null;
  employment_type?: EmploymentType | null;
  compensation?: { amount: MoneyAmount; period?: Period; negotiable?: boolean } | null;
  location?: { description: string; state?: string | null; geofence_radius_metres?: number | null } | null;
  starts_on?: string | null;
}

export interface Inferred {
  occupation_code: string | null;
  /** How sure the inferred occupation is (nearest-occupation.ts); null when the caller gave the code. */
  occupation_confidence: number | null;
  employment_type: EmploymentType | null;
  compensation: Compensation | null;
  location: Location | null;
  starts_on: string | null;
  /** Names as in inferred_fields: occupation_code, employment_type, compensation.period, location.state, starts_on. */
  inferred: string[];
}

const dateAfter = (now: number, days: number) => new Date(now + days * 86_400_000).toISOString().slice(0, 10);

/** Fills what the caller left out; `inferred` names each filled field. Pure: time comes as `now`. */
export function infer(t: LoadedTaxonomy, input: InferableInput, now: number): Inferred {
  const inferred: string[] = [];
  const d = t.taxonomy.defaults;
  // the defaults below come only from an occupation the title names by keyword, never from a guess
  const occupation = occupationOf(t, input.job_title);
  let occupation_code = input.occupation_code ?? null;
  let occupation_confidence: number | null = null;
  const nearest = input.occupation_code === undefined ? nearestOccupation(t.taxonomy.occupations, occupation, input.job_title) : undefined;
  if (nearest) {
    occupation_code = nearest.occupation.code;
    occupation_confidence = nearest.confidence;
    inferred.push('occupation_code');
  }
  let employment_type = input.employment_type ?? null;
  if (input.employment_type === undefined) {
    employment_type = TYPE_CUES.find(([re]) => re.test(input.job_title))?.[1] ?? occupation?.employment_type ?? d.employment_type;
    inferred.push('employment_type');
  }
  let compensation: Compensation | null = null;
  if (input.compensation) {
    let period = input.compensation.period;
    if (period === undefined) {
      period = employment_type === 'casual' ? d.casual_compensation_period : (occupation?.compensation_period ?? d.compensation_period);
      inferred.push('compensation.period');
    }
    compensation = { amount: input.compensation.amount, period, negotiable: input.compensation.negotiable ?? false };
  }
  let location: Location | null = null;
  if (input.location) {
    let state = input.location.state ?? null;
    if (input.location.state === undefined) {
      const found = stateOf(t, input.location.description);
      if (found) {
        state = found.code;
        inferred.push('location.state');
      }
    }
    location = { description: input.location.description, state, geofence_radius_metres: input.location.geofence_radius_metres ?? null };
  }
  let starts_on = input.starts_on ?? null;
  if (input.starts_on === undefined) {
    starts_on = dateAfter(now, d.starts_on_lead_days);
    inferred.push('starts_on');
  }
  return { occupation_code, occupation_confidence, employment_type, compensation, location, starts_on, inferred };
}

/**
 * Spec 3 (Requisition): while compensation, headcount, location or start date is inferred and
 * unconfirmed, the requisition stays pending_confirmation and publish is refused.
 */
export const blocksPublish = (field: string): boolean =>
  field === 'headcount' || field === 'starts_on' || field.startsWith('compensation') || field.startsWith('location');
