/**
 * The engagements rule pack and clause library (spec 2.6 Instrument: rule_pack_version,
 * clause_library_version, legal_approval_reference; spec 9: versions YYYY.MM.N, an active version
 * never changes). Both are data in ./packs/, one file per version, identified by the `sha256:` hash
 * of their canonical JSON without `content_hash` and `status` (kernel canonicalJson). A file whose
 * recorded hash does not match its content refuses to load: a change is a new version.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { contentHash } from '../../kernel/index.ts';

export const CLASSIFICATIONS = ['employment', 'fixed_term_employment', 'independent_contracting', 'apprenticeship', 'casual', 'task_based'] as const;
export type Classification = (typeof CLASSIFICATIONS)[number];

export const APPLIES = ['yes', 'no', 'to_be_confirmed'] as const;
export type Applies = (typeof APPLIES)[number];

export interface Factor {
  code: string;
  question: string;
  weight: number;
  /** Fact value -> direction, +1 toward a contract of service, -1 toward a contract for services. */
  values: Record<string, number>;
  source: string;
  tag: string;
}

export interface ClassificationRule {
  id: string;
  side: 'employment' | 'contractor';
  /** Facts that must all hold (equality), empty for the side's fallback. */
  when: Record<string, string | boolean>;
  classification: Classification;
  description: string;
}

/** The engaging organisation's sector, which may override whether an obligation applies. */
export const SECTORS = ['private', 'public'] as const;
export type Sector = (typeof SECTORS)[number];

export interface Obligation {
  code: string;
  authority: string;
  basis: string;
  frequency: string;
  due: string;
  reference: string;
  applies: Record<Classification, Applies>;
  employer_condition?: { min_headcount: number; or_turnover_50m?: boolean; tag: string; detail: string };
  sector_override?: Partial<Record<Sector, Applies>>;
  notes?: Partial<Record<Classification, string>>;
}

export interface RulePack {
  pack_id: 'ng-engagements';
  version: string;
  status: 'active' | 'draft';
  content_hash: string;
  effective_from: string;
  legal_approval_reference: string;
  description: string;
  classification: {
    factors: Factor[];
    employment_side_at_or_above: number;
    contractor_side_at_or_below: number;
    undetermined_side: 'employment' | 'contractor';
    undetermined_side_reason: string;
    review_below_confidence: number;
    rules: ClassificationRule[];
  };
  registration: { required_before_activation: Classification[]; attestations_required: Partial<Record<Classification, string[]>>; source: string };
  timing: { instrument_assent_window_days: number; written_particulars_within_days: number };
  obligations: Obligation[];
  unconfirmed: string[];
}

export interface Template {
  code: string;
  title: string;
  classifications: Classification[];
  clauses: string[];
  optional_clauses: string[];
}

export interface Clause {
  code: string;
  version: string;
  title: string;
  covers: string;
  text: string;
}

export interface ClauseLibrary {
  library_id: 'ng-engagement-clauses';
  version: string;
  status: 'active' | 'draft';
  content_hash: string;
  legal_approval_reference: string;
  description: string;
  templates: Template[];
  clauses: Clause[];
}

const DIR = join(dirname(fileURLToPath(import.meta.url)), 'packs');
const VERSION = /^\d{4}\.(0[1-9]|1[0-2])\.[1-9]\d*$/;

/** The content hash of a pack document: its canonical JSON without content_hash and status. */
export function packHash(doc: object): string {
  const { content_hash: _h, status: _s, ...rest } = doc as Record<string, unknown>;
  return contentHash(rest);
}

function deepFreeze<T>(o: T): T {
  if (o && typeof o === 'object') {
    for (const v of Object.values(o)) deepFreeze(v);
    Object.freeze(o);
  }
  return o;
}

