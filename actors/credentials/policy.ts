/**
 * The credentials policy pack and the competency frameworks (spec 2.5, 9; reference
 * ng-identity-credentials-engagements-sourcing.md section 2). Both are data, versioned YYYY.MM.N and
 * identified by the sha256 of their canonical JSON; an active version never changes and records
 * keep the version they were made under (a claim keeps its framework_version).
 *
 * The pack holds every figure the reference leaves [U]: which consent purposes cover a credential
 * query or a disclosure, the decay function and the lifetime of a claim per evidence class, the
 * issuers' service levels, evidence validity (reuse) windows and fees, which credential kind
 * evidences which claim, which licence kinds gate which occupation and for how long a licence runs,
 * and the document analyser's thresholds. This file only reads and checks; the rules that use the
 * figures live in the actors and in eligibility.ts.
 */
import { readFileSync, readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { contentHash, type MoneyValue, isCurrency } from '../../kernel/index.ts';

/** Spec 2.5 CompetenceClaim.evidence_class, ordered by how directly the work was observed. */
export const EVIDENCE_CLASSES = ['e1_claimed', 'e2_attested', 'e3_documented', 'e4_verified_with_issuer', 'e5_demonstrated'] as const;
export type EvidenceClass = (typeof EVIDENCE_CLASSES)[number];
export const evidenceRank = (c: EvidenceClass): number => EVIDENCE_CLASSES.indexOf(c);

/** Spec 2.5 CredentialVerification.method and CompetenceClaim.issuing_method. */
export const METHODS = ['register_api', 'issuer_portal', 'assisted_manual'] as const;
export type Method = (typeof METHODS)[number];

export interface IssuerEntry {
  id: string;
  name: string;
  method: Method;
  credential_kinds: string[];
  /** Evidence gathered from this issuer is reused (cached, no second charge) for this many days. */
  evidence_valid_days: number;
  /** issuer_portal: hours until the portal answers. */
  answer_hours: number;
  /** issuer_portal and assisted_manual: the published service level, in days, after which silence is unverified. */
  service_level_days: number;
  fee: MoneyValue;
}

export interface CredentialKindEntry {
  claim_code: string;
  level: number;
  /** Present for a statutory licence: the occupations it licenses and how long it runs. */
  licence?: { occupation_codes: string[]; validity_months: number };
}

export interface CredentialsPolicy {
  name: 'credentials_policy';
  version: string;
  legal_approval_reference: string;
  consent: { verification_purposes: string[]; disclosure_purposes: string[] };
  decay: { function: string; ageing_at: number; stale_at: number; lifetime_months: Record<EvidenceClass, number> };
  issuers: IssuerEntry[];
  credential_kinds: Record<string, CredentialKindEntry>;
  /** Occupation code -> the licence kinds, any one of which (current) satisfies the law. */
  licensed_occupations: Record<string, string[]>;
  document_analysis: { factor_suspect_below: number; factor_forged_below: number; forgery_confirmed_min_factors: number };
}

export interface FrameworkClaim {
  code: string;
  description: string;
  nvqf_level: number | null;
}

export interface Framework {
  occupation_code: string;
  occupation_name: string;
  nvqf_level: number | null;
  claims: FrameworkClaim[];
}

export interface FrameworkSet {
  name: 'credentials_frameworks';
  version: string;
  source: string;
  frameworks: Framework[];
}

export interface Loaded<T> {
  pack: T;
  hash: string;
}

const VERSION = /^\d{4}\.(0[1-9]|1[0-2])\.[1-9]\d*$/;
const here = dirname(fileURLToPath(import.meta.url));

const fraction = (x: unknown): boolean => typeof x === 'number' && x > 0 && x < 1;
const positiveInt = (x: unknown): boolean => typeof x === 'number' && Number.isInteger(x) && x > 0;
const nonNegativeInt = (x: unknown): boolean => typeof x === 'number' && Number.isInteger(x) && x >= 0;

/** Throws on a pack that is not well formed: a bad pack must never become active. */
export function checkPolicy(raw: unknown, frameworks: FrameworkSet): Loaded<CredentialsPolicy> {
  const p = raw as CredentialsPolicy;
  const problems: string[] = [];
  if (p?.name !== 'credentials_policy') problems.push('name');
  if (typeof p?.version !== 'string' || !VERSION.test(p.version)) problems.push('version (YYYY.MM.N)');
  if (typeof p?.legal_approval_reference !== 'string') problems.push('legal_approval_reference');
  if (!Array.isArray(p?.consent?.verification_purposes) || p.consent.verification_purposes.length === 0) problems.push('consent.verification_purposes');
  if (!Array.isArray(p?.consent?.disclosure_purposes) || p.consent.disclosure_purposes.length === 0) problems.push('consent.disclosure_purposes');
  const d = p?.decay;
  if (typeof d?.function !== 'string' || !d.function) problems.push('decay.function');
  if (!fraction(d?.ageing_at) || !fraction(d?.stale_at) || !(d.stale_at > d.ageing_at)) problems.push('decay.ageing_at < decay.stale_at, both in (0, 1)');
  for (const c of EVIDENCE_CLASSES) if (!positiveInt(d?.lifetime_months?.[c])) problems.push(`decay.lifetime_months.${c}`);
  const codes = new Set(frameworks.frameworks.flatMap((f) => f.claims.map((c) => c.code)));
  const kinds = new Set<string>();
  for (const [i, is] of (p?.issuers ?? []).entries()) {
    if (typeof is.id !== 'string' || !/^proof_issuer_[0-9A-Za-z]{1,64}$/.test(is.id)) problems.push(`issuers[${i}].id`);
    if (!METHODS.includes(is.method)) problems.push(`issuers[${i}].method`);
    if (!positiveInt(is.evidence_valid_days)) problems.push(`issuers[${i}].evidence_valid_days`);
    if (!nonNegativeInt(is.answer_hours) || !nonNegativeInt(is.service_level_days)) problems.push(`issuers[${i}].answer_hours/service_level_days`);
    if (is.method !== 'register_api' && !(is.service_level_days > 0)) problems.push(`issuers[${i}].service_level_days`);
    if (is.method === 'issuer_portal' && !(is.answer_hours > 0 && is.answer_hours < is.service_level_days * 24)) problems.push(`issuers[${i}].answer_hours within the service level`);
    if (!nonNegativeInt(is.fee?.amount) || !isCurrency(is.fee?.currency)) problems.push(`issuers[${i}].fee`);
    for (const k of is.credential_kinds ?? []) {
      kinds.add(k);
      if (!p.credential_kinds?.[k]) problems.push(`issuers[${i}] names unknown credential kind ${k}`);
    }
  }
  for (const [k, e] of Object.entries(p?.credential_kinds ?? {})) {
    if (!codes.has(e.claim_code)) problems.push(`credential_kinds.${k}.claim_code not in the frameworks`);
    if (!positiveInt(e.level)) problems.push(`credential_kinds.${k}.level`);
    if (e.licence && (!positiveInt(e.licence.validity_months) || !Array.isArray(e.licence.occupation_codes) || e.licence.occupation_codes.length === 0)) problems.push(`credential_kinds.${k}.licence`);
    if (!kinds.has(k)) problems.push(`credential_kinds.${k} has no issuer`);
  }
  for (const [occ, list] of Object.entries(p?.licensed_occupations ?? {})) {
    for (const k of list) if (!p.credential_kinds?.[k]?.licence?.occupation_codes.includes(occ)) problems.push(`licensed_occupations.${occ}: ${k} does not license it`);
  }
  const da = p?.document_analysis;
  if (!fraction(da?.factor_suspect_below) || !fraction(da?.factor_forged_below) || !(da.factor_forged_below < da.factor_suspect_below)) problems.push('document_analysis thresholds');
  if (!(positiveInt(da?.forgery_confirmed_min_factors) && da.forgery_confirmed_min_factors <= 5)) problems.push('document_analysis.forgery_confirmed_min_factors');
  if (problems.length) throw new Error(`credentials policy pack refused: ${problems.join(', ')}`);
  return { pack: Object.freeze(p), hash: contentHash(p) };
}

export function checkFrameworks(raw: unknown): Loaded<FrameworkSet> {
  const f = raw as FrameworkSet;
  const problems: string[] = [];
  if (f?.name !== 'credentials_frameworks') problems.push('name');
  if (typeof f?.version !== 'string' || !VERSION.test(f.version)) problems.push('version (YYYY.MM.N)');
  const occupations = new Set<string>();
  const codes = new Set<string>();
  for (const [i, fw] of (f?.frameworks ?? []).entries()) {
    if (typeof fw.occupation_code !== 'string' || !/^ng-[0-9a-z]+$/.test(fw.occupation_code) || occupations.has(fw.occupation_code)) problems.push(`frameworks[${i}].occupation_code`);
    occupations.add(fw.occupation_code);
    const level = (x: unknown) => x === null || (Number.isInteger(x) && (x as number) >= 1 && (x as number) <= 6);
    if (!level(fw.nvqf_level)) problems.push(`frameworks[${i}].nvqf_level (1-6 or null)`);
    if (!Array.isArray(fw.claims) || fw.claims.length === 0) problems.push(`frameworks[${i}].claims`);
    for (const c of fw.claims ?? []) {
      if (!c.code?.startsWith(`${fw.occupation_code}.`) || codes.has(c.code)) problems.push(`frameworks[${i}] claim ${c.code}`);
      codes.add(c.code);
      if (!level(c.nvqf_level)) problems.push(`${c.code}.nvqf_level`);
    }
  }
  if (problems.length) throw new Error(`credentials frameworks refused: ${problems.join(', ')}`);
  return { pack: Object.freeze(f), hash: contentHash(f) };
}

function loadDir<T>(sub: string, check: (raw: unknown) => Loaded<T & { version: string }>): Map<string, Loaded<T & { version: string }>> {
  const out = new Map<string, Loaded<T & { version: string }>>();
  const dir = join(here, sub);
  for (const f of readdirSync(dir).filter((x) => x.endsWith('.json'))) {
    const loaded = check(JSON.parse(readFileSync(join(dir, f), 'utf8')));
    if (`${loaded.pack.version}.json` !== f) throw new Error(`credentials ${sub} file ${f} holds version ${loaded.pack.version}`);
    out.set(loaded.pack.version, loaded);
  }
  return out;
}

export const ACTIVE_POLICY_VERSION = '2026.11.1';
export const ACTIVE_FRAMEWORKS_VERSION = '2026.11.1';

/** The active policy with its frameworks, and the indexes the module reads them by. */
export class ActivePolicy {
  readonly issuers: ReadonlyMap<string, IssuerEntry>;
  /** Claim code -> its framework claim and the framework's occupation. */
  readonly claimCodes: ReadonlyMap<string, { claim: FrameworkClaim; occupation_code: string }>;
  readonly frameworksByOccupation: ReadonlyMap<string, Framework>;

  constructor(
    readonly policy: Loaded<CredentialsPolicy>,
    readonly frameworks: Loaded<FrameworkSet>,
  ) {
    this.issuers = new Map(policy.pack.issuers.map((i) => [i.id, i]));
    this.frameworksByOccupation = new Map(frameworks.pack.frameworks.map((f) => [f.occupation_code, f]));
    const codes = new Map<string, { claim: FrameworkClaim; occupation_code: string }>();
    for (const f of frameworks.pack.frameworks) for (const c of f.claims) codes.set(c.code, { claim: c, occupation_code: f.occupation_code });
    this.claimCodes = codes;
  }

  get pack(): CredentialsPolicy {
    return this.policy.pack;
  }

  /** The level a claim code needs to count: its framework's NVQF level, or 1 where the framework gives none. */
  requiredLevel(code: string): number {
    return this.claimCodes.get(code)?.claim.nvqf_level ?? 1;
  }
}

export function activePolicy(policyVersion = ACTIVE_POLICY_VERSION, frameworksVersion = ACTIVE_FRAMEWORKS_VERSION): ActivePolicy {
  const fw = loadDir<FrameworkSet>('frameworks', checkFrameworks).get(frameworksVersion);
  if (!fw) throw new Error(`no credentials frameworks ${frameworksVersion}`);
  const p = loadDir<CredentialsPolicy>('policy', (raw) => checkPolicy(raw, fw.pack)).get(policyVersion);
  if (!p) throw new Error(`no credentials policy pack ${policyVersion}`);
  return new ActivePolicy(p, fw);
}
