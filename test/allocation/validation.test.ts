/** Reading validation (spec 2.8 HeartbeatReceipt reasons, 4.7 heartbeat rules, 8 limits). */
import { describe, expect, it } from 'vitest';
import { parseBatch, type Reading } from '../../actors/allocation/supply/heartbeat.ts';
import { activePolicy } from '../../actors/allocation/index.ts';
import { RecentReadings } from '../../actors/allocation/supply/recent-readings.ts';
import { judgeBatch, type WorkerStateAt } from '../../actors/allocation/supply/validation.ts';
import { isApiError } from '../../kernel/index.ts';
import { reading } from './support.ts';

const policy = activePolicy().pack;
const NOW = Date.parse('2026-01-05T08:00:00Z');
const available: WorkerStateAt = { availability: 'available', onAssignment: false };

function judge(raw: unknown[], opts: { recent?: RecentReadings; stateAt?: (at: number) => WorkerStateAt; older?: Set<number> } = {}) {
  const batch = parseBatch({ worker_id: 'wrk_1', readings: raw }, policy.heartbeat.max_readings_per_batch);
  return judgeBatch(batch.readings, {
    now: NOW,
    policy,
    stateAt: opts.stateAt ?? (() => available),
    recent: opts.recent ?? new RecentReadings(policy.heartbeat.recent_readings_kept),
    olderDuplicates: opts.older ?? new Set(),
  });
}

const at = (sAgo: number) => NOW - sAgo * 1000;

describe('heartbeat rejection reasons (spec 2.8), indexed from 1', () => {
  const cases: [string, unknown[], number, string][] = [
    ['recorded_in_the_future: beyond the clock-skew tolerance of the policy pack', [reading(at(10)), reading(NOW + (policy.heartbeat.clock_skew_tolerance_seconds + 1) * 1000)], 2, 'recorded_in_the_future'],
    ['older_than_retention_window: before now minus the retention window', [reading(NOW - policy.heartbeat.retention_window_seconds * 1000 - 1), reading(at(5))], 1, 'older_than_retention_window'],
    ['duplicate_reading: the same recorded_at twice in one batch', [reading(at(10)), reading(at(10))], 2, 'duplicate_reading'],
    ['accuracy_below_threshold: accuracy_metres worse than the pack allows', [reading(at(10), { position: { latitude: 6.5, longitude: 3.4, accuracy_metres: policy.heartbeat.max_accuracy_metres + 1 } })], 1, 'accuracy_below_threshold'],
    [
      'implausible_movement: 50 km in 10 s',
      [reading(at(20), { position: { latitude: 6.5, longitude: 3.4, accuracy_metres: 5 } }), reading(at(10), { position: { latitude: 6.95, longitude: 3.4, accuracy_metres: 5 } })],
      2,
      'implausible_movement',
    ],
  ];
  for (const [name, raw, index, reason] of cases) {
    it(`${name} (spec 2.8)`, () => {
      const v = judge(raw);
      expect(v.rejections).toEqual([expect.objectContaining({ index, reason })]);
      expect(v.accepted.map((r) => r.index)).toEqual(raw.map((_, i) => i + 1).filter((i) => i !== index));
    });
  }

  it('outside_collection_window: neither available nor on assignment at recorded_at (spec 4.7)', () => {
    const availableFrom = at(30);
    const v = judge([reading(at(60)), reading(at(20))], { stateAt: (t) => (t >= availableFrom ? available : { availability: 'unavailable', onAssignment: false }) });
    expect(v.rejections).toEqual([expect.objectContaining({ index: 1, reason: 'outside_collection_window' })]);
    expect(v.accepted.map((r) => r.index)).toEqual([2]);
  });

  it('on assignment is inside the collection window even when not available (spec 4.7)', () => {
    const v = judge([reading(at(20))], { stateAt: () => ({ availability: 'unavailable', onAssignment: true }) });
    expect(v.rejections).toEqual([]);
  });

  it('duplicate_reading: a recorded_at accepted in an earlier batch (spec 2.8)', () => {
    const recent = new RecentReadings(8);
    expect(judge([reading(at(10))], { recent }).accepted).toHaveLength(1);
    expect(judge([reading(at(10)), reading(at(5))], { recent }).rejections).toEqual([expect.objectContaining({ index: 1, reason: 'duplicate_reading' })]);
  });

  it('duplicate_reading: older than the recent memory, found in the reading store (spec 2.8)', () => {
    const recent = new RecentReadings(2);
    judge([reading(at(10)), reading(at(9))], { recent });
    const v = judge([reading(at(50))], { recent, older: new Set([at(50)]) });
    expect(v.rejections).toEqual([expect.objectContaining({ index: 1, reason: 'duplicate_reading' })]);
  });

  it('every refused reading is named, each with its own reason, in submission order', () => {
    const v = judge([
      reading(NOW + 3600_000),
      reading(at(30)),
      reading(at(30)),
      reading(at(20), { position: { latitude: 6.5, longitude: 3.4, accuracy_metres: 5000 } }),
      reading(at(10)),
    ]);
    expect(v.rejections.map((r) => [r.index, r.reason])).toEqual([
      [1, 'recorded_in_the_future'],
      [3, 'duplicate_reading'],
      [4, 'accuracy_below_threshold'],
    ]);
    expect(v.accepted.map((r) => r.index)).toEqual([2, 5]);
  });

  it('a plausible walk is accepted: movement within the pack speed is not refused', () => {
    const v = judge([
      reading(at(60), { position: { latitude: 6.5, longitude: 3.4, accuracy_metres: 5 } }),
      reading(at(0), { position: { latitude: 6.501, longitude: 3.4, accuracy_metres: 5 } }),
    ]);
    expect(v.rejections).toEqual([]);
  });
});

