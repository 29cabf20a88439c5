/**
 * The fields every record opens with (spec 2.1): its id, `object` (the fixed literal naming the
 * kind), `livemode` and `mocked`, in that order. A view spreads it first, so every record names the
 * four alike and only its own fields follow.
 */
export function recordHead<O extends string, L extends boolean, M extends boolean>(object: O, id: string, livemode: L, mocked: M): { id: string; object: O; livemode: L; mocked: M } {
  return { id, object, livemode, mocked };
}
