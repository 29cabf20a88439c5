/**
 * Sandbox corporate registry (CAC-like), behind the same source interface as the person registries
 * (spec rule 8; reference 1.2: Prembly and Smile ID answer CAC lookups by registration number).
 * The registration number is RC (company), BN (business name) or IT (incorporated trustees)
 * followed by up to 8 digits, or the digits alone, as Smile ID's CAC format `0000000`. As in the
 * person sandbox, the LAST DIGIT chooses the answer (docs/gaps.md#identity "Organisation passports",
 * GET /v1/identity/sources):
 *
 *   last digit      answer
 *   0 2 4 6 8 9     found, active; the registered name is the claimed business name (a match)
 *   1               not found (an answer: the check fails)
 *   3               silent: the registry times out; the verification is unresolved and names it
 *   5               found; the registered name differs entirely
 *   7               slow: answers `slowAnswerMs` later, a match; pending until then
 *
 * A found answer returns the registered name (record.full_name) with no date of birth; a slow one
 * is compared by the registry itself, so its reference carries all a node needs to collect it.
 */
import { LastDigitSandbox } from './last-digit.ts';
import type { SourceAnswer, SourceFieldMatches, SourceQuery } from './source.ts';

export const REGISTRY_TEST_VALUES = [
  { value: 'registration number ends in 0, 2, 4, 6, 8 or 9', answer: 'found: the business is registered under the claimed name (a match)' },
  { value: 'ends in 1', answer: 'not found: the check fails' },
  { value: 'ends in 3', answer: 'silent: the registry times out; the verification is unresolved and names it' },
  { value: 'ends in 5', answer: 'found: the registered name differs from the claimed business name' },
  { value: 'ends in 7', answer: 'slow: answers later (a match); the verification is pending until then' },
] as const;

const OTHER_BUSINESS = 'Sandbox Unrelated Enterprises';

export class SandboxCorporateRegistry extends LastDigitSandbox {
  readonly check = 'corporate_registry' as const;
  readonly testValues = REGISTRY_TEST_VALUES;

  constructor(id: string, name: string, slowAnswerMs: number) {
    super(id, name, slowAnswerMs);
  }

  protected answer(digit: number, q: SourceQuery): SourceAnswer {
    switch (digit) {
      case 1:
        return { status: 'not_found' };
      case 3:
        return { status: 'silent', detail: `${this.name} timed out (sandbox: registration number ends in 3).` };
      case 5:
        return { status: 'found', record: { full_name: OTHER_BUSINESS, date_of_birth: null } };
      default:
        return { status: 'found', record: { full_name: q.full_name ?? '', date_of_birth: null } };
    }
  }

  protected slowMatch(): SourceFieldMatches {
    return { name: 'exact', date_of_birth: null };
  }
}
