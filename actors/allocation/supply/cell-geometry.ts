/**
 * An H3 cell's geometry as the supply index's ring expansion needs it (supply-index.ts): its centre,
 * the radius of a circle holding the whole cell (a lower bound on the distance to anything inside
 * is the distance to the centre less it), and the radius of one inside it.
 */
import { cellToBoundary, cellToLatLng } from 'h3-js';
import { aToMetres, cosLat, haversineA } from '../geo.ts';

export interface CellGeo {
  lat: number;
  lng: number;
  cos: number;
  /** Circumradius in metres (centre to farthest vertex), with a hair of margin. */
  radius: number;
  /** Distance from the centre within which a point is certainly inside the cell. */
  inner: number;
}

export function cellGeometry(cell: string): CellGeo {
  const [lat, lng] = cellToLatLng(cell);
  const c = cosLat(lat);
  const boundary = cellToBoundary(cell);
  let radius = 0;
  for (const [vlat, vlng] of boundary) radius = Math.max(radius, aToMetres(haversineA(lat, lng, c, vlat, vlng, cosLat(vlat))));
  return { lat, lng, cos: c, radius: radius * 1.001 + 0.01, inner: inradius(lat, lng, boundary) * 0.95 };
}

/** Distance from the centre to the nearest edge, in a local flat frame (fine at cell scale). */
function inradius(lat: number, lng: number, boundary: number[][]): number {
  const mLat = 111_195;
  const mLng = mLat * cosLat(lat);
  let best = Infinity;
  for (let i = 0; i < boundary.length; i++) {
    const [aLat, aLng] = boundary[i];
    const [bLat, bLng] = boundary[(i + 1) % boundary.length];
    const ax = (aLng - lng) * mLng, ay = (aLat - lat) * mLat;
    const bx = (bLng - lng) * mLng, by = (bLat - lat) * mLat;
    const dx = bx - ax, dy = by - ay;
    const t = Math.max(0, Math.min(1, -(ax * dx + ay * dy) / (dx * dx + dy * dy || 1)));
    best = Math.min(best, Math.hypot(ax + t * dx, ay + t * dy));
  }
  return best;
}
