/**
 * A record's view (spec 2.1): its id, `object` (the fixed literal naming the kind), `livemode` and
 * `mocked`, in that order, then the kind's own fields, so every record names the four alike.
 *
 * The kind's fields are assigned onto the head rather than written after a spread of it: V8 builds
 * an object literal that opens with a spread and then adds properties its source lacks on a slow
 * path, a new hidden class per object, several microseconds and a burst of garbage for every view.
 */
export function recordView<O extends string, L extends boolean, M extends boolean, F extends object>(
  object: O,
  id: string,
  livemode: L,
  mocked: M,
  fields: F,
): { id: string; object: O; livemode: L; mocked: M } & F {
  return Object.assign({ id, object, livemode, mocked }, fields);
}
