/**
 * A seeded pseudo-random source (xorshift32) for fixtures that must be the same on every run:
 * random workers and queries in the supply tests and bench. Not for anything secret.
 */
export function rng(seed: number): () => number {
  let s = seed >>> 0 || 1;
  return () => {
    s ^= s << 13;
    s ^= s >>> 17;
    s ^= s << 5;
    return (s >>> 0) / 4294967296;
  };
}
