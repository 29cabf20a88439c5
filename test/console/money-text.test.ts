/**
 * The console shows money one way (spec 2.1 Money: minor units per major unit read from GET
 * /v1/currencies; docs/gaps.md#console "Payroll for approvers"): the amounts the API's plain words
 * give in kobo, a payslip explanation's formulas and exact values included, are shown in naira with
 * every digit they have. Checked on the page's own module (console/money.js) against the payroll
 * engine's real sentences.
 */
import { describe, expect, it } from 'vitest';
import { computePayslip, explain, findPack, type PayeeInputs } from '../../actors/payroll/engine/index.ts';

const CURRENCIES = [{ code: 'NGN', minor_unit_digits: 2 }];
const money = async () => new (await import(new URL('../../console/money.js', import.meta.url).href)).MoneyFormat(CURRENCIES);

/** A February payslip whose PAYE formula divides by 12 into a sixth of a kobo (engine.test.ts's payee). */
function february(): string[] {
  const pack = findPack('2026.01.1')!;
  const p: PayeeInputs = { monthly_basic: 12_345_700, monthly_housing: 6_172_839, monthly_transport: 3_086_420, monthly_other_allowances: 1_234_491, annual_rent_paid: 100_000_250, annual_life_assurance_premium: 0, annual_mortgage_interest: 0, state_of_residence: 'NG-KD', nhf_contributing: true, nhia_enrolled: false, pension_administrator: 'pfa_test', months_employed: [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12] };
  const employer = { headcount: 30, turnover_50m_or_more: false };
  const jan = computePayslip(pack, '2026-01', p, employer);
  return explain(computePayslip(pack, '2026-02', p, employer, jan.ytd_after));
}

describe('money in the API\'s words (spec 2.1 Money)', () => {
  it('a payslip explanation: every kobo figure, in a formula or exact before rounding, is shown in naira', async () => {
    const m = await money();
    const raw = february();
    expect(raw.join(' ')).toMatch(/\d+ x 2\/12 = \d+\/6 kobo/); // the engine's words hold kobo: the case this checks
    const shown = raw.map((s) => m.inText(s)).join(' ');
    expect(shown).not.toMatch(/\d kobo/);
    expect(shown).not.toMatch(/\d{4,} x /);
    expect(shown).toContain('so tax due by now is NGN 224,443.31 x 2/12 = NGN 37,407.218333…, rounded to NGN 37,407.22');
    expect(shown).toContain('is NGN 224,443.305 for the year, rounded half up to NGN 224,443.31');
    expect(shown).toContain('The exact amount is NGN 3,086.425, rounded half up to NGN 3,086.43');
  });

  it('exact amounts: whole, decimal, fraction and negative, with the currency\'s places from GET /v1/currencies', async () => {
    const m = await money();
    expect(m.inText('gross (54000000 kobo) is above')).toBe('gross (NGN 540,000.00) is above');
    expect(m.exact('1728396.72', 'NGN')).toBe('NGN 17,283.9672');
    expect(m.exact('-5', 'NGN')).toBe('NGN -0.05');
    expect(m.exact('1/4', 'NGN')).toBe('NGN 0.0025');
    expect(m.exact('2/3', 'NGN')).toBe('NGN 0.006666…');
    expect(m.exact('1000', 'JPY')).toBe('1000 (minor units of JPY)');
    expect(new (m.constructor)([{ code: 'KWD', minor_unit_digits: 3 }]).exact('12345', 'KWD')).toBe('KWD 12.345');
  });
});
