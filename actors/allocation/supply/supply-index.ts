/**
 * The H3 supply index (spec 2.8; DESIGN "The supply map"): positions of the workers currently in the
 * map, bucketed by H3 cell (resolution from the policy pack, default 9), cells grouped into regions
 * by a coarse parent cell (the unit a cluster would place on one node).
 *
 * nearest(): the nearest N within R metres of a point, exact, by ring expansion. After rings
 * 0..k are scanned, any worker not yet seen lies in a cell at grid distance >= k+1, and the
 * geodesic to it crosses some cell of ring k+1 (grid distance changes by at most one between
 * adjacent cells). So min over ring k+1 of (distance to the cell centre - the cell's circumradius)
 * bounds every unseen distance from below; the scan stops once that bound exceeds R, or once N are
 * held and the farthest of them is strictly nearer than the bound. Ranking is by the haversine
 * term (monotonic in distance), ties by worker id, so the result equals a brute-force scan.
 *
 * Per worker: one Map entry id -> slot, a slot (id, bucket, position in bucket, subject number) and
 * four numbers in its bucket's arrays.
 *
 * nearestInto(): the same answer written into a caller's NearestBuffer with each worker's subject
 * number (kernel SubjectNumbers, given at upsert), so a ranking reads the gates' columns by number
 * and allocates nothing per candidate.
 */
import { cellToParent, gridDisk, gridRing, latLngToCell } from 'h3-js';
import { cellGeometry, type CellGeo } from './cell-geometry.ts';
import { aToMetres, cosLat, haversineA, metresToA } from '../geo.ts';
import { before, push, replaceTop, sortHeap } from './nearest-heap.ts';

/** Coordinates live in the bucket, side by side, so a scan reads memory in order. */
interface Bucket {
  cell: string;
  geo: CellGeo;
  region: Region;
  slots: number[];
  lat: number[];
  lng: number[];
  cos: number[];
}

export interface Region {
  cell: string;
  cells: number;
  workers: number;
}

export interface Neighbour {
  worker_id: string;
  distance_metres: number;
  latitude: number;
  longitude: number;
}

/**
 * A reusable answer of nearestInto(): the first `count` entries of each array, nearest first, or
 * in no particular order for a caller that orders them itself (`sorted` false: the same workers,
 * without the sort). One buffer serves one query at a time (the caller's synchronous ranking).
 */
export class NearestBuffer {
  constructor(readonly sorted = true) {}

  count = 0;
  readonly ids: string[] = [];
  /** The haversine term of each distance (metres(i) converts: a ranking converts only those it keeps). */
  readonly a: number[] = [];
  /** Subject numbers as given to upsert (-1 when none was). */
  readonly subjects: number[] = [];
  /** The bounded heap the query works in, kept between queries. */
  readonly heapA: number[] = [];
  readonly heapS: number[] = [];

  /** The i-th distance in metres. */
  metres(i: number): number {
    return aToMetres(this.a[i]);
  }
}

const GEO_CACHE_LIMIT = 200_000;
const RAD = Math.PI / 180;
const RING_CACHE_LIMIT = 100_000;
/** nearest() reads every worker of a map holding at most this many times its limit. */
const SMALL_MAP_PER_LIMIT = 4;

export class SupplyIndex {
  private readonly slotOf = new Map<string, number>();
  private ids: (string | undefined)[] = [];
  private posInBucket = new Int32Array(1024);
  private subjectOf = new Int32Array(1024);
  private bucketOf: (Bucket | undefined)[] = [];
  private readonly free: number[] = [];
  private readonly buckets = new Map<string, Bucket>();
  private readonly regions = new Map<string, Region>();
  /** Geometry of cells seen by queries that hold no bucket (bounded; cleared when full). */
  private readonly geoCache = new Map<string, CellGeo>();
  /** The first rings around recently queried cells (bounded; cleared when full). */
  private readonly ringCache = new Map<string, string[]>();

  constructor(
    readonly resolution = 9,
    readonly regionResolution = 5,
  ) {}

  get size(): number {
    return this.slotOf.size;
  }

  has(id: string): boolean {
    return this.slotOf.has(id);
  }

