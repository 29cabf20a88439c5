/**
 * The payouts policy pack (spec 2.11, 8, 9; actors/payouts/policy.ts): data with a version and a
 * content hash, refused when malformed. Its run_instructions.execution says whether a run's
 * instruction is paid by reaction (a person approved the run) or waits for a person's execute
 * (maker-checker on payouts kept as a policy option; docs/gaps.md#payouts "Paid by reaction").
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { checkPolicy } from '../../actors/payouts/policy.ts';
import { PAYOUTS_POLICY } from '../../actors/payouts/index.ts';

const pack = () => JSON.parse(readFileSync(new URL('../../actors/payouts/policy/2026.12.1.json', import.meta.url), 'utf8'));

describe('payouts policy pack run_instructions (docs/gaps.md#payouts "Paid by reaction")', () => {
  it('the active pack pays a run\u2019s instruction by reaction, and its hash is of its canonical form', () => {
    expect(PAYOUTS_POLICY.pack).toMatchObject({ version: '2026.12.1', run_instructions: { execution: 'on_run_execution' } });
    expect(PAYOUTS_POLICY.hash).toMatch(/^sha256:[0-9a-f]{64}$/);
    expect(checkPolicy(pack()).hash).toBe(PAYOUTS_POLICY.hash);
  });

  it('by_a_person is a valid choice (a second check on payouts) with its own hash; any other value or none is refused', () => {
    const manual = pack();
    manual.run_instructions.execution = 'by_a_person';
    expect(checkPolicy(manual).hash).not.toBe(PAYOUTS_POLICY.hash);
    for (const bad of ['automatic', '', null]) {
      const p = pack();
      p.run_instructions.execution = bad;
      expect(() => checkPolicy(p), String(bad)).toThrow(/run_instructions\.execution/);
    }
    const none = pack();
    delete none.run_instructions;
    expect(() => checkPolicy(none)).toThrow(/run_instructions\.execution/);
  });
});
