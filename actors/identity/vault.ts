/**
 * Where the identity module keeps what it may keep of personal data (spec rule 6; reference 1.1,
 * 1.7): per verification, the masked identifiers shown in its evidence bundle and the keyed digests
 * of what was claimed, in the key-value store under the verification's id, never in the journal,
 * a snapshot or an event. Digests of identifiers are also listed per organisation
 * (`identity/<org>/digest/<digest>` -> verification ids) to find the same identifier presented for
 * two subjects (merge candidates): a list per organisation and digest, whose members are the
 * passports (one per subject) that presented it, with each passport's subject_ref kept beside it.
 * Erasure (a subject request) deletes a verification's entry and the subject's digest
 * memberships; the decision records (outcomes, levels, which sources said what) stay.
 * The digest key is the platform's: IDENTITY_DIGEST_KEY, or one made once and kept in the store.
 */
import { keyValue, lists, type Platform } from '../../kernel/index.ts';
import { sortKeyTime } from '../../runtime/index.ts';
import { Digester } from './personal-data.ts';
import type { SourceCheck } from './policy.ts';

export interface VaultEntry {
  passport_id: string;
  /** Masked identifiers by check: government_identifier, bank_identifier, contactability. */
  masked: Partial<Record<SourceCheck, string>>;
  /** Keyed digests of the NIN and BVN (never of a vNIN, not of a phone). */
  digests: Partial<Record<Exclude<SourceCheck, 'contactability'>, string>>;
  /** Keyed digests of the claimed name tokens and date of birth, kept only while an answer is to be compared later. */
  claims: { name: string[] | null; date_of_birth: string | null };
}

const KEY_NAME = 'identity:digest-key';
const entryKey = (org: string, verification: string) => `identity:vault:${org}:${verification}`;
const digestList = (org: string, digest: string) => `identity/${org}/digest/${digest}`;
const subjectKey = (org: string, passport: string) => `identity:subject:${org}:${passport}`;

export class Vault {
  private digester: Digester | undefined;

  constructor(private readonly platform: Platform) {}

  async start(): Promise<void> {
    const configured = this.platform.config.IDENTITY_DIGEST_KEY;
    let key = configured;
    if (!key) {
      await keyValue(this.platform).setIfAbsent(KEY_NAME, Digester.generateKey());
      key = (await keyValue(this.platform).get<string>(KEY_NAME)) as string;
    }
    this.digester = new Digester(Buffer.from(key, 'base64'));
  }

  get digests(): Digester {
    if (!this.digester) throw new Error('identity vault used before start');
    return this.digester;
  }

  async put(org: string, verification: string, subjectRef: string, entry: VaultEntry, at: number): Promise<void> {
    await keyValue(this.platform).set(entryKey(org, verification), entry);
    const ops = Object.values(entry.digests)
      .filter((d): d is string => typeof d === 'string')
      .map((d) => ({ op: 'put' as const, list: digestList(org, d), id: entry.passport_id, sortKey: sortKeyTime(at) }));
    if (ops.length) {
      await keyValue(this.platform).setIfAbsent(subjectKey(org, entry.passport_id), subjectRef);
      await lists(this.platform).apply(ops);
    }
  }

  /** The subject_ref behind a passport id found on a digest list. */
  subjectOf(org: string, passport: string): Promise<string | undefined> {
    return keyValue(this.platform).get<string>(subjectKey(org, passport));
  }

  get(org: string, verification: string): Promise<VaultEntry | undefined> {
    return keyValue(this.platform).get<VaultEntry>(entryKey(org, verification));
  }

  /** The passports (subjects) that presented this identifier digest, oldest first (at most `limit`). */
  async sameDigest(org: string, digest: string, limit = 20): Promise<string[]> {
    const page = await lists(this.platform).page(digestList(org, digest), { limit, order: 'asc' });
    return page.ids;
  }

  /** Erasure: the entry and its digest memberships go. Returns whether there was one. */
  async erase(org: string, verification: string): Promise<boolean> {
    const e = await this.get(org, verification);
    if (!e) return false;
    const ops = Object.values(e.digests)
      .filter((d): d is string => typeof d === 'string')
      .map((d) => ({ op: 'remove' as const, list: digestList(org, d), id: e.passport_id }));
    if (ops.length) await lists(this.platform).apply(ops);
    await keyValue(this.platform).delete(entryKey(org, verification));
    return true;
  }
}
