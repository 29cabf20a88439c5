/** The socket's one-pass msgpack decoder builds exactly what msgpackr + parseBatch builds, or defers. */
import { Packr, Unpackr } from 'msgpackr';
import { describe, expect, it } from 'vitest';
import { parseBatch } from '../../actors/allocation/supply/heartbeat.ts';
import { decodeMsgpackBatch } from '../../actors/allocation/supply/msgpack-batch.ts';
import { rng } from '../../support/rng.ts';

const packr = new Packr({ useRecords: false });
const unpackr = new Unpackr({ useRecords: false, mapsAsObjects: true });

function generic(bytes: Uint8Array) {
  try {
    return { ok: parseBatch(unpackr.unpack(bytes), 500) };
  } catch (e) {
    return { err: (e as Error).message };
  }
}

describe('one-pass msgpack heartbeat decoding (same results as the REST body check)', () => {
  it('decodes the common shape exactly as parseBatch, and defers on every variant it does not know', () => {
    const rnd = rng(99);
    let fast = 0;
    let deferred = 0;
    for (let n = 0; n < 3000; n++) {
      // half the batches draw only from the valid values (the first few of each list)
      const clean = n % 2 === 0;
      const pick = <T,>(xs: T[], valid = xs.length) => xs[Math.floor(rnd() * (clean ? valid : xs.length))];
      const readings = Array.from({ length: 1 + Math.floor(rnd() * 5) }, () => {
        const r: Record<string, unknown> = {
          recorded_at: pick(['2026-01-05T08:00:00.123Z', '2026-01-05T08:00:01Z', '2024-02-29T23:59:59.999Z', '2026-02-29T00:00:00Z', '2026-01-05t08:00:00Z', '2026-01-05T08:00:00+01:00', '2026-13-01T00:00:00Z', 'yesterday', 17], 3),
          position: pick([{ latitude: 6.5 + rnd(), longitude: 3.4, accuracy_metres: 8 }, { latitude: 91, longitude: 3, accuracy_metres: 1 }, { latitude: 6, longitude: 3, accuracy_metres: -1 }, { latitude: 6, longitude: 3 }, null, undefined, { latitude: 6, longitude: 3, accuracy_metres: 2, x: 1 }], 1),
          connectivity: pick(['good', 'fair', 'poor', 'offline', 'great'], 4),
          availability: pick(['available', 'unavailable', undefined, null, 'busy'], 3),
          battery_percent: pick([0, 100, 55, null, undefined, 80.5, 101, -1, 70000], 5),
          mock_location_detected: pick([true, false, null, undefined, 'no'], 4),
          device_integrity_attested: pick([true, false, null, undefined]),
        };
        for (const k of Object.keys(r)) if (r[k] === undefined) delete r[k];
        if (!clean && rnd() < 0.05) delete r.connectivity;
        return r;
      });
      const body: Record<string, unknown> = { worker_id: pick(['wrk_1', 'w', '', 'bad id', 42], 2), readings };
      if (!clean && rnd() < 0.03) body.extra = 1;
      const bytes = packr.pack(body);
      const f = decodeMsgpackBatch(bytes, 500);
      const g = generic(bytes);
      if (f) {
        fast++;
        expect(g.ok).toEqual(f);
      } else deferred++;
    }
    expect(fast).toBeGreaterThan(20);
    expect(deferred).toBeGreaterThan(1000);
  });

  it('a plain batch of 50 valid readings takes the one-pass path', () => {
    const readings = Array.from({ length: 50 }, (_, k) => ({
      recorded_at: new Date(Date.UTC(2026, 0, 5, 8, 0, k)).toISOString(),
      position: { latitude: 6.5 + k * 1e-5, longitude: 3.4, accuracy_metres: 8 },
      connectivity: 'good',
      availability: 'available',
      battery_percent: 80,
      mock_location_detected: false,
      device_integrity_attested: true,
    }));
    const bytes = packr.pack({ worker_id: 'wrk_1', readings });
    const f = decodeMsgpackBatch(bytes, 500);
    expect(f).toBeDefined();
    expect(f).toEqual(parseBatch(unpackr.unpack(bytes), 500));
    expect(decodeMsgpackBatch(bytes, 49)).toBeUndefined(); // over the batch limit: the generic path refuses it
  });
});
