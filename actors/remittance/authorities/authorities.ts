/**
 * Remittance authorities as versioned data (spec 2.10, 4.9; ../shared/reference/ng-payouts-remittance.md
 * section 2; ../shared/reference/ng-payroll-2026.md section 8): every State IRS and the FCT-IRS, the
 * pension fund administrators (PFAs) with their custodian (PFC), the PFCs, FMBN (NHF), NSITF, ITF
 * and NHIA. The data lives in data/ng-remittance-authorities-<version>.json, named by its version
 * (YYYY.MM.N) and the sha256 of its canonical JSON; an active version never changes (spec 9).
 *
 * Ids never change: a State IRS's id is the one payroll already puts on its instruction sets
 * (`authorityIdFor(jurisdiction)` on payroll's face), so a run's PAYE line names the authority
 * here; every other authority's id is derived from its kind and code the same way each time.
 * A PAYE line goes to the State IRS of the employee's State of residence fixed on 1 January
 * (reference 8): `payeAuthorityFor(stateCode)`.
 */
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { contentHash, derivedId } from '../../../kernel/index.ts';
import { isValidNuban } from '../../payouts/index.ts';
import { authorityIdFor } from '../../payroll/index.ts';

export const AUTHORITY_PREFIX = 'remit_authority_rail_obligation_';

export type AuthorityKind = 'state_irs' | 'pension_administrator' | 'pension_custodian' | 'nhf' | 'nsitf' | 'itf' | 'nhia';
export const AUTHORITY_KINDS: readonly AuthorityKind[] = ['state_irs', 'pension_administrator', 'pension_custodian', 'nhf', 'nsitf', 'itf', 'nhia'];

/** The statutory levies a remittance pays (spec 2.10: PAYE lines, pension lines, levies nhf/nsitf/itf/nhia). */
export type Levy = 'paye' | 'pension' | 'nhf' | 'nsitf' | 'itf' | 'nhia';
export const LEVIES: readonly Levy[] = ['paye', 'pension', 'nhf', 'nsitf', 'itf', 'nhia'];
export type LevyCode = Exclude<Levy, 'paye' | 'pension'>;
export const LEVY_CODES: readonly LevyCode[] = ['nhf', 'nsitf', 'itf', 'nhia'];

export interface CollectionAccount {
  bank_code: string;
  account_number: string;
  account_name: string;
}

/** One authority of the data set, with its id and the account a leg pays. */
export interface Authority {
  id: string;
  kind: AuthorityKind;
  /** Short stable code: ISO 3166-2:NG for a State IRS, `pfa_...` / `pfc_...` for pension, the levy's collector otherwise. */
  code: string;
  /** Official name (reference section 2). */
  name: string;
  /** False where the reference marks the name unconfirmed or conflicting [U]. */
  name_confirmed: boolean;
  /** ISO 3166-2:NG subdivision for a State IRS; `NG` for a federal collector. */
  jurisdiction: string;
  levies: Levy[];
  /** A PFA's custodian (PRA s.11(3)(b): remit to the PFC of the employee's PFA); null otherwise. */
  custodian_id: string | null;
  /** Where a leg pays: a PFA's is its custodian's account. */
  collection_account: CollectionAccount;
  /** The authority whose account is `collection_account` (the custodian, for a PFA). */
  collected_by: string;
}

interface RawAuthority {
  kind: AuthorityKind;
  code: string;
  name: string;
  jurisdiction: string;
  levies: Levy[];
  name_confirmed: boolean;
  custodian_code?: string;
  collection_account: CollectionAccount | null;
}

interface AuthorityDocument {
  name: 'ng_remittance_authorities';
  version: string;
  effective_from: string;
  description: string;
  sources: string[];
  unconfirmed: string[];
  authorities: RawAuthority[];
}

export interface AuthorityData {
  version: string;
  content_hash: string;
  effective_from: string;
  list: readonly Authority[];
  byId: ReadonlyMap<string, Authority>;
  /** State IRS by ISO 3166-2:NG code. */
  byState: ReadonlyMap<string, Authority>;
  /** PFA by code, id or upper-cased official name (how payroll's pension lines may name one). */
  pfaByKey: ReadonlyMap<string, Authority>;
  /** The federal collector of each levy. */
  byLevy: ReadonlyMap<LevyCode, Authority>;
}

const VERSION = /^\d{4}\.(0[1-9]|1[0-2])\.[1-9]\d*$/;
const STATE = /^NG-[A-Z]{2}$/;

/** The id of an authority: payroll's PAYE authority id for a State IRS, derived from kind and code otherwise. */
export function authorityIdOf(kind: AuthorityKind, code: string): string {
  return kind === 'state_irs' ? authorityIdFor(code) : derivedId(AUTHORITY_PREFIX, ['authority', kind, code]);
}

