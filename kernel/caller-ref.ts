/**
 * The one rule for a caller's reference to someone it knows (spec 2.4 subject_ref: "opaque caller
 * reference, not a name"; worker_id, worker_ref, engaging_party_ref and the like are subject_refs).
 * A reference names a person across areas, sits in paths (GET /v1/allocation/availability/{worker_id})
 * and in list and journal keys, so it is kept to 1 to 255 URL-safe characters, starting with a
 * letter or digit: no control character (NUL), no lone surrogate, no bidirectional control, no
 * space or look-alike letter that would make two references read alike (docs/gaps.md#identity
 * "Caller references"). Every area declares such a field with `callerRef` and checks one read
 * outside a schema (a path, a msgpack frame) with `isCallerRef`.
 */
import { Type, type TString } from '@sinclair/typebox';

export const CALLER_REF_PATTERN = '^[A-Za-z0-9][A-Za-z0-9_.:-]{0,254}$';
export const CALLER_REF = new RegExp(CALLER_REF_PATTERN);
export const CALLER_REF_RULE = 'a reference of 1 to 255 characters: letters A-Z and a-z, digits, and _ . : - after the first';

export function isCallerRef(value: unknown): value is string {
  return typeof value === 'string' && CALLER_REF.test(value);
}

/** The schema of a caller-supplied reference field. */
export function callerRef(description: string): TString {
  return Type.String({ minLength: 1, maxLength: 255, pattern: CALLER_REF_PATTERN, description: `${description} ${capitalised(CALLER_REF_RULE)}.` });
}

function capitalised(s: string): string {
  return s.charAt(0).toUpperCase() + s.slice(1);
}
