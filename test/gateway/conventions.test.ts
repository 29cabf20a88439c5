/**
 * The shared conventions every area uses: runtime/money.ts (spec 1.3, 2.1) and runtime/lists.ts
 * (spec 2.1 list envelope, 4 preamble, 8 page size).
 */
import { describe, expect, it } from 'vitest';
import { ApiError, assertMoney, CURRENCIES, currency, formatMinor, LIST_LIMIT_DEFAULT, listEnvelope, parseListQuery } from '../../kernel/index.ts';

const refusal = (f: () => void): ApiError => {
  try {
    f();
  } catch (e) {
    return e as ApiError;
  }
  throw new Error('expected a refusal');
};

describe('money (spec 1.3, 2.1)', () => {
  it('a fractional amount is refused with invalid_money_amount, never rounded', () => {
    const e = refusal(() => assertMoney({ amount: 10.5, currency: 'NGN' }, '/total'));
    expect(e.code).toBe('invalid_money_amount');
    expect(e.details?.validation?.entries?.[0]).toMatchObject({ code: 'invalid_money_amount', field: '/total/amount' });
  });

  it('an integer amount in an ISO 4217 currency passes; an unknown currency is refused', () => {
    expect(() => assertMoney({ amount: 150000, currency: 'NGN' })).not.toThrow();
    expect(() => assertMoney({ amount: -5, currency: 'USD' })).not.toThrow();
    expect(refusal(() => assertMoney({ amount: 1, currency: 'XYZ' })).code).toBe('validation_failed');
    expect(refusal(() => assertMoney({ amount: '1', currency: 'NGN' })).code).toBe('validation_failed');
  });

  it('minor units come from ISO 4217 data, never an assumed 100', () => {
    expect(currency('NGN')?.minor_unit_digits).toBe(2);
    expect(currency('JPY')?.minor_unit_digits).toBe(0);
    expect(currency('KWD')?.minor_unit_digits).toBe(3);
    expect(CURRENCIES.length).toBeGreaterThan(150);
    expect(formatMinor(150075, 'NGN')).toBe('1500.75');
    expect(formatMinor(1500, 'JPY')).toBe('1500');
    expect(formatMinor(-5, 'KWD')).toBe('-0.005');
  });
});

describe('lists (spec 2.1, 4, 8)', () => {
  it('limit defaults to 25 and starting_after is passed through', () => {
    expect(parseListQuery({})).toEqual({ limit: LIST_LIMIT_DEFAULT });
    expect(parseListQuery({ limit: 100, starting_after: 'api_key_x' })).toEqual({ limit: 100, after: 'api_key_x' });
  });

  it('a limit outside 1..100 is refused', () => {
    expect(() => parseListQuery({ limit: 0 })).toThrow();
    expect(() => parseListQuery({ limit: 101 })).toThrow();
  });

  it('the envelope is {object: list, data, has_more}', () => {
    expect(listEnvelope([1, 2], true)).toEqual({ object: 'list', data: [1, 2], has_more: true });
  });
});