/** Builds the data set; throws on a document that is not well formed (a bad data set never becomes active). */
export function loadAuthorities(raw: unknown): AuthorityData {
  const doc = raw as AuthorityDocument;
  const bad = (why: string) => new Error(`remittance authorities: ${why}`);
  if (doc?.name !== 'ng_remittance_authorities' || !VERSION.test(doc.version)) throw bad('name or version');
  const codes = new Set<string>();
  const custodians = new Map<string, RawAuthority>();
  for (const a of doc.authorities) {
    if (!(AUTHORITY_KINDS as readonly string[]).includes(a.kind)) throw bad(`kind ${a.kind}`);
    if (codes.has(`${a.kind}:${a.code}`)) throw bad(`duplicate ${a.kind} ${a.code}`);
    codes.add(`${a.kind}:${a.code}`);
    if (a.kind === 'state_irs' && (!STATE.test(a.code) || a.jurisdiction !== a.code)) throw bad(`State IRS ${a.code} needs its ISO 3166-2:NG code`);
    if (a.kind === 'pension_custodian') custodians.set(a.code, a);
    const acct = a.collection_account;
    if (acct && !isValidNuban(acct.bank_code, acct.account_number)) throw bad(`${a.code}: collection account fails its NUBAN check digit`);
    if (!acct && a.kind !== 'pension_administrator') throw bad(`${a.code}: a collection account is required`);
  }
  const list: Authority[] = doc.authorities.map((a) => {
    const custodian = a.kind === 'pension_administrator' ? custodians.get(a.custodian_code ?? '') : undefined;
    if (a.kind === 'pension_administrator' && !custodian) throw bad(`PFA ${a.code} names no known custodian`);
    const payer = custodian ?? a;
    return {
      id: authorityIdOf(a.kind, a.code),
      kind: a.kind,
      code: a.code,
      name: a.name,
      name_confirmed: a.name_confirmed,
      jurisdiction: a.jurisdiction,
      levies: a.levies,
      custodian_id: custodian ? authorityIdOf('pension_custodian', custodian.code) : null,
      collection_account: payer.collection_account!,
      collected_by: authorityIdOf(payer.kind, payer.code),
    };
  });
  const byState = new Map(list.filter((a) => a.kind === 'state_irs').map((a) => [a.code, a] as const));
  const pfaByKey = new Map<string, Authority>();
  for (const a of list) if (a.kind === 'pension_administrator') for (const k of [a.code, a.id, a.name.toUpperCase()]) pfaByKey.set(k, a);
  const byLevy = new Map<LevyCode, Authority>();
  for (const levy of LEVY_CODES) {
    const a = list.find((x) => x.kind === levy);
    if (!a) throw bad(`no collector for ${levy}`);
    byLevy.set(levy, a);
  }
  if (byState.size !== 37) throw bad(`expected the 36 States and the FCT, found ${byState.size}`);
  return Object.freeze({
    version: doc.version,
    content_hash: contentHash(doc),
    effective_from: doc.effective_from,
    list: Object.freeze(list),
    byId: new Map(list.map((a) => [a.id, a] as const)),
    byState,
    pfaByKey,
    byLevy,
  });
}

const dir = join(dirname(fileURLToPath(import.meta.url)), 'data');
export const AUTHORITIES: AuthorityData = loadAuthorities(JSON.parse(readFileSync(join(dir, 'ng-remittance-authorities-2026.11.1.json'), 'utf8')));

/** The authority with this id, or undefined. */
export const authorityById = (id: string): Authority | undefined => AUTHORITIES.byId.get(id);

/** Every authority, or those of one kind, in the data set's order. */
export const authorities = (kind?: AuthorityKind): readonly Authority[] => (kind ? AUTHORITIES.list.filter((a) => a.kind === kind) : AUTHORITIES.list);

/** The PAYE authority of a State of residence (ISO 3166-2:NG, fixed on 1 January), or undefined for a code that is not a State or the FCT. */
export const payeAuthorityFor = (stateCode: string): Authority | undefined => AUTHORITIES.byState.get(stateCode);

/** The PFA a pension line names (its code, id or official name), or undefined. */
export const pensionAdministrator = (key: string): Authority | undefined => AUTHORITIES.pfaByKey.get(key) ?? AUTHORITIES.pfaByKey.get(key.toUpperCase());

/** The federal collector of a levy (FMBN, NSITF, ITF, NHIA). */
export const levyAuthority = (levy: LevyCode): Authority => AUTHORITIES.byLevy.get(levy)!;

/** The authority record as the API shows it (docs/gaps.md, "Remittance: intake, authorities, obligations"). */
export function authorityView(a: Authority, livemode: boolean) {
  // The record's own fields in its order (loadAuthorities builds each one), the payer folded into the account.
  const { id, collection_account, collected_by, ...fields } = a;
  return {
    id,
    object: 'remittance_authority' as const,
    livemode,
    // The collection account is a sandbox stand-in; the names are data.
    mocked: true,
    ...fields,
    collection_account: { ...collection_account, collected_by },
    data_version: AUTHORITIES.version,
    data_content_hash: AUTHORITIES.content_hash,
  };
}
