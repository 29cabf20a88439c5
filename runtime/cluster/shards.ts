/**
 * Shard placement (DESIGN "Sharding"): an actor's shard is hash(kind:id) mod SHARDS, fixed for the
 * life of a deployment. Which live node should own a shard is rendezvous hashing (highest random
 * weight): every node computes the same answer from the same member list, a joining node takes
 * about 1/n of the shards and a leaving one's shards spread over all survivors.
 */

export const DEFAULT_SHARDS = 256;

/** 32-bit FNV-1a of a string's UTF-16 code units. */
export function fnv1a(s: string, seed = 0x811c9dc5): number {
  let h = seed >>> 0;
  for (let i = 0; i < s.length; i++) {
    h ^= s.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h >>> 0;
}

/** FNV-1a runs over the characters in order, so `kind`, `:` and `id` hashed in turn is the hash of `kind:id`, with no string made per ask. */
export const shardOf = (kind: string, id: string, shards = DEFAULT_SHARDS): number => fnv1a(id, fnv1a(':', fnv1a(kind))) % shards;

/** The journal stream `${kind}.${id}` of an actor, mapped to its shard. */
export function shardOfStream(stream: string, shards = DEFAULT_SHARDS): number {
  const dot = stream.indexOf('.');
  return shardOf(stream.slice(0, dot), stream.slice(dot + 1), shards);
}

/** Node ids' hashes: a lease pass asks for every shard's owner over the same few ids. */
const nodeHashes = new Map<string, number>();
function nodeHash(n: string): number {
  let h = nodeHashes.get(n);
  if (h === undefined) {
    if (nodeHashes.size >= 4096) nodeHashes.clear();
    nodeHashes.set(n, (h = fnv1a(n)));
  }
  return h;
}

/** The node with the highest weight for `shard`, or undefined when there are none. */
export function preferredOwner(shard: number, nodes: readonly string[]): string | undefined {
  let best: string | undefined;
  let bestWeight = -1;
  for (const n of nodes) {
    const w = mix(nodeHash(n) ^ Math.imul(shard + 1, 0x9e3779b1));
    if (w > bestWeight || (w === bestWeight && best !== undefined && n < best)) {
      best = n;
      bestWeight = w;
    }
  }
  return best;
}

/** A 32-bit finaliser (murmur3 fmix32) so nearby inputs give unrelated weights. */
function mix(h: number): number {
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}
