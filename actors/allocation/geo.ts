/**
 * Great-circle distance, the one metric of the module: reading plausibility, supply-map queries
 * and the brute-force check in the tests all use it, so "exact" means identical numbers.
 */
export const EARTH_RADIUS_METRES = 6_371_008.8;
const RAD = Math.PI / 180;

/** Haversine "a" term; monotonic in distance, so nearest-N can rank by it without asin/sqrt. */
export function haversineA(lat1: number, lng1: number, cosLat1: number, lat2: number, lng2: number, cosLat2: number): number {
  const s1 = Math.sin((lat2 - lat1) * RAD * 0.5);
  const s2 = Math.sin((lng2 - lng1) * RAD * 0.5);
  return s1 * s1 + cosLat1 * cosLat2 * s2 * s2;
}

export const aToMetres = (a: number): number => 2 * EARTH_RADIUS_METRES * Math.asin(Math.sqrt(Math.min(1, a)));

/** The "a" term of a distance in metres (inverse of aToMetres). */
export function metresToA(m: number): number {
  if (m >= Math.PI * EARTH_RADIUS_METRES) return 1;
  const s = Math.sin(m / (2 * EARTH_RADIUS_METRES));
  return s * s;
}

export const cosLat = (lat: number): number => Math.cos(lat * RAD);

export function distanceMetres(lat1: number, lng1: number, lat2: number, lng2: number): number {
  return aToMetres(haversineA(lat1, lng1, cosLat(lat1), lat2, lng2, cosLat(lat2)));
}
