/**
 * Credential issuers behind one interface (DESIGN "Areas": external parties sit behind a provider;
 * spec 2.5 CredentialVerification.method; reference 2.2). An issuer is asked once per
 * verification and the query is what is charged; the module decides what the answer means
 * (spec rule 8: silence is never a pass).
 *
 * The sandbox issuer answers by documented test values of `credential_reference` (as a payments
 * API's test card numbers do), for every issuer in the policy pack:
 *
 * | credential_reference    | register_api             | issuer_portal                         | assisted_manual                |
 * |-------------------------|--------------------------|---------------------------------------|--------------------------------|
 * | ends in 0000            | no answer (silence)      | no answer before the service level    | no answer before the service level |
 * | ends in 4444            | a contrary answer        | a contrary answer after answer_hours  | as below                       |
 * | anything else, or none  | confirmed at once        | confirmed after answer_hours          | stays pending: a person at the issuer answers through verify / contradict / mark_unverified |
 */
import { assertNever, type MoneyValue } from '../../../kernel/index.ts';
import type { IssuerEntry } from '../policy.ts';

export const ISSUER_TEST_VALUES = {
  /** A credential_reference ending in this gets no answer from the issuer. */
  silentSuffix: '0000',
  /** A credential_reference ending in this gets a contrary answer. */
  contrarySuffix: '4444',
} as const;

export type IssuerAnswer =
  | { kind: 'confirmed'; evidence_date: string }
  | { kind: 'contrary'; detail: string }
  | { kind: 'silent' };

export interface IssuerQuery {
  issuer: IssuerEntry;
  subject_ref: string;
  credential_kind: string;
  credential_reference: string | null;
  /** Runtime clock (ms). */
  now: number;
}

export interface IssuerResponse {
  /**
   * register_api: the answer, now. issuer_portal: the answer the portal will give at `answer_at`
   * (null when it will not answer). assisted_manual: null (a person records the issuer's answer).
   */
  answer: IssuerAnswer | null;
  answer_at: number | null;
  /** What the query cost. */
  charge: MoneyValue;
  /** The answer came from a simulated issuer. */
  mocked: boolean;
}

export interface IssuerProvider {
  query(q: IssuerQuery): Promise<IssuerResponse>;
}

const day = (ms: number) => new Date(ms).toISOString().slice(0, 10);

export class SandboxIssuers implements IssuerProvider {
  async query(q: IssuerQuery): Promise<IssuerResponse> {
    const ref = q.credential_reference ?? '';
    const charge = { ...q.issuer.fee };
    const answer: IssuerAnswer = ref.endsWith(ISSUER_TEST_VALUES.silentSuffix)
      ? { kind: 'silent' }
      : ref.endsWith(ISSUER_TEST_VALUES.contrarySuffix)
        ? { kind: 'contrary', detail: `${q.issuer.name} holds a record under this reference that does not match: the award was not made to this person.` }
        : { kind: 'confirmed', evidence_date: day(q.now) };
    switch (q.issuer.method) {
      case 'register_api':
        return { answer, answer_at: q.now, charge, mocked: true };
      case 'issuer_portal':
        return answer.kind === 'silent' ? { answer: null, answer_at: null, charge, mocked: true } : { answer: answer.kind === 'confirmed' ? { kind: 'confirmed', evidence_date: day(q.now + q.issuer.answer_hours * 3_600_000) } : answer, answer_at: q.now + q.issuer.answer_hours * 3_600_000, charge, mocked: true };
      case 'assisted_manual':
        return { answer: null, answer_at: null, charge, mocked: true };
      default:
        return assertNever(q.issuer.method);
    }
  }
}
