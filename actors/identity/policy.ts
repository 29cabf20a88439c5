/**
 * The identity policy pack (spec 2.4, 9; ../shared/reference/ng-identity-credentials-engagements-
 * sourcing.md section 1): consent lifetimes, the purposes identity checks may serve, the default
 * target assurance per purpose, which evidence reaches which level, the passport's minimum level,
 * retry horizons, name-matching parameters and data-subject request due dates. Data, versioned
 * YYYY.MM.N, identified by the sha256 of its canonical JSON; an active version never changes.
 * Every [U] figure of the reference (30 days for subject requests, matching thresholds) is a
 * parameter here, never a constant in code.
 */
import { readFileSync, readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { contentHash } from '../../kernel/index.ts';

/**
 * Spec 2.4's five checks, and two of an organisation's verification (docs/gaps.md#identity
 * "Organisation passports"): corporate_registry (the corporate registry holds the business under
 * its registration number) and directors_identity (every director named holds a live passport).
 */
export const CHECK_KINDS = ['government_identifier', 'bank_identifier', 'date_of_birth_match', 'name_match', 'contactability', 'corporate_registry', 'directors_identity'] as const;
export type CheckKind = (typeof CHECK_KINDS)[number];
/** The checks a source answers itself, on an identifier the claims present; the match checks follow from their answers. */
export const SOURCE_CHECKS = ['government_identifier', 'bank_identifier', 'contactability', 'corporate_registry'] as const satisfies readonly CheckKind[];
export type SourceCheck = (typeof SOURCE_CHECKS)[number];
export const isSourceCheck = (c: string): c is SourceCheck => (SOURCE_CHECKS as readonly string[]).includes(c);

export const ASSURANCE_LEVELS = ['dal_0', 'dal_1', 'dal_2', 'dal_3', 'dal_4'] as const;
export type AssuranceLevel = (typeof ASSURANCE_LEVELS)[number];
/** dal_3 (biometric binding) and dal_4 (adverse screening) are documented, not delivered (spec 2.4, 9). */
export const DELIVERED_LEVELS: readonly AssuranceLevel[] = ['dal_0', 'dal_1', 'dal_2'];
export const NOT_DELIVERED: Record<string, string> = {
  dal_3: 'dal_3 (biometric binding) is documented and not delivered in this release (spec 2.4, 9).',
  dal_4: 'dal_4 (adverse screening cleared) is documented and not delivered in this release (spec 2.4, 9).',
};

export const SUBJECT_REQUEST_KINDS = ['access', 'rectification', 'erasure', 'portability', 'objection', 'restriction'] as const;
export type SubjectRequestKind = (typeof SUBJECT_REQUEST_KINDS)[number];

export interface IdentityPolicy {
  name: 'identity_policy';
  version: string;
  legal_approval_reference: string;
  consent: { default_lifetime_days: number; max_lifetime_days: number; withdrawal_ends_passport: boolean };
  verification: {
    purposes: string[];
    default_target_by_purpose: Record<string, AssuranceLevel>;
    default_target: AssuranceLevel;
    passport_minimum_assurance: AssuranceLevel;
    retry_after_seconds: number;
    source_answer_deadline_seconds: number;
    collect_retry_seconds: number;
  };
  assurance: Record<'dal_0' | 'dal_1' | 'dal_2', { all_of: CheckKind[] }>;
  /** An organisation's verification (from 2026.11.2): its levels, the passport's minimum, what its directors need. */
  organisations?: {
    assurance: Record<'dal_1' | 'dal_2', { all_of: CheckKind[] }>;
    passport_minimum_assurance: AssuranceLevel;
    director_minimum_assurance: AssuranceLevel;
    max_directors: number;
  };
  matching: { honorifics: string[]; min_shared_name_tokens: number; surname_only_mismatch: 'review' | 'fail' };
  subject_requests: { due_days: Record<SubjectRequestKind, number> };
  disclosures: { default_lifetime_days: number };
}

export interface LoadedIdentityPolicy {
  pack: IdentityPolicy;
  hash: string;
}

const VERSION = /^\d{4}\.(0[1-9]|1[0-2])\.[1-9]\d*$/;
const dir = join(dirname(fileURLToPath(import.meta.url)), 'policy');

/** Throws on a pack that is not well formed: a bad pack must never become active. */
export function checkIdentityPolicy(raw: unknown): LoadedIdentityPolicy {
  const p = raw as IdentityPolicy;
  const problems: string[] = [];
  if (p?.name !== 'identity_policy') problems.push('name');
  if (typeof p?.version !== 'string' || !VERSION.test(p.version)) problems.push('version');
  const level = (l: unknown) => DELIVERED_LEVELS.includes(l as AssuranceLevel);
  if (!(p?.consent?.default_lifetime_days > 0) || !(p.consent.max_lifetime_days >= p.consent.default_lifetime_days)) problems.push('consent');
  if (!Array.isArray(p?.verification?.purposes) || !level(p.verification.default_target) || !level(p.verification.passport_minimum_assurance)) problems.push('verification');
  for (const l of Object.values(p?.verification?.default_target_by_purpose ?? {})) if (!level(l)) problems.push('verification.default_target_by_purpose');
  for (const l of ['dal_0', 'dal_1', 'dal_2'] as const) {
    const all = p?.assurance?.[l]?.all_of;
    if (!Array.isArray(all) || all.some((c) => !CHECK_KINDS.includes(c))) problems.push(`assurance.${l}`);
  }
  const o = p?.organisations;
  if (o !== undefined) {
    for (const l of ['dal_1', 'dal_2'] as const) if (!Array.isArray(o.assurance?.[l]?.all_of) || o.assurance[l].all_of.some((c) => !CHECK_KINDS.includes(c))) problems.push(`organisations.assurance.${l}`);
    if (!level(o.passport_minimum_assurance) || !level(o.director_minimum_assurance) || !(o.max_directors >= 1)) problems.push('organisations');
  }
  for (const k of SUBJECT_REQUEST_KINDS) if (!(p?.subject_requests?.due_days?.[k] > 0)) problems.push(`subject_requests.due_days.${k}`);
  if (!(p?.matching?.min_shared_name_tokens >= 1)) problems.push('matching');
  if (problems.length) throw new Error(`identity policy pack is not well formed: ${problems.join(', ')}`);
  return { pack: p, hash: contentHash(p) };
}

const packs = new Map<string, LoadedIdentityPolicy>();
for (const f of readdirSync(dir).filter((n) => n.endsWith('.json'))) {
  const loaded = checkIdentityPolicy(JSON.parse(readFileSync(join(dir, f), 'utf8')));
  packs.set(loaded.pack.version, loaded);
}

/** The active pack: the highest version on disk. */
export const ACTIVE_POLICY: LoadedIdentityPolicy = [...packs.values()].sort((a, b) => (a.pack.version < b.pack.version ? 1 : -1))[0]!;

export const policyVersion = (v: string): LoadedIdentityPolicy | undefined => packs.get(v);

export const levelRank = (l: AssuranceLevel | null): number => (l === null ? -1 : ASSURANCE_LEVELS.indexOf(l));

/**
 * The highest delivered level whose evidence is all present (spec 2.4 levels; pack `assurance`, or
 * `organisations.assurance` for an organisation's verification).
 */
export function levelReached(passed: ReadonlySet<CheckKind>, pack: IdentityPolicy, organisation = false): AssuranceLevel {
  const table = organisation && pack.organisations ? pack.organisations.assurance : pack.assurance;
  let best: AssuranceLevel = 'dal_0';
  for (const l of ['dal_1', 'dal_2'] as const) if (table[l].all_of.every((c) => passed.has(c))) best = l;
  return best;
}

/** The level a passport needs: the pack's, or its organisations' minimum for an organisation. */
export function passportMinimum(pack: IdentityPolicy, organisation: boolean): AssuranceLevel {
  return organisation && pack.organisations ? pack.organisations.passport_minimum_assurance : pack.verification.passport_minimum_assurance;
}

/** The minimum sufficient level for a purpose when the caller names none (spec 4.3). */
export const defaultTarget = (purpose: string, pack: IdentityPolicy): AssuranceLevel => pack.verification.default_target_by_purpose[purpose] ?? pack.verification.default_target;
