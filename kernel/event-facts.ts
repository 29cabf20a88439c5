/**
 * The facts a record's creating event carries, its `type` aside. Where the first event holds every
 * fact the record is made with (DESIGN "The actor runtime": the events are the truth and the state
 * their fold), `evolve` folds it as `{ ...s, ...factsOf(e), status, created_at }`, so the record's
 * fields and the event's payload cannot drift apart.
 */
export function factsOf<E extends { type: string }>(e: E): Omit<E, 'type'> {
  const { type: _t, ...rest } = e;
  return rest;
}