  position(id: string): { latitude: number; longitude: number; cell: string } | undefined {
    const s = this.slotOf.get(id);
    if (s === undefined) return undefined;
    const b = this.bucketOf[s]!;
    const i = this.posInBucket[s];
    return { latitude: b.lat[i], longitude: b.lng[i], cell: b.cell };
  }

  regionList(): Region[] {
    return [...this.regions.values()];
  }

  /** Enter or move. Returns false when nothing changed (same coordinates). `subject` is the worker's subject number (nearestInto answers it). */
  upsert(id: string, lat: number, lng: number, subject = -1): boolean {
    let s = this.slotOf.get(id);
    const c = cosLat(lat);
    if (s !== undefined) {
      this.subjectOf[s] = subject;
      const b = this.bucketOf[s]!;
      const i = this.posInBucket[s];
      if (b.lat[i] === lat && b.lng[i] === lng) return false;
      // Still well inside its cell (or still in it): move in place.
      if (
        aToMetres(haversineA(b.geo.lat, b.geo.lng, b.geo.cos, lat, lng, c)) < b.geo.inner ||
        latLngToCell(lat, lng, this.resolution) === b.cell
      ) {
        b.lat[i] = lat;
        b.lng[i] = lng;
        b.cos[i] = c;
        return true;
      }
      this.detach(s);
      this.attach(s, latLngToCell(lat, lng, this.resolution), lat, lng, c);
      return true;
    }
    s = this.free.length ? this.free.pop()! : this.grow();
    this.slotOf.set(id, s);
    this.ids[s] = id;
    this.subjectOf[s] = subject;
    this.attach(s, latLngToCell(lat, lng, this.resolution), lat, lng, c);
    return true;
  }

  /** Leave; immediate. Returns whether the worker was in the index. */
  remove(id: string): boolean {
    const s = this.slotOf.get(id);
    if (s === undefined) return false;
    this.slotOf.delete(id);
    this.detach(s);
    this.ids[s] = undefined;
    this.free.push(s);
    return true;
  }

  /**
   * The nearest `limit` workers within `radiusMetres` of the point, nearest first (ties by id).
   * `accept` narrows eligibility further without losing exactness.
   */
  nearest(lat: number, lng: number, radiusMetres: number, limit: number, accept?: (id: string) => boolean): Neighbour[] {
    const heapA: number[] = [];
    const heapS: number[] = [];
    this.search(lat, lng, radiusMetres, limit, accept, heapA, heapS);
    return this.answer(heapA, heapS);
  }

  /** nearest() written into `out` with subject numbers instead of Neighbour objects; returns out.count. */
  nearestInto(lat: number, lng: number, radiusMetres: number, limit: number, out: NearestBuffer): number {
    // Every worker of a map no larger than the limit is in the answer if within the radius: an
    // unordered answer then needs no heap, only the pass that measures each distance, written
    // straight into the buffer.
    if (!out.sorted && this.slotOf.size <= limit) return this.within(lat, lng, radiusMetres, out);
    const { heapA, heapS } = out;
    heapA.length = 0;
    heapS.length = 0;
    this.search(lat, lng, radiusMetres, limit, undefined, heapA, heapS);
    if (out.sorted) sortHeap(this.ids, heapA, heapS);
    const n = heapA.length;
    for (let i = 0; i < n; i++) {
      const s = heapS[i];
      out.ids[i] = this.ids[s]!;
      out.a[i] = heapA[i];
      out.subjects[i] = this.subjectOf[s];
    }
    out.ids.length = n;
    out.a.length = n;
    out.subjects.length = n;
    out.count = n;
    return n;
  }

