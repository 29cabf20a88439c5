/**
 * Reading validation (spec 2.8, 4.7 heartbeat rules). Each reading of a structurally valid batch is
 * judged on its own, in a fixed precedence, and either accepted or refused with one spec reason:
 *
 *   1 recorded_in_the_future        recorded_at > now + clock_skew_tolerance
 *   2 older_than_retention_window   recorded_at < now - retention_window
 *   3 duplicate_reading             a reading with the same recorded_at was accepted before (or
 *                                   earlier in this batch)
 *   4 outside_collection_window     the worker was neither available nor on assignment at
 *                                   recorded_at (no position is stored: the reading is dropped)
 *   5 accuracy_below_threshold      position.accuracy_metres > max_accuracy_metres
 *   6 implausible_movement          speed to the nearest positioned neighbour in time, after
 *                                   discounting both accuracies, > max_plausible_speed
 *
 * Readings are reconciled by recorded_at, not arrival: they are judged in recorded_at order, and
 * `reconciled` is true when an accepted reading arrived late (before one already held) or out of
 * order within the batch. Accepted readings are recorded into `recent` as they are judged.
 */
import type { AvailabilityState, Reading } from './heartbeat.ts';
import { distanceMetres } from '../geo.ts';
import type { PolicyPack } from '../policy.ts';
import type { RecentReadings } from './recent-readings.ts';

export const REJECTION_REASONS = [
  'outside_collection_window',
  'implausible_movement',
  'recorded_in_the_future',
  'older_than_retention_window',
  'duplicate_reading',
  'accuracy_below_threshold',
] as const;
export type RejectionReason = (typeof REJECTION_REASONS)[number];

export interface Rejection {
  index: number;
  reason: RejectionReason;
  detail?: string;
}

export const SIGNAL_SOURCES = ['mock_location', 'device_integrity', 'implausible_movement', 'network_cross_check'] as const;
export type SignalSource = (typeof SIGNAL_SOURCES)[number];

export interface Signal {
  source: SignalSource;
  /** ms; the recorded_at of the reading that fired it (or the check's time). */
  firedAt: number;
  detail: string;
  /** True when a simulated provider produced it (spec 2.1 mocked). */
  mocked?: boolean;
}

/** What the worker was at an instant, from its availability history. */
export interface WorkerStateAt {
  availability: AvailabilityState;
  onAssignment: boolean;
}

export interface JudgeContext {
  now: number;
  policy: PolicyPack;
  stateAt(at: number): WorkerStateAt;
  recent: RecentReadings;
  /** recorded_at values older than `recent` that the ReadingStore already holds. */
  olderDuplicates: ReadonlySet<number>;
}

export interface Drift {
  index: number;
  reported: AvailabilityState;
  recorded: AvailabilityState;
}

export interface Verdict {
  /** Accepted readings in recorded_at order. */
  accepted: Reading[];
  /** In submission order (by index). */
  rejections: Rejection[];
  reconciled: boolean;
  signals: Signal[];
  drift: Drift[];
}

export function judgeBatch(readings: readonly Reading[], ctx: JudgeContext): Verdict {
  const { now, policy, recent } = ctx;
  const h = policy.heartbeat;
  const future = now + h.clock_skew_tolerance_seconds * 1000;
  const horizon = now - h.retention_window_seconds * 1000;
  const maxSpeed = h.max_plausible_speed_metres_per_second;
  const latestBefore = recent.latest;

  let inOrder = true;
  for (let i = 1; i < readings.length; i++) if (readings[i].recordedAt < readings[i - 1].recordedAt) inOrder = false;
  const ordered = inOrder ? readings : [...readings].sort((a, b) => a.recordedAt - b.recordedAt || a.index - b.index);

  const accepted: Reading[] = [];
  const rejections: Rejection[] = [];
  const signals: Signal[] = [];
  const drift: Drift[] = [];
  let late = false;

  for (const r of ordered) {
    const at = r.recordedAt;
    if (at > future) {
      rejections.push({ index: r.index, reason: 'recorded_in_the_future', detail: `recorded_at is more than ${h.clock_skew_tolerance_seconds} s ahead of the server clock.` });
      continue;
    }
    if (at < horizon) {
      rejections.push({ index: r.index, reason: 'older_than_retention_window', detail: `recorded_at is older than the ${h.retention_window_seconds} s retention window.` });
      continue;
    }
    if (recent.has(at) || (at < recent.oldest && ctx.olderDuplicates.has(at))) {
      rejections.push({ index: r.index, reason: 'duplicate_reading', detail: 'A reading with this recorded_at was already accepted.' });
      continue;
    }
    const state = ctx.stateAt(at);
    if (r.availability !== undefined && r.availability !== state.availability) drift.push({ index: r.index, reported: r.availability, recorded: state.availability });
    if (state.availability !== 'available' && !state.onAssignment) {
      rejections.push({ index: r.index, reason: 'outside_collection_window', detail: 'The worker was neither available nor on assignment at recorded_at; no position was stored.' });
      continue;
    }
    const p = r.position;
    if (p) {
      if (p.accuracy_metres > h.max_accuracy_metres) {
        rejections.push({ index: r.index, reason: 'accuracy_below_threshold', detail: `accuracy_metres ${p.accuracy_metres} is worse than ${h.max_accuracy_metres}.` });
        continue;
      }
      const speed = Math.max(neighbourSpeed(recent, recent.positionedBefore(at), r), neighbourSpeed(recent, recent.positionedAfter(at), r));
      if (speed > maxSpeed) {
        const detail = `Movement at ${Math.round(speed)} m/s exceeds ${maxSpeed} m/s.`;
        rejections.push({ index: r.index, reason: 'implausible_movement', detail });
        signals.push({ source: 'implausible_movement', firedAt: at, detail });
        continue;
      }
    }
    if (at < latestBefore) late = true;
    recent.insert(at, p ? p.latitude : NaN, p ? p.longitude : NaN, p ? p.accuracy_metres : NaN);
    accepted.push(r);
    if (r.mock === true) signals.push({ source: 'mock_location', firedAt: at, detail: 'The device reported mock_location_detected.' });
    if (r.attested === false) signals.push({ source: 'device_integrity', firedAt: at, detail: 'The device could not attest its integrity.' });
  }
  if (!inOrder) rejections.sort((a, b) => a.index - b.index);
  if (!inOrder && accepted.length > 1) {
    // out of order within the batch matters only when accepted readings were reordered
    for (let i = 1; i < accepted.length && !late; i++) if (accepted[i].index < accepted[i - 1].index) late = true;
  }
  return { accepted, rejections, reconciled: late, signals, drift };
}

/** Speed (m/s) between a reading and a remembered positioned reading, net of both accuracies. */
function neighbourSpeed(recent: RecentReadings, i: number, r: Reading): number {
  if (i < 0 || !r.position) return 0;
  const dt = Math.abs(recent.at[i] - r.recordedAt) / 1000;
  const d = distanceMetres(recent.lat[i], recent.lng[i], r.position.latitude, r.position.longitude);
  const net = d - recent.acc[i] - r.position.accuracy_metres;
  if (net <= 0) return 0;
  return dt > 0 ? net / dt : Infinity;
}
