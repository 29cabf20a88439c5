/**
 * The ng-payroll rule packs: versioned JSON data in actors/payroll/packs/, one file per version
 * (spec 2.9 RulePackReference, spec 9; DESIGN "Rule packs ... are data").
 *
 * content_hash = "sha256:" + hex SHA-256 of the canonical form: the pack document without its
 * `content_hash` and `status` fields, serialised as JSON with object keys sorted and no
 * whitespace. Status is left out so a draft promoted to active keeps its hash; every rule is in.
 * A file whose recorded hash does not match its content refuses to load: an active version
 * cannot be edited in place; a change is a new version.
 */
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { RulePack, RulePackParameters, RulePackReference, RulePackStatus, UnconfirmedPoint } from './types.ts';

const PACK_DIR = join(dirname(fileURLToPath(import.meta.url)), '..', 'packs');
const VERSION = /^\d{4}\.(0[1-9]|1[0-2])\.[1-9]\d*$/;

interface PackDocument {
  pack_id: 'ng-payroll';
  version: string;
  status: RulePackStatus;
  content_hash?: string;
  effective_from: string;
  effective_to: string | null;
  description: string;
  parameters: RulePackParameters;
  unconfirmed: UnconfirmedPoint[];
}

/** Canonical JSON: keys sorted at every depth, no whitespace; `content_hash` and `status` left out. */
export function canonicalForm(doc: object): string {
  const { content_hash: _h, status: _s, ...rest } = doc as Record<string, unknown>;
  return canonicalJson(rest);
}

function canonicalJson(v: unknown): string {
  if (v === null || typeof v !== 'object') return JSON.stringify(v);
  if (Array.isArray(v)) return '[' + v.map(canonicalJson).join(',') + ']';
  const o = v as Record<string, unknown>;
  return '{' + Object.keys(o).sort().filter((k) => o[k] !== undefined).map((k) => JSON.stringify(k) + ':' + canonicalJson(o[k])).join(',') + '}';
}

export function contentHash(doc: object): string {
  return 'sha256:' + createHash('sha256').update(canonicalForm(doc)).digest('hex');
}

function deepFreeze<T>(o: T): T {
  if (o && typeof o === 'object') {
    for (const v of Object.values(o)) deepFreeze(v);
    Object.freeze(o);
  }
  return o;
}

function load(file: string): RulePack {
  const doc = JSON.parse(readFileSync(join(PACK_DIR, file), 'utf8')) as PackDocument;
  if (doc.pack_id !== 'ng-payroll') throw new Error(`${file}: pack_id must be ng-payroll`);
  if (!VERSION.test(doc.version)) throw new Error(`${file}: version ${doc.version} is not YYYY.MM.N`);
  if (file !== `${doc.pack_id}-${doc.version}.json`) throw new Error(`${file}: file name must be ${doc.pack_id}-${doc.version}.json`);
  if (doc.status !== 'active' && doc.status !== 'draft') throw new Error(`${file}: status must be active or draft`);
  const hash = contentHash(doc);
  if (doc.content_hash !== hash) throw new Error(`${file}: recorded content_hash ${doc.content_hash} does not match content ${hash}; an active version never changes, make a new version`);
  const ref: RulePackReference = { pack_id: doc.pack_id, version: doc.version, content_hash: hash };
  return deepFreeze({
    ref,
    status: doc.status,
    effective_from: doc.effective_from,
    effective_to: doc.effective_to,
    description: doc.description,
    parameters: doc.parameters,
    unconfirmed: doc.unconfirmed,
  });
}

const compareVersions = (a: string, b: string) => {
  const [ay, am, an] = a.split('.').map(Number);
  const [by, bm, bn] = b.split('.').map(Number);
  return ay - by || am - bm || an - bn;
};

const PACKS: readonly RulePack[] = Object.freeze(
  readdirSync(PACK_DIR)
    .filter((f) => f.endsWith('.json'))
    .map(load)
    .sort((a, b) => compareVersions(a.ref.version, b.ref.version)),
);

/** Every pack, active and draft, oldest version first. */
export function listPacks(): RulePack[] {
  return PACKS.slice();
}

/** The pack with this version; with no version, the newest active pack. */
export function findPack(version?: string): RulePack | undefined {
  if (version === undefined) {
    for (let i = PACKS.length - 1; i >= 0; i--) if (PACKS[i].status === 'active') return PACKS[i];
    return undefined;
  }
  return PACKS.find((p) => p.ref.version === version);
}

/** The newest active pack whose effective dates cover the period (YYYY-MM). */
export function packForPeriod(period: string): RulePack | undefined {
  const first = `${period}-01`;
  for (let i = PACKS.length - 1; i >= 0; i--) {
    const p = PACKS[i];
    if (p.status === 'active' && p.effective_from <= first && (p.effective_to === null || first <= p.effective_to)) return p;
  }
  return undefined;
}

/** The pack a pinned reference names, only when both version and content hash match. */
export function resolvePack(ref: RulePackReference): RulePack | undefined {
  const p = findPack(ref.version);
  return p && p.ref.content_hash === ref.content_hash && p.ref.pack_id === ref.pack_id ? p : undefined;
}