function loadAll<T extends { version: string; status: string; content_hash: string }>(stem: string, check: (doc: T, file: string) => void): T[] {
  return readdirSync(DIR)
    .filter((f) => f.startsWith(`${stem}-`) && f.endsWith('.json'))
    .map((file) => {
      const doc = JSON.parse(readFileSync(join(DIR, file), 'utf8')) as T;
      if (!VERSION.test(doc.version)) throw new Error(`${file}: version ${doc.version} is not YYYY.MM.N`);
      if (file !== `${stem}-${doc.version}.json`) throw new Error(`${file}: file name must be ${stem}-${doc.version}.json`);
      if (doc.status !== 'active' && doc.status !== 'draft') throw new Error(`${file}: status must be active or draft`);
      const hash = packHash(doc);
      if (doc.content_hash !== hash) throw new Error(`${file}: recorded content_hash ${doc.content_hash} does not match content ${hash}; an active version never changes, make a new version`);
      check(doc, file);
      return deepFreeze(doc);
    })
    .sort((a, b) => compareVersions(a.version, b.version));
}

const compareVersions = (a: string, b: string) => {
  const [ay, am, an] = a.split('.').map(Number);
  const [by, bm, bn] = b.split('.').map(Number);
  return ay - by || am - bm || an - bn;
};

/** A pack that is not well formed never loads (a bad pack must never become active). */
export function checkRulePack(p: RulePack, file = p.version): void {
  const c = p.classification;
  const codes = new Set<string>();
  for (const f of c.factors) {
    if (!(f.weight > 0)) throw new Error(`${file}: factor ${f.code} needs a positive weight`);
    if (codes.has(f.code)) throw new Error(`${file}: factor ${f.code} appears twice`);
    codes.add(f.code);
    for (const [k, v] of Object.entries(f.values)) if (!(v >= -1 && v <= 1)) throw new Error(`${file}: factor ${f.code} value ${k} must lie in -1..1`);
  }
  if (!(c.contractor_side_at_or_below < c.employment_side_at_or_above)) throw new Error(`${file}: side thresholds overlap`);
  for (const side of ['employment', 'contractor'] as const) {
    const last = c.rules.filter((r) => r.side === side).at(-1);
    if (!last || Object.keys(last.when).length !== 0) throw new Error(`${file}: the ${side} side needs a fallback rule with an empty when`);
  }
  for (const r of c.rules) if (!CLASSIFICATIONS.includes(r.classification)) throw new Error(`${file}: rule ${r.id} names an unknown classification`);
  for (const o of p.obligations) for (const k of CLASSIFICATIONS) if (!APPLIES.includes(o.applies[k])) throw new Error(`${file}: obligation ${o.code} says nothing valid for ${k}`);
}

export function checkClauseLibrary(l: ClauseLibrary, file = l.version): void {
  const known = new Set(l.clauses.map((c) => c.code));
  for (const t of l.templates) {
    for (const c of [...t.clauses, ...t.optional_clauses]) if (!known.has(c)) throw new Error(`${file}: template ${t.code} names unknown clause ${c}`);
    for (const k of t.classifications) if (!CLASSIFICATIONS.includes(k)) throw new Error(`${file}: template ${t.code} names unknown classification ${k}`);
  }
}

const RULE_PACKS = loadAll<RulePack>('ng-engagements', checkRulePack);
const LIBRARIES = loadAll<ClauseLibrary>('ng-engagement-clauses', checkClauseLibrary);

const newestActive = <T extends { status: string }>(xs: readonly T[]): T => {
  for (let i = xs.length - 1; i >= 0; i--) if (xs[i].status === 'active') return xs[i];
  throw new Error('engagements: no active version');
};

/** The rule pack of this version; with none, the newest active one. */
export function rulePack(version?: string): RulePack | undefined {
  return version === undefined ? newestActive(RULE_PACKS) : RULE_PACKS.find((p) => p.version === version);
}

/** The clause library of this version; with none, the newest active one. */
export function clauseLibrary(version?: string): ClauseLibrary | undefined {
  return version === undefined ? newestActive(LIBRARIES) : LIBRARIES.find((p) => p.version === version);
}

export const clauseLibraryVersions = (): string[] => LIBRARIES.map((l) => l.version);
export const rulePackVersions = (): string[] => RULE_PACKS.map((p) => p.version);
