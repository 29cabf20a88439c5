/**
 * The heartbeat batch (spec 2.8, 4.7, 8) as it arrives on either transport, and its structural
 * check. A batch whose values are out of range or of the wrong type is refused whole with 400
 * validation_failed naming every failing value (index = the reading's position from 1); rule
 * refusals (spec 2.8 reasons) are per reading and live in validation.ts.
 */
import { type Static, Type } from '@sinclair/typebox';
import { ApiError, CALLER_REF, callerRef, enumOf, errorEntry, type ValidationEntry, validationError } from '../../../kernel/index.ts';

export const AVAILABILITY_STATES = ['available', 'unavailable'] as const;
/** Spec 2.8 names `available`; the other values are not shown (docs/gaps.md#allocation). */
export type AvailabilityState = (typeof AVAILABILITY_STATES)[number];
export const CONNECTIVITY = ['offline', 'poor', 'fair', 'good'] as const;
export type Connectivity = (typeof CONNECTIVITY)[number];

// The batch as it arrives, for the OpenAPI document; parseBatch is the check both transports run.
export const GeoPointSchema = Type.Object({
  latitude: Type.Number({ minimum: -90, maximum: 90 }),
  longitude: Type.Number({ minimum: -180, maximum: 180 }),
  accuracy_metres: Type.Number({ minimum: 0 }),
});
export const HeartbeatSchema = Type.Object({
  recorded_at: Type.String({ format: 'date-time' }),
  position: Type.Optional(Type.Union([GeoPointSchema, Type.Null()])),
  connectivity: enumOf(CONNECTIVITY),
  availability: Type.Optional(enumOf(AVAILABILITY_STATES)),
  battery_percent: Type.Optional(Type.Union([Type.Integer({ minimum: 0, maximum: 100 }), Type.Null()])),
  mock_location_detected: Type.Optional(Type.Union([Type.Boolean(), Type.Null()])),
  device_integrity_attested: Type.Optional(Type.Union([Type.Boolean(), Type.Null()])),
});
export const HeartbeatBatchSchema = Type.Object({
  worker_id: callerRef('The worker (a subject_ref).'),
  readings: Type.Array(HeartbeatSchema, { minItems: 1 }),
});

/** A reading's position: the wire's GeoPoint, checked. */
export type Position = Static<typeof GeoPointSchema>;

/** One reading after the structural check; `index` counts from 1 in submission order. */
export interface Reading {
  index: number;
  recordedAt: number;
  position: Position | undefined;
  connectivity: Connectivity;
  availability: AvailabilityState | undefined;
  battery: number | null;
  mock: boolean | null;
  attested: boolean | null;
}

export interface HeartbeatBatch {
  workerId: string;
  readings: Reading[];
}

/** A subject_ref: the kernel's one rule for caller references (kernel/caller-ref.ts), so it can sit in a path. */
export const WORKER_ID = CALLER_REF;
const RFC3339 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,9})?(Z|[+-]\d{2}:\d{2})$/i;

const isNum = (x: unknown): x is number => typeof x === 'number' && Number.isFinite(x);

