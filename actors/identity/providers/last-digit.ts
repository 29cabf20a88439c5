/**
 * What every sandbox source shares (reference 1.3, as Smile ID's legacy sandbox): the LAST DIGIT
 * of the identifier chooses the answer, and 7 always answers `slowAnswerMs` later, a match. A slow
 * answer is compared by the source itself, and its reference carries the source and the time it
 * is ready, so any node can collect it. Each source says what its other digits answer
 * (`answer`) and what a slow answer found (`slowMatch`). Each counts the queries it received
 * (`calls`), so a test can show none were made.
 */
import type { CheckKind } from '../policy.ts';
import type { IdentitySource, SourceAnswer, SourceFieldMatches, SourceQuery, SourceState } from './source.ts';

/** The last digit of an identifier, letters after it passed over (a vNIN ends in two letters). */
export function lastDigit(identifier: string): number {
  const m = /(\d)[A-Za-z]*$/.exec(identifier);
  return m ? Number(m[1]) : 0;
}

export abstract class LastDigitSandbox implements IdentitySource {
  abstract readonly check: CheckKind;
  abstract readonly testValues: readonly { value: string; answer: string }[];
  readonly mocked = true;
  calls = 0;

  constructor(
    readonly id: string,
    readonly name: string,
    private readonly slowAnswerMs: number,
  ) {}

  /** The answer to a query whose identifier ends in `digit` (never 7: that one is slow). */
  protected abstract answer(digit: number, q: SourceQuery): SourceAnswer;

  /** What a slow answer found when collected: the source's own comparison, or none (contactability). */
  protected abstract slowMatch(): SourceFieldMatches | undefined;

  state(): SourceState {
    return 'available';
  }

  async query(q: SourceQuery, now: number): Promise<SourceAnswer> {
    this.calls++;
    const digit = lastDigit(q.identifier);
    if (digit !== 7) return this.answer(digit, q);
    const ready_at = now + this.slowAnswerMs;
    return { status: 'deferred', reference: `${this.id}.${ready_at}`, ready_at };
  }

  async collect(reference: string, now: number): Promise<SourceAnswer> {
    const [id, at] = reference.split('.');
    const ready_at = Number(at);
    if (id !== this.id || !Number.isSafeInteger(ready_at)) return { status: 'silent', detail: `${this.name} knows no query under this reference.` };
    if (now < ready_at) return { status: 'deferred', reference, ready_at };
    return { status: 'found', fields: this.slowMatch() };
  }
}
