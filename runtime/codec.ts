/**
 * Snapshots are a versioned codec (STYLE): { schema, kind, id, version, org, state, dedupe },
 * encoded with msgpackr. State must be plain data: objects, arrays, strings, numbers, booleans,
 * null, bigint and Set survive; a Map does not (it comes back as an object), so states use
 * objects or arrays. Each kind's tests round-trip its states through here.
 */
import { Packr } from 'msgpackr';

export interface SnapshotEnvelope {
  schema: number;
  kind: string;
  id: string;
  version: number;
  org: string;
  state: unknown;
  /** Recent dedupe ids, oldest first. */
  dedupe: string[];
}

const packr = new Packr({ structuredClone: true, useRecords: false, useBigIntExtension: true } as ConstructorParameters<typeof Packr>[0]);

export const encodeSnapshot = (s: SnapshotEnvelope): Uint8Array => packr.pack(s);

export function decodeSnapshot(bytes: Uint8Array): SnapshotEnvelope {
  const s = packr.unpack(bytes) as SnapshotEnvelope;
  if (typeof s !== 'object' || s === null || typeof s.version !== 'number' || typeof s.kind !== 'string') {
    throw new Error('not a snapshot envelope');
  }
  return s;
}

/** Encode and decode a value the way a snapshot would (for round-trip tests). */
export const roundTrip = <T>(value: T): T => packr.unpack(packr.pack(value)) as T;
