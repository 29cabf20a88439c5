/**
 * A revocation of identity removes the worker from supply (spec 6: "A revocation of identity ...
 * removes the worker from every live allocation cascade"; spec 8: 60 s at most): the allocation
 * worker reacts to the identity module's passport.ended, and to passport.restored.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, type Harness } from '../../support/http.ts';
import { livePassport } from '../identity/support.ts';
import { heartbeats, LAGOS, makeAvailable, reading, workerId } from './support.ts';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(async () => {
  await h?.close();
});

const inMap = async (w: string) =>
  ((await h.request('GET', `/v1/allocation/supply?latitude=${LAGOS.latitude}&longitude=${LAGOS.longitude}&radius_metres=5000&limit=100`)).body.data as { worker_id: string }[]).some((n) => n.worker_id === w);

describe('identity revocation and the supply map (spec 6, 8)', () => {
  it('a blocklisted worker leaves the supply map with identity_revoked, and returns when the entry is reversed', async () => {
    const w = workerId();
    await livePassport(h, w);
    await makeAvailable(h, w);
    await h.clock.advance(1000);
    await heartbeats(h, { worker_id: w, readings: [reading(h.clock.now() - 500)] });
    await h.platform.system.settle();
    expect(await inMap(w)).toBe(true);
    const b = await h.request('POST', '/v1/identity/blocklist_entries', { body: { subject_ref: w, reason: 'fraud' }, idempotencyKey: `bl-${w}` });
    expect(b.status).toBe(201);
    await h.platform.system.settle();
    expect(await inMap(w)).toBe(false);
    expect((await h.request('GET', `/v1/allocation/supply/${w}`)).body).toMatchObject({ in_map: false, excluded_because: 'identity_revoked' });
    await h.request('POST', `/v1/identity/blocklist_entries/${b.body.id}/reverse`, { body: { reason: 'mistake' }, idempotencyKey: `rev-${w}` });
    await h.platform.system.settle();
    await h.clock.advance(1000);
    await heartbeats(h, { worker_id: w, readings: [reading(h.clock.now() - 500)] });
    await h.platform.system.settle();
    expect(await inMap(w)).toBe(true);
  });
});