describe('reconciliation by recorded_at, not arrival (spec 4.7)', () => {
  it('an out-of-order batch is judged in recorded_at order and marked reconciled', () => {
    const v = judge([reading(at(10)), reading(at(30)), reading(at(20))]);
    expect(v.accepted.map((r) => r.index)).toEqual([2, 3, 1]);
    expect(v.reconciled).toBe(true);
  });

  it('a late batch (older than a reading already held) is marked reconciled', () => {
    const recent = new RecentReadings(8);
    expect(judge([reading(at(10))], { recent }).reconciled).toBe(false);
    const late = judge([reading(at(40)), reading(at(30))], { recent });
    expect(late.reconciled).toBe(true);
    expect(recent.at).toEqual([at(40), at(30), at(10)]);
  });

  it('an in-order batch after the last held reading is not reconciled', () => {
    const recent = new RecentReadings(8);
    judge([reading(at(40))], { recent });
    expect(judge([reading(at(30)), reading(at(20))], { recent }).reconciled).toBe(false);
  });

  it('movement is checked against the neighbour in recorded_at order, so a late jump is refused', () => {
    const recent = new RecentReadings(8);
    judge([reading(at(30), { position: { latitude: 6.5, longitude: 3.4, accuracy_metres: 5 } }), reading(at(10), { position: { latitude: 6.5, longitude: 3.4, accuracy_metres: 5 } })], { recent });
    const v = judge([reading(at(20), { position: { latitude: 7.5, longitude: 3.4, accuracy_metres: 5 } })], { recent });
    expect(v.rejections).toEqual([expect.objectContaining({ index: 1, reason: 'implausible_movement' })]);
  });
});

describe('integrity signals from readings (spec 2.8 IntegrityFlag sources)', () => {
  it('mock_location when mock_location_detected, device_integrity when attestation is false, implausible_movement', () => {
    const v = judge([
      reading(at(30), { mock_location_detected: true }),
      reading(at(20), { device_integrity_attested: false }),
      reading(at(10), { position: { latitude: 8, longitude: 3.4, accuracy_metres: 5 } }),
    ]);
    expect(v.signals.map((s) => s.source)).toEqual(['mock_location', 'device_integrity', 'implausible_movement']);
  });

  it('null attestation and null mock flag fire nothing (silence is not evidence)', () => {
    const v = judge([reading(at(30), { mock_location_detected: null, device_integrity_attested: null })]);
    expect(v.signals).toEqual([]);
  });
});

describe('out-of-range values refuse the batch with every failing value named (spec 2.8, 8)', () => {
  it('latitude, longitude, accuracy and battery out of range: 400 validation_failed, one entry each', () => {
    try {
      parseBatch(
        {
          worker_id: 'wrk_1',
          readings: [
            reading(at(1), { position: { latitude: 91, longitude: 3, accuracy_metres: 5 } }),
            reading(at(2), { position: { latitude: 6, longitude: -181, accuracy_metres: -1 } }),
            reading(at(3), { battery_percent: 101 }),
            reading(at(4), { battery_percent: 50.5 }),
          ],
        },
        500,
      );
      expect.unreachable();
    } catch (e) {
      expect(isApiError(e) && e.status).toBe(400);
      const v = (e as { details: { validation: { entries: { index: number; field: string }[]; entry_count: number } } }).details.validation;
      expect(v.entry_count).toBe(4);
      expect(v.entries.map((x) => [x.index, x.field])).toEqual([
        [1, '/readings/1/position/latitude'],
        [2, '/readings/2/position/longitude'],
        [2, '/readings/2/position/accuracy_metres'],
        [3, '/readings/3/battery_percent'],
        [4, '/readings/4/battery_percent'],
      ]);
    }
  });

  it('edges are inside the range: latitude -90/90, longitude -180/180, accuracy 0, battery 0 and 100', () => {
    const b = parseBatch(
      {
        worker_id: 'wrk_1',
        readings: [
          reading(at(1), { position: { latitude: -90, longitude: -180, accuracy_metres: 0 }, battery_percent: 0 }),
          reading(at(2), { position: { latitude: 90, longitude: 180, accuracy_metres: 0 }, battery_percent: 100 }),
        ],
      },
      500,
    );
    expect(b.readings.map((r: Reading) => r.index)).toEqual([1, 2]);
  });
});
