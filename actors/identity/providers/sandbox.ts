/**
 * Sandbox identity sources (reference 1.3: build fixtures from the providers' test values and cover
 * success, not found, invalid format and source down). As with Smile ID's legacy sandbox, the
 * LAST DIGIT of the identifier chooses the answer; invalid formats never reach a source (refused
 * with 400 first, reference 1.4). Documented in docs/gaps.md#identity and served by
 * GET /v1/identity/sources:
 *
 *   last digit      government_identifier / bank_identifier       contactability (phone)
 *   0 4 6 8 9       found; the record holds the claimed name       reachable: the channel is proved
 *                   and date of birth (a match)
 *   1               not found (an answer: the check fails)        unreachable (the check fails)
 *   2               found; the date of birth differs              reachable
 *   3               silent: the source is unavailable             silent
 *   5               found; the name differs entirely              reachable
 *   7               slow: answers `slowAnswerMs` later, a match   slow: answers later, reachable
 *
 * Dojah's sandbox NIN 70123456789 therefore matches; a vNIN (2 letters, 12 digits, 2 letters) is
 * judged by its last digit. An answer given at once returns the record, which we compare; a slow
 * answer is compared by the source itself (per-field results, as VerifyMe and Youverify answer)
 * and its reference carries everything needed to collect it, so any node can collect it
 * (last-digit.ts, which the corporate registry shares).
 */
import type { CheckKind } from '../policy.ts';
import { SandboxCorporateRegistry } from './corporate-registry.ts';
import { LastDigitSandbox } from './last-digit.ts';
import type { IdentitySource, SourceAnswer, SourceFieldMatches, SourceQuery } from './source.ts';

export const SANDBOX_TEST_VALUES = [
  { value: 'ends in 0, 4, 6, 8 or 9', answer: 'found: the record matches the claimed name and date of birth (contactability: reachable)' },
  { value: 'ends in 1', answer: 'not found: the check fails (contactability: unreachable)' },
  { value: 'ends in 2', answer: 'found: the date of birth differs (contactability: reachable)' },
  { value: 'ends in 3', answer: 'silent: the source does not answer; the verification is unresolved and names it' },
  { value: 'ends in 5', answer: 'found: the name differs (contactability: reachable)' },
  { value: 'ends in 7', answer: 'slow: answers later (a match; contactability: reachable); the verification is pending until then' },
] as const;

const MISMATCH_NAME = 'Sandbox Unrelated Person';

function shiftDate(date: string | undefined): string | null {
  if (!date) return null;
  const d = new Date(`${date}T00:00:00Z`);
  d.setUTCFullYear(d.getUTCFullYear() - 1);
  return d.toISOString().slice(0, 10);
}

export class SandboxSource extends LastDigitSandbox {
  readonly testValues = SANDBOX_TEST_VALUES;

  constructor(
    id: string,
    name: string,
    readonly check: CheckKind,
    slowAnswerMs: number,
  ) {
    super(id, name, slowAnswerMs);
  }

  protected answer(digit: number, q: SourceQuery): SourceAnswer {
    const found = (full_name: string | undefined, dob: string | null | undefined): SourceAnswer =>
      this.check === 'contactability' ? { status: 'found' } : { status: 'found', record: { full_name: full_name ?? '', date_of_birth: dob ?? null } };
    switch (digit) {
      case 1:
        return { status: 'not_found' };
      case 2:
        return found(q.full_name, this.check === 'contactability' ? q.date_of_birth : shiftDate(q.date_of_birth));
      case 3:
        return { status: 'silent', detail: `${this.name} did not answer (sandbox: identifier ends in 3).` };
      case 5:
        return found(this.check === 'contactability' ? q.full_name : MISMATCH_NAME, q.date_of_birth);
      default:
        return found(q.full_name, q.date_of_birth);
    }
  }

  /** A slow sandbox answer is a match, compared by the source against the claims it was sent. */
  protected slowMatch(): SourceFieldMatches | undefined {
    return this.check === 'contactability' ? undefined : { name: 'exact', date_of_birth: true };
  }
}

/** The sandbox realm's sources, one per check that queries outside (name and date-of-birth matching is ours), the corporate registry among them. */
export function sandboxSources(slowAnswerMs = 120_000): IdentitySource[] {
  return [
    new SandboxSource('sandbox_nimc_nin', 'Sandbox NIN registry (NIMC)', 'government_identifier', slowAnswerMs),
    new SandboxSource('sandbox_nibss_bvn', 'Sandbox BVN registry (NIBSS)', 'bank_identifier', slowAnswerMs),
    new SandboxSource('sandbox_phone_otp', 'Sandbox phone contactability (OTP)', 'contactability', slowAnswerMs),
    new SandboxCorporateRegistry('sandbox_cac_registry', 'Sandbox corporate registry (CAC)', slowAnswerMs),
  ];
}
