/**
 * Subject numbers (DESIGN "Gates between areas": a gate is a read of memory on this node): a dense
 * number per (organisation, subject) on this node, so a module that answers a gate can keep its
 * answer in a column indexed by the number (subject-columns.ts), and a reader asking about
 * hundreds of subjects in a row (a work order's ranking) reads arrays instead of hashing the
 * organisation and the subject once per gate. Numbers are this node's own: never stored, never
 * sent, never reused; every module of a platform shares one numbering (subjectNumbers()).
 */
import type { Platform } from './area.ts';
import { serviceKey } from './services.ts';

export class SubjectNumbers {
  private readonly byOrg = new Map<string, Map<string, number>>();
  private next = 0;

  /** The subject's number, given on first ask. */
  of(org: string, subject: string): number {
    let m = this.byOrg.get(org);
    if (!m) this.byOrg.set(org, (m = new Map()));
    let n = m.get(subject);
    if (n === undefined) m.set(subject, (n = this.next++));
    return n;
  }

  /** The subject's number, or -1 when none was given yet. */
  find(org: string, subject: string): number {
    return this.byOrg.get(org)?.get(subject) ?? -1;
  }

  /** Numbers given so far (every number is below it). */
  get count(): number {
    return this.next;
  }
}

const SUBJECT_NUMBERS = serviceKey<SubjectNumbers>('kernel.subject-numbers');

/** The platform's one numbering, made on first use. */
export function subjectNumbers(platform: Platform): SubjectNumbers {
  let n = platform.services.get(SUBJECT_NUMBERS);
  if (!n) platform.services.provide(SUBJECT_NUMBERS, (n = new SubjectNumbers()));
  return n;
}
