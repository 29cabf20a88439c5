/** The heartbeat policy pack is data with a YYYY.MM.N version and a content hash (spec 9). */
import { describe, expect, it } from 'vitest';
import { activePolicy, checkPack, loadPolicies } from '../../actors/allocation/policy.ts';

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
    const reordered = JSON.parse(JSON.stringify({ presence: p.presence, supply: p.supply, heartbeat: p.heartbeat, version: p.version, name: p.name }));
    expect(checkPack(reordered).hash).toBe(activePolicy().hash);
    const changed = { ...reordered, heartbeat: { ...p.heartbeat, max_accuracy_metres: 101 } };
    expect(checkPack(changed).hash).not.toBe(activePolicy().hash);
  });

  it('a malformed pack is refused (bad version, ghost before stale)', () => {
    const p = activePolicy().pack;
    expect(() => checkPack({ ...p, version: '2026.13.1' })).toThrow(/version/);
    expect(() => checkPack({ ...p, presence: { stale_after_seconds: 300, ghost_after_seconds: 60 } })).toThrow(/ghost_after/);
  });
});