  /** Fills the bounded heap (heapA, heapS) with the nearest `limit` within the radius. */
  private search(lat: number, lng: number, radiusMetres: number, limit: number, accept: ((id: string) => boolean) | undefined, heapA: number[], heapS: number[]): void {
    if (limit <= 0 || this.slotOf.size === 0) return;
    // A map holding no more than a few times `limit` workers: one pass over them costs less than
    // the rings (and the rings would end in the full-scan path anyway); the cost stays bounded by
    // the query's own size, and the ranking is the same, so the answer is too.
    if (this.slotOf.size <= SMALL_MAP_PER_LIMIT * limit) return this.scanAll(lat, lng, radiusMetres, limit, accept, heapA, heapS);
    const cq = cosLat(lat);
    const aMax = metresToA(radiusMetres);
    const origin = latLngToCell(lat, lng, this.resolution);
    let ring: string[] = [origin];
    // latitude window of the farthest held (a >= sin^2(dlat/2)): points outside it cannot enter;
    // recomputed when the farthest changes, with a margin for rounding
    let topA = -1;
    let dLatMax = Infinity;
    // Where the map is sparse around the point, rings cost more than reading every worker: past
    // this many cells, finish with a full scan (same ranking, so the same answer).
    const cellBudget = Math.max(64, this.slotOf.size >> 4);
    let cells = 1;
    for (let k = 0; ; k++) {
      for (const cell of ring) {
        const b = this.buckets.get(cell);
        if (!b) continue;
        if (heapA.length === limit) {
          // the whole cell is farther than the farthest held: nothing in it can enter
          const near = aToMetres(haversineA(lat, lng, cq, b.geo.lat, b.geo.lng, b.geo.cos)) - b.geo.radius;
          if (near > 0 && metresToA(near) > heapA[0]) continue;
        }
        const { slots, lat: bl, lng: bg, cos: bc } = b;
        for (let i = 0; i < slots.length; i++) {
          if (heapA.length === limit) {
            if (heapA[0] !== topA) {
              topA = heapA[0];
              dLatMax = ((2 * Math.asin(Math.sqrt(Math.min(1, topA)))) / RAD) * (1 + 1e-9) + 1e-12;
            }
            const dLat = bl[i] - lat;
            if (dLat > dLatMax || -dLat > dLatMax) continue;
          }
          const a = haversineA(lat, lng, cq, bl[i], bg[i], bc[i]);
          if (a <= aMax) this.offer(heapA, heapS, limit, a, slots[i], accept);
        }
      }
      const next = this.ringAt(origin, k + 1);
      cells += next.length;
      if (cells > cellBudget) {
        heapA.length = 0;
        heapS.length = 0;
        return this.scanAll(lat, lng, radiusMetres, limit, accept, heapA, heapS);
      }
      let bound = Infinity;
      for (const cell of next) {
        const g = this.geo(cell);
        const d = aToMetres(haversineA(lat, lng, cq, g.lat, g.lng, g.cos)) - g.radius;
        if (d < bound) bound = d;
      }
      if (bound > radiusMetres) break;
      if (heapA.length === limit && bound > 0 && heapA[0] < metresToA(bound)) break;
      ring = next;
    }
  }

  /** Every worker, one pass, the same bounded heap: the sparse-area path of nearest(). */
  private scanAll(lat: number, lng: number, radiusMetres: number, limit: number, accept: ((id: string) => boolean) | undefined, heapA: number[], heapS: number[]): void {
    const cq = cosLat(lat);
    const aMax = metresToA(radiusMetres);
    for (const b of this.buckets.values()) {
      const { slots, lat: bl, lng: bg, cos: bc } = b;
      for (let i = 0; i < slots.length; i++) {
        const a = haversineA(lat, lng, cq, bl[i], bg[i], bc[i]);
        if (a <= aMax) this.offer(heapA, heapS, limit, a, slots[i], accept);
      }
    }
  }

  /**
   * Every worker within the radius into `out`, in no particular order (the caller has room for
   * them all); returns the count. The buffer's arrays keep their length from query to query, so a
   * steady stream of queries of one map allocates nothing.
   */
  private within(lat: number, lng: number, radiusMetres: number, out: NearestBuffer): number {
    const cq = cosLat(lat);
    const aMax = metresToA(radiusMetres);
    const { ids, a: as, subjects } = out;
    let n = 0;
    for (const b of this.buckets.values()) {
      const { slots, lat: bl, lng: bg, cos: bc } = b;
      for (let i = 0; i < slots.length; i++) {
        const a = haversineA(lat, lng, cq, bl[i], bg[i], bc[i]);
        if (a <= aMax) {
          const s = slots[i];
          ids[n] = this.ids[s]!;
          as[n] = a;
          subjects[n] = this.subjectOf[s];
          n++;
        }
      }
    }
    if (ids.length !== n) {
      ids.length = n;
      as.length = n;
      subjects.length = n;
    }
    out.count = n;
    return n;
  }

