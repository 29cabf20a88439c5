/**
 * Strings a store keeps for long (a reply kept for idempotent replays, a public event's envelope).
 * V8 builds a long result of JSON.stringify (and of `+`) as a tree of pieces: its string builder
 * adds parts of growing size, so the JSON of one record is a root and five or six pieces, each an
 * object the collector copies and marks for as long as the string is kept. Converting the string
 * to a number reads its characters, which makes V8 flatten the tree in place (the root then points
 * at one flat copy, and the collector drops the root the next time it moves the string): one
 * object instead of the tree, for as long as the string is kept.
 */
export function flat(s: string): string {
  // the conversion's result is not needed, only its effect on the string
  void ((s as unknown as number) | 0);
  return s;
}
