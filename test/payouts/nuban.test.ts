/** NUBAN check digit (reference ng-payouts-remittance.md 3.3): the CBN's two examples and the OFI example. */
import { describe, expect, it } from 'vitest';
import { isValidNuban, nuban, nubanCheckDigit } from '../../actors/payouts/nuban.ts';

describe('NUBAN check digit (reference 3.3)', () => {
  it('CBN example: First Bank 011, serial 000001457 gives check digit 9 (account 0000014579)', () => {
    expect(nubanCheckDigit('011', '000001457')).toBe(9);
    expect(isValidNuban('011', '0000014579')).toBe(true);
  });
  it('second CBN example: serial 000000022 gives check digit 0 (account 0000000220)', () => {
    expect(nubanCheckDigit('011', '000000022')).toBe(0);
    expect(nuban('011', '000000022')).toBe('0000000220');
  });
  it('OFI example (2020 rule): code 50547 as 950547, serial 123456789 gives 9 (NUBAN 1234567899)', () => {
    expect(nubanCheckDigit('50547', '123456789')).toBe(9);
    expect(isValidNuban('50547', '1234567899')).toBe(true);
  });
  it('a wrong check digit, a short number or a 6-digit NIP code fails the check', () => {
    expect(isValidNuban('011', '0000014578')).toBe(false);
    expect(isValidNuban('011', '000001457')).toBe(false);
    expect(isValidNuban('000016', '0000014579')).toBe(false);
  });
});
