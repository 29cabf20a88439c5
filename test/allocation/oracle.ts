/**
 * The brute-force reference the supply index is checked against (STYLE "A test against an
 * oracle"): every worker the index holds, read once through its public face, each query a full
 * scan ranked by the same haversine term and the same tie rule (worker id), so "exact" means
 * identical answers.
 */
import { aToMetres, cosLat, haversineA, metresToA } from '../../actors/allocation/geo.ts';
import type { Neighbour, SupplyIndex } from '../../actors/allocation/index.ts';

export interface Placed {
  id: string;
  lat: number;
  lng: number;
}

/** The workers of `ids` that `ix` holds, with the positions it stored. */
export function placedIn(ix: SupplyIndex, ids: Iterable<string>): Placed[] {
  const out: Placed[] = [];
  for (const id of ids) {
    const p = ix.position(id);
    if (p) out.push({ id, lat: p.latitude, lng: p.longitude });
  }
  return out;
}

/** Every worker within the radius, nearest first, ties by worker id, at most `limit`. */
export function bruteForce(workers: readonly Placed[], lat: number, lng: number, radiusMetres: number, limit: number): Neighbour[] {
  const cq = cosLat(lat);
  const aMax = metresToA(radiusMetres);
  const hits: { a: number; w: Placed }[] = [];
  for (const w of workers) {
    const a = haversineA(lat, lng, cq, w.lat, w.lng, cosLat(w.lat));
    if (a <= aMax) hits.push({ a, w });
  }
  hits.sort((x, y) => x.a - y.a || (x.w.id < y.w.id ? -1 : x.w.id > y.w.id ? 1 : 0));
  return hits.slice(0, limit).map(({ a, w }) => ({ worker_id: w.id, distance_metres: aToMetres(a), latitude: w.lat, longitude: w.lng }));
}

/** `prefix` + 0 .. n-1: the ids a test gave its workers. */
export const idsOf = (prefix: string, n: number): string[] => Array.from({ length: n }, (_, i) => `${prefix}${i}`);
