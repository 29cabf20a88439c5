/**
 * The supply map (spec 2.8 supply state; DESIGN "The supply map"): per organisation, the workers who are available,
 * reporting, not on assignment and not excluded, indexed by H3 cell for the nearest-N query. A
 * worker's facts come in whenever something about them changes; the map writes only when their
 * membership or position changed, and a removal is immediate (spec 6 cascade rule, 60 s at most).
 *
 * excluded_because (first that applies, in this order):
 *   identity_revoked, legal_standing_lapsed   placed by other areas (spec 6 cascade rule)
 *   integrity_flag_upheld  an upheld flag with more than one independent signal suspends them
 *   integrity_flag_open    an open flag holds them out until a person decides it
 *   not_available          availability is not `available`
 *   on_assignment          busy with an assignment
 *   presence_ghost         available but absent
 *   presence_stale         not reporting lately
 *   no_position            no accepted reading with a position yet
 */
import { type NearestBuffer, SupplyIndex, type Neighbour, type Region } from './supply-index.ts';
import type { Presence } from './presence.ts';
import { EXTERNAL_EXCLUSIONS, type ExternalExclusion } from './worker.ts';

export const EXCLUSION_REASONS = [
  ...EXTERNAL_EXCLUSIONS,
  'integrity_flag_upheld',
  'integrity_flag_open',
  'not_available',
  'on_assignment',
  'presence_ghost',
  'presence_stale',
  'no_position',
] as const;
export type ExclusionReason = (typeof EXCLUSION_REASONS)[number];

export interface SupplyFacts {
  available: boolean;
  onAssignment: boolean;
  presence: Presence;
  latitude: number | undefined;
  longitude: number | undefined;
  suspended: boolean;
  flagOpen: boolean;
  /** Durable exclusions placed by other areas, oldest first. */
  external: readonly ExternalExclusion[];
}

export function excludedBecause(f: SupplyFacts): ExclusionReason | null {
  if (f.external.length) return f.external[0];
  if (f.suspended) return 'integrity_flag_upheld';
  if (f.flagOpen) return 'integrity_flag_open';
  if (!f.available) return 'not_available';
  if (f.onAssignment) return 'on_assignment';
  switch (f.presence) {
    case 'ghost':
      return 'presence_ghost';
    case 'stale':
      return 'presence_stale';
    case 'reporting':
      break;
    default: {
      const never: never = f.presence;
      throw new Error(`unknown presence ${String(never)}`);
    }
  }
  if (f.latitude === undefined || f.longitude === undefined) return 'no_position';
  return null;
}

export interface SupplyChange {
  /** entered, moved, left, or unchanged. */
  change: 'entered' | 'moved' | 'left' | 'unchanged';
  excluded_because: ExclusionReason | null;
}

export class SupplyMap {
  private readonly byOrg = new Map<string, SupplyIndex>();

  constructor(
    readonly resolution: number,
    readonly regionResolution: number,
  ) {}

  private index(org: string): SupplyIndex {
    let ix = this.byOrg.get(org);
    if (!ix) this.byOrg.set(org, (ix = new SupplyIndex(this.resolution, this.regionResolution)));
    return ix;
  }

  /** `subject` is the worker's subject number (kernel SubjectNumbers), answered by nearestInto. */
  apply(org: string, worker: string, facts: SupplyFacts, subject = -1): SupplyChange {
    const reason = excludedBecause(facts);
    const ix = this.byOrg.get(org);
    if (reason !== null) {
      const left = ix?.remove(worker) ?? false;
      return { change: left ? 'left' : 'unchanged', excluded_because: reason };
    }
    const index = ix ?? this.index(org);
    const was = index.has(worker);
    const moved = index.upsert(worker, facts.latitude!, facts.longitude!, subject);
    return { change: !was ? 'entered' : moved ? 'moved' : 'unchanged', excluded_because: null };
  }

  /** Immediate removal whatever the facts (used by the cascade rule's callers). */
  remove(org: string, worker: string): boolean {
    return this.byOrg.get(org)?.remove(worker) ?? false;
  }

  has(org: string, worker: string): boolean {
    return this.byOrg.get(org)?.has(worker) ?? false;
  }

  position(org: string, worker: string) {
    return this.byOrg.get(org)?.position(worker);
  }

  nearest(org: string, lat: number, lng: number, radiusMetres: number, limit: number, accept?: (id: string) => boolean): Neighbour[] {
    return this.byOrg.get(org)?.nearest(lat, lng, radiusMetres, limit, accept) ?? [];
  }

  /** nearest() into a reusable buffer, with subject numbers (the ranking's read); returns the count. */
  nearestInto(org: string, lat: number, lng: number, radiusMetres: number, limit: number, out: NearestBuffer): number {
    const ix = this.byOrg.get(org);
    if (ix) return ix.nearestInto(lat, lng, radiusMetres, limit, out);
    out.count = 0;
    return 0;
  }

  size(org: string): number {
    return this.byOrg.get(org)?.size ?? 0;
  }

  regions(org: string): Region[] {
    return this.byOrg.get(org)?.regionList() ?? [];
  }

  clear(): void {
    this.byOrg.clear();
  }
}

export type { NearestBuffer, Neighbour };