  /**
   * Offers worker slot `s` at haversine `a` to the bounded max-heap of the `limit` nearest (ties by
   * id): it enters if the heap has room or it ranks before the farthest held, and `accept` takes it.
   */
  private offer(heapA: number[], heapS: number[], limit: number, a: number, s: number, accept?: (id: string) => boolean): void {
    const full = heapA.length === limit;
    if (full && !before(this.ids, a, s, heapA[0], heapS[0])) return;
    if (accept && !accept(this.ids[s]!)) return;
    if (full) replaceTop(this.ids, heapA, heapS, a, s);
    else push(this.ids, heapA, heapS, a, s);
  }

  private answer(heapA: number[], heapS: number[]): Neighbour[] {
    sortHeap(this.ids, heapA, heapS);
    const out: Neighbour[] = new Array(heapA.length);
    for (let i = 0; i < heapA.length; i++) {
      const s = heapS[i];
      const b = this.bucketOf[s]!;
      const j = this.posInBucket[s];
      out[i] = { worker_id: this.ids[s]!, distance_metres: aToMetres(heapA[i]), latitude: b.lat[j], longitude: b.lng[j] };
    }
    return out;
  }

  // -- buckets ---------------------------------------------------------------------------------

  private attach(s: number, cell: string, lat: number, lng: number, cos: number): void {
    let b = this.buckets.get(cell);
    if (!b) {
      const regionCell = cellToParent(cell, this.regionResolution);
      let region = this.regions.get(regionCell);
      if (!region) this.regions.set(regionCell, (region = { cell: regionCell, cells: 0, workers: 0 }));
      region.cells++;
      b = { cell, geo: this.geo(cell), region, slots: [], lat: [], lng: [], cos: [] };
      this.buckets.set(cell, b);
    }
    this.posInBucket[s] = b.slots.length;
    b.slots.push(s);
    b.lat.push(lat);
    b.lng.push(lng);
    b.cos.push(cos);
    b.region.workers++;
    this.bucketOf[s] = b;
  }

  private detach(s: number): void {
    const b = this.bucketOf[s]!;
    const i = this.posInBucket[s];
    const last = b.slots.pop()!;
    const lat = b.lat.pop()!;
    const lng = b.lng.pop()!;
    const cos = b.cos.pop()!;
    if (last !== s) {
      b.slots[i] = last;
      b.lat[i] = lat;
      b.lng[i] = lng;
      b.cos[i] = cos;
      this.posInBucket[last] = i;
    }
    this.bucketOf[s] = undefined;
    b.region.workers--;
    if (b.slots.length === 0) {
      this.buckets.delete(b.cell);
      if (--b.region.cells === 0) this.regions.delete(b.region.cell);
    }
  }

  private geo(cell: string): CellGeo {
    const b = this.buckets.get(cell);
    if (b) return b.geo;
    let g = this.geoCache.get(cell);
    if (g) return g;
    g = cellGeometry(cell);
    if (this.geoCache.size >= GEO_CACHE_LIMIT) this.geoCache.clear();
    this.geoCache.set(cell, g);
    return g;
  }

  private ringAt(origin: string, k: number): string[] {
    const key = k < 4 ? origin + k : undefined;
    if (key !== undefined) {
      const hit = this.ringCache.get(key);
      if (hit) return hit;
    }
    let ring: string[];
    try {
      ring = gridRing(origin, k);
    } catch {
      // near a pentagon the fast ring fails; take the disk difference instead
      const outer = new Set(gridDisk(origin, k));
      for (const c of gridDisk(origin, k - 1)) outer.delete(c);
      ring = [...outer];
    }
    if (key !== undefined) {
      if (this.ringCache.size >= RING_CACHE_LIMIT) this.ringCache.clear();
      this.ringCache.set(key, ring);
    }
    return ring;
  }

  private grow(): number {
    const s = this.ids.length;
    if (s === this.posInBucket.length) {
      const p = new Int32Array(s * 2);
      p.set(this.posInBucket);
      this.posInBucket = p;
      const n = new Int32Array(s * 2);
      n.set(this.subjectOf);
      this.subjectOf = n;
    }
    this.ids.push(undefined);
    this.bucketOf.push(undefined);
    return s;
  }
}
