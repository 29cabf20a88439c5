/**
 * Identifiers (DESIGN "Conventions": the specification's prefix plus a random suffix; never reused).
 * An id is the prefix and 22 base62 symbols; a derived id (a create retried with the same
 * Idempotency-Key) has the same form and is the same for the same parts.
 */
import { describe, expect, it } from 'vitest';
import { derivedId, hasPrefix, newId, randomString, randomSuffix, timeOrderedId } from '../../kernel/index.ts';

const FORM = /^[0-9A-Za-z]{22}$/;

describe('identifiers are the spec prefix plus 22 base62 symbols, never reused (DESIGN Conventions)', () => {
  it('newId keeps the prefix and adds 22 base62 symbols; 20,000 ids are all different', () => {
    const seen = new Set<string>();
    for (let i = 0; i < 20_000; i++) {
      const id = newId('api_key_');
      expect(id.startsWith('api_key_')).toBe(true);
      expect(id.slice('api_key_'.length)).toMatch(FORM);
      seen.add(id);
    }
    expect(seen.size).toBe(20_000);
  });

  it('a long prefix followed by a short one leaves nothing of the first behind', () => {
    newId('a_much_longer_prefix_than_usual_');
    const id = newId('evt_');
    expect(id).toHaveLength(4 + 22);
    expect(id.slice(4)).toMatch(FORM);
  });

  it('randomString and randomSuffix give the asked length of base62 symbols', () => {
    expect(randomSuffix(8)).toMatch(/^[0-9A-Za-z]{8}$/);
    expect(randomString('sk_test_', 40)).toMatch(/^sk_test_[0-9A-Za-z]{40}$/);
  });

  it('every base62 symbol is drawn, each about equally often', () => {
    const counts = new Map<string, number>();
    for (let i = 0; i < 2000; i++) for (const c of randomSuffix()) counts.set(c, (counts.get(c) ?? 0) + 1);
    expect(counts.size).toBe(62);
    const mean = (2000 * 22) / 62;
    for (const n of counts.values()) expect(Math.abs(n - mean) / mean).toBeLessThan(0.25);
  });

  it('derivedId is the same for the same parts, differs for other parts, and has the id form', () => {
    const a = derivedId('api_key_', ['org_1', 'key-1']);
    expect(a).toBe(derivedId('api_key_', ['org_1', 'key-1']));
    expect(a).not.toBe(derivedId('api_key_', ['org_1', 'key-2']));
    expect(a).not.toBe(derivedId('api_key_', ['org_2', 'key-1']));
    expect(a.slice('api_key_'.length)).toMatch(FORM);
    expect(hasPrefix(a, 'api_key_')).toBe(true);
    expect(derivedId('evt_', ['x'])).toHaveLength(4 + 22);
  });

  // Ids already stored must come out identical after the kernel took the derived-id function over
  // (docs/architecture.md). Each expected value was made by the code that first stored it: the
  // runtime's derivedId for Idempotency-Key creates, the ledger's postingIdFor and payroll's
  // authorityIdFor (both the modulo form).
  it.each([
    ['api_key_', ['org_7Qm2', 'ik-1', ''], 'sampled', 'api_key_vMyHeyoai69k4eqTCsJJAB'],
    ['run_enterprise_', ['org_X', 'key-2', 'run'], 'sampled', 'run_enterprise_E1reuXhdFeZAySRFCP55sr'],
    ['whe_', ['o', 'k'], 'sampled', 'whe_skEGIy6Tdqeqxzl3IPLQhn'],
    ['ledger_posting_', ['ledger_posting:', 'evt_3kTzV2uQ0pS8aLxY1bNcD4'], 'modulo', 'ledger_posting_WhWUJNccBhFGVjyUsGmAAi'],
    ['remit_authority_rail_obligation_', ['paye_authority:', 'NG-LA'], 'modulo', 'remit_authority_rail_obligation_G8f6czebBL5K2J85Bfn8zo'],
  ] as const)('derivedId(%s, %j, %s) is the id stored before: %s', (prefix, parts, form, stored) => {
    expect(derivedId(prefix, parts, form)).toBe(stored);
  });
});

describe('event ids are ordered by the time they were made (DESIGN Conventions; docs/architecture.md "What a write costs")', () => {
  it('timeOrderedId has the spec form, sorts as its times do to the millisecond, and 20,000 made in one millisecond are all different', () => {
    const at = Date.UTC(2026, 10, 28, 3, 40);
    const seen = new Set<string>();
    for (let i = 0; i < 20_000; i++) {
      const id = timeOrderedId('evt_', at);
      expect(id.slice('evt_'.length)).toMatch(FORM);
      seen.add(id);
    }
    expect(seen.size).toBe(20_000);
    const times = [0, 1, 61, 62, 3_843, at - 1, at, at + 1, at + 86_400_000, Date.UTC(8000, 0, 1)];
    const ids = times.map((t) => timeOrderedId('evt_', t));
    expect([...ids].sort()).toEqual(ids);
    expect(timeOrderedId('evt_', at).slice(0, 12)).toBe(timeOrderedId('evt_', at + 0.9).slice(0, 12)); // within one millisecond the time symbols agree
  });
});