/** Parse and check a batch; throws ApiError validation_failed naming every failing value. */
export function parseBatch(body: unknown, maxReadings: number): HeartbeatBatch {
  const errs: ValidationEntry[] = [];
  const err = (index: number, field: string, code: string, detail: string) => errs.push(errorEntry(field, code, detail, index));
  if (body === null || typeof body !== 'object' || Array.isArray(body)) throw new ApiError('invalid_request', 'The batch must be an object with worker_id and readings.');
  const b = body as Record<string, unknown>;
  const workerId = b.worker_id;
  if (typeof workerId !== 'string' || !WORKER_ID.test(workerId)) err(1, '/worker_id', 'invalid_worker_id', 'worker_id must be a subject reference of 1 to 255 URL-safe characters.');
  const raw = b.readings;
  if (!Array.isArray(raw) || raw.length === 0) {
    err(1, '/readings', 'required', 'readings must be a non-empty array of heartbeats.');
    throw validationError(errs, 1);
  }
  if (raw.length > maxReadings) {
    err(maxReadings + 1, '/readings', 'too_many_readings', `A batch holds at most ${maxReadings} readings.`);
    throw validationError(errs, raw.length);
  }
  const readings: Reading[] = new Array(raw.length);
  for (let i = 0; i < raw.length; i++) {
    const index = i + 1;
    const at = `/readings/${index}`;
    const r = raw[i] as Record<string, unknown> | null;
    if (r === null || typeof r !== 'object' || Array.isArray(r)) {
      err(index, at, 'invalid_type', 'A heartbeat must be an object.');
      continue;
    }
    let recordedAt = NaN;
    if (typeof r.recorded_at !== 'string' || !RFC3339.test(r.recorded_at) || Number.isNaN((recordedAt = Date.parse(r.recorded_at))))
      err(index, `${at}/recorded_at`, 'invalid_date_time', 'recorded_at must be an RFC 3339 date-time.');
    let position: Position | undefined;
    const p = r.position as Record<string, unknown> | null | undefined;
    if (p !== undefined && p !== null) {
      if (typeof p !== 'object' || Array.isArray(p)) err(index, `${at}/position`, 'invalid_type', 'position must be a GeoPoint.');
      else {
        const { latitude, longitude, accuracy_metres } = p;
        let ok = true;
        if (!isNum(latitude) || latitude < -90 || latitude > 90) (ok = false), err(index, `${at}/position/latitude`, 'out_of_range', 'latitude must be a number from -90 to 90.');
        if (!isNum(longitude) || longitude < -180 || longitude > 180) (ok = false), err(index, `${at}/position/longitude`, 'out_of_range', 'longitude must be a number from -180 to 180.');
        if (!isNum(accuracy_metres) || accuracy_metres < 0) (ok = false), err(index, `${at}/position/accuracy_metres`, 'out_of_range', 'accuracy_metres must be a number >= 0.');
        // the decoded object is kept when it is exactly a GeoPoint (no copy on the hot path)
        if (ok) position = Object.keys(p).length === 3 ? (p as unknown as Position) : { latitude: latitude as number, longitude: longitude as number, accuracy_metres: accuracy_metres as number };
      }
    }
    const connectivity = r.connectivity as Connectivity;
    if (connectivity !== 'good' && connectivity !== 'fair' && connectivity !== 'poor' && connectivity !== 'offline') err(index, `${at}/connectivity`, 'invalid_enum', `connectivity must be one of ${CONNECTIVITY.join(', ')}.`);
    const availability = r.availability as AvailabilityState | undefined;
    if (availability !== undefined && availability !== 'available' && availability !== 'unavailable') err(index, `${at}/availability`, 'invalid_enum', `availability must be one of ${AVAILABILITY_STATES.join(', ')}.`);
    const battery = r.battery_percent ?? null;
    if (battery !== null && (!Number.isInteger(battery) || (battery as number) < 0 || (battery as number) > 100)) err(index, `${at}/battery_percent`, 'out_of_range', 'battery_percent must be an integer from 0 to 100 or null.');
    const mock = r.mock_location_detected ?? null;
    if (mock !== null && typeof mock !== 'boolean') err(index, `${at}/mock_location_detected`, 'invalid_type', 'mock_location_detected must be a boolean or null.');
    const attested = r.device_integrity_attested ?? null;
    if (attested !== null && typeof attested !== 'boolean') err(index, `${at}/device_integrity_attested`, 'invalid_type', 'device_integrity_attested must be a boolean or null.');
    readings[i] = { index, recordedAt, position, connectivity, availability, battery: battery as number | null, mock: mock as boolean | null, attested: attested as boolean | null };
  }
  if (errs.length) throw validationError(errs, raw.length);
  return { workerId: workerId as string, readings };
}

/**
 * The stored form of an accepted reading (ReadingStore data; spec 2.8 field names). recorded_at is
 * the StoredReading's recordedAt (ms) and is not repeated here.
 */
export interface StoredReadingData {
  position: Position | null;
  connectivity: Connectivity;
  availability: AvailabilityState | null;
  battery_percent: number | null;
  mock_location_detected: boolean | null;
  device_integrity_attested: boolean | null;
}

export function storedReading(r: Reading): StoredReadingData {
  return {
    position: r.position ?? null,
    connectivity: r.connectivity,
    availability: r.availability ?? null,
    battery_percent: r.battery,
    mock_location_detected: r.mock,
    device_integrity_attested: r.attested,
  };
}
