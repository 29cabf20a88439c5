/**
 * The schema of an enumerated field (spec: every enumerated value is exact): a union of its
 * literal values, which the gateway's validation turns into a refusal naming every allowed value
 * (gateway/validate.ts), and the OpenAPI document into an enum. One helper, so every area's
 * enumerations are declared and refused alike.
 */
import { Type, type TLiteral, type TUnion } from '@sinclair/typebox';

export function enumOf<T extends string>(values: readonly T[], description?: string): TUnion<TLiteral<T>[]> {
  return Type.Union(
    values.map((v) => Type.Literal(v)),
    description ? { description } : {},
  );
}
