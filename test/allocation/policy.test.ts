/** The heartbeat policy pack is data with a YYYY.MM.N version and a content hash (spec 9). */
import { describe, expect, it } from 'vitest';
import { ACTIVE_POLICY_VERSION, activePolicy, checkPack, loadPolicies } from '../../actors/allocation/policy.ts';
import { heartbeatSocket } from '../../actors/allocation/supply/socket.ts';
import { startHarness } from '../../support/http.ts';

describe('allocation policy pack (spec 9 versioning)', () => {
  it('every shipped pack has a YYYY.MM.N version matching its file and a sha256 content hash', () => {
    const packs = loadPolicies();
    expect(packs.size).toBeGreaterThan(0);
    for (const [version, p] of packs) {
      expect(version).toMatch(/^\d{4}\.\d{2}\.\d+$/);
      expect(p.hash).toMatch(/^sha256:[0-9a-f]{64}$/);
    }
  });

  it('the hash is of the canonical form: key order does not change it, a threshold does', () => {
    const p = activePolicy().pack;
    const reordered = JSON.parse(JSON.stringify({ assignment: p.assignment, socket: p.socket, presence: p.presence, supply: p.supply, heartbeat: p.heartbeat, version: p.version, name: p.name }));
    expect(checkPack(reordered).hash).toBe(activePolicy().hash);
    const changed = { ...reordered, heartbeat: { ...p.heartbeat, max_accuracy_metres: 101 } };
    expect(checkPack(changed).hash).not.toBe(activePolicy().hash);
  });

  it('a malformed pack is refused (bad version, ghost before stale)', () => {
    const p = activePolicy().pack;
    expect(() => checkPack({ ...p, version: '2026.13.1' })).toThrow(/version/);
    expect(() => checkPack({ ...p, presence: { stale_after_seconds: 300, ghost_after_seconds: 60 } })).toThrow(/ghost_after/);
    expect(() => checkPack({ ...p, socket: { bad_frames_per_connection: 0, frames_per_second: 2.5 } })).toThrow(/socket.bad_frames_per_connection, socket.frames_per_second/);
  });

  it('an active version never changes: every shipped pack keeps its content hash', () => {
    const hashes = Object.fromEntries([...loadPolicies()].map(([v, p]) => [v, p.hash]));
    expect(hashes).toEqual({
      '2026.01.1': 'sha256:e700e155f6aa58bf45b56fb59fd4b4f5777eec0fe88a33f1e4f319caec80d595',
      '2026.11.1': 'sha256:996d5f930b36a8030a98eb34f14ad2160b58778d35b3650b1925d191fcfc3370',
      '2026.11.2': 'sha256:423fb26412dd15d7c566569e195aa810e958a49d74ede0513b03928f29a75d16',
    });
  });

  it('2026.11.2 is the active version: the fields of 2026.11.1 and the proof-of-service parameters of assignments (spec 3)', () => {
    expect(ACTIVE_POLICY_VERSION).toBe('2026.11.2');
    const before = loadPolicies().get('2026.11.1')!.pack;
    const { assignment, ...rest } = activePolicy().pack;
    expect(rest).toEqual({ ...before, version: '2026.11.2' });
    expect(rest.socket).toEqual({ bad_frames_per_connection: 20, frames_per_second: 5000 });
    expect(assignment).toEqual({ min_dwell_seconds: 300, max_telemetry_gap_seconds: 180, passcode_digits: 6, geofence_slack_metres: 25 });
  });
});

describe('heartbeat socket budgets come from the policy pack in use', () => {
  it('limits(platform) answers the active pack\u2019s socket section; a pack without one leaves the gateway\u2019s defaults', async () => {
    const h = await startHarness();
    try {
      expect(heartbeatSocket.limits(h.platform)).toEqual({ badFramesPerConnection: 20, framesPerSecond: 5000 });
    } finally {
      await h.close();
    }
    const pinned = await startHarness({ config: { ALLOCATION_POLICY_VERSION: '2026.01.1' } });
    try {
      expect(heartbeatSocket.limits(pinned.platform)).toBeUndefined();
    } finally {
      await pinned.close();
    }
  });
});
