/**
 * Gross-to-net engine and ng-payroll packs: rules beyond the public vectors (spec 2.9; spec 1 rule
 * 3, 2.9, 9; reference shared/reference/ng-payroll-2026.md).
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ApiError } from '../../kernel/index.ts';
import { pinnedPack } from '../../actors/payroll/runs/runs.ts';
import {
  canonicalForm,
  computePayslip,
  contentHash,
  diffComputations,
  emptyYearToDate,
  explain,
  findPack,
  listPacks,
  packForPeriod,
  renderPayslipPdf,
  resolvePack,
  validatePayee,
  type EmployerInputs,
  type LineCode,
  type PayeeInputs,
  type PayslipComputation,
  type YearToDate,
} from '../../actors/payroll/engine/index.ts';
import { formatExact, halfUp, mulRateExact, mulRateHalfUp, parseRate } from '../../actors/payroll/engine/exact.ts';

const active = findPack('2026.01.1')!;
const draft = findPack('2026.09.1')!;
const ALL_YEAR = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12];
const EMPLOYER: EmployerInputs = { headcount: 40, turnover_50m_or_more: false };

function payee(over: Partial<PayeeInputs> = {}): PayeeInputs {
  return {
    monthly_basic: 17_500_000,
    monthly_housing: 8_750_000,
    monthly_transport: 5_250_000,
    monthly_other_allowances: 3_500_000,
    annual_rent_paid: 0,
    annual_life_assurance_premium: 0,
    annual_mortgage_interest: 0,
    state_of_residence: 'NG-FC',
    nhf_contributing: true,
    nhia_enrolled: false,
    pension_administrator: 'pfa_test',
    months_employed: ALL_YEAR,
    ...over,
  };
}

const amount = (c: PayslipComputation, code: LineCode) => c.lines.find((l) => l.code === code)?.amount;

function runYear(p: (m: number) => PayeeInputs, months: number[], employer = EMPLOYER, pack = active): PayslipComputation[] {
  const out: PayslipComputation[] = [];
  let ytd: YearToDate | undefined;
  for (const m of months) {
    const c = computePayslip(pack, `2026-${String(m).padStart(2, '0')}`, p(m), employer, ytd);
    out.push(c);
    ytd = c.ytd_after;
  }
  return out;
}

function refusal(fn: () => unknown): ApiError {
  try {
    fn();
  } catch (e) {
    if (e instanceof ApiError) return e;
    throw e;
  }
  throw new Error('expected a refusal');
}

describe('rule packs are versioned data with a content hash (spec 2.9 RulePackReference, spec 9)', () => {
  it('every pack file records the sha256 of its canonical form, and versions are YYYY.MM.N', () => {
    for (const p of listPacks()) {
      const doc = JSON.parse(readFileSync(new URL(`../../actors/payroll/packs/ng-payroll-${p.ref.version}.json`, import.meta.url), 'utf8'));
      expect(doc.content_hash).toBe(contentHash(doc));
      expect(p.ref.content_hash).toBe(doc.content_hash);
      expect(p.ref.content_hash).toMatch(/^sha256:[0-9a-f]{64}$/);
      expect(p.ref.version).toMatch(/^\d{4}\.\d{2}\.\d+$/);
    }
  });

  it('an active version never changes: 2026.01.1 keeps the hash it was activated with', () => {
    expect(active.status).toBe('active');
    expect(active.ref).toEqual({
      pack_id: 'ng-payroll',
      version: '2026.01.1',
      content_hash: 'sha256:312c322de4b10f3d335c84d064486b7fba995d6245af2c33b1988fbc8c3b4649',
    });
    expect(() => {
      (active.parameters.pension.employee as { rate: string }).rate = '0.09';
    }).toThrow(TypeError);
  });

  it('the canonical form sorts keys at every depth and leaves out content_hash and status', () => {
    expect(canonicalForm({ status: 'draft', content_hash: 'x', b: { d: 1, c: [2, { f: 1, e: 0 }] }, a: 'z' })).toBe('{"a":"z","b":{"c":[2,{"e":0,"f":1}],"d":1}}');
    expect(contentHash({ b: 1, a: 2 })).toBe(contentHash({ a: 2, b: 1, status: 'active' }));
  });

  it('findPack() is the newest active pack; drafts are found only by version; packForPeriod uses effective dates', () => {
    expect(findPack()?.ref.version).toBe('2026.11.1');
    expect(findPack('2026.01.1')?.status).toBe('active');
    expect(draft.status).toBe('draft');
    expect(packForPeriod('2026-07')?.ref.version).toBe('2026.11.1');
    expect(packForPeriod('2025-12')).toBeUndefined();
    expect(findPack('2026.13.1')).toBeUndefined();
  });

  it('resolvePack needs both the version and the content hash of a pinned reference', () => {
    expect(resolvePack(active.ref)).toBe(active);
    expect(resolvePack({ ...active.ref, content_hash: draft.ref.content_hash })).toBeUndefined();
  });

  it('every point the reference marks unconfirmed names a parameter that exists in the pack', () => {
    for (const u of active.unconfirmed) {
      let v: unknown = active.parameters;
      for (const k of u.parameter.split('.')) v = (v as Record<string, unknown>)[k];
      expect(v, u.parameter).not.toBeUndefined();
    }
  });
});

describe('money inputs (spec 1 rule 3, 2.1)', () => {
  it('fractional money is refused with invalid_money_amount, never rounded', () => {
    const e = refusal(() => computePayslip(active, '2026-01', payee({ monthly_basic: 100.5 }), EMPLOYER));
    expect(e.code).toBe('invalid_money_amount');
    expect(e.details?.validation?.entries?.[0]).toMatchObject({ code: 'invalid_money_amount', field: '/monthly_basic' });
  });

  it('validation names every failing field, not just the first', () => {
    const entries = validatePayee(payee({ monthly_basic: 1.5, annual_rent_paid: -1, state_of_residence: 'Lagos', months_employed: [0, 13] }), 4);
    expect(entries.map((e) => e.field)).toEqual(['/monthly_basic', '/annual_rent_paid', '/state_of_residence', '/months_employed']);
    expect(entries.every((e) => e.index === 4 && e.severity === 'error')).toBe(true);
  });

  it('a period outside the pack, a month not employed, or a year-to-date past the period is refused', () => {
    expect(refusal(() => computePayslip(active, '2027-01', payee(), EMPLOYER)).details?.validation?.entries?.[0].code).toBe('period_outside_rule_pack');
    expect(refusal(() => computePayslip(active, '2026-03', payee({ months_employed: [1, 2] }), EMPLOYER)).details?.validation?.entries?.[0].code).toBe('not_employed_in_period');
    const jan = computePayslip(active, '2026-01', payee(), EMPLOYER);
    const feb = computePayslip(active, '2026-02', payee(), EMPLOYER, jan.ytd_after);
    expect(refusal(() => computePayslip(active, '2026-01', payee(), EMPLOYER, feb.ytd_after)).details?.validation?.entries?.[0].code).toBe('year_to_date_mismatch');
  });
});

describe('statutory rules as pack parameters (reference 2-7)', () => {
  it('minimum-wage exemption on monthly gross: NGN 70,000 pays no PAYE, NGN 75,000 pays 1,250 (the cliff, reference 2.3)', () => {
    const small = { headcount: 2, turnover_50m_or_more: false };
    const at = computePayslip(active, '2026-01', payee({ monthly_basic: 7_000_000, monthly_housing: 0, monthly_transport: 0, monthly_other_allowances: 0, nhf_contributing: false }), small);
    const above = computePayslip(active, '2026-01', payee({ monthly_basic: 7_500_000, monthly_housing: 0, monthly_transport: 0, monthly_other_allowances: 0, nhf_contributing: false }), small);
    expect(amount(at, 'paye')).toBe(0);
    expect(at.lines.find((l) => l.code === 'paye')!.trace.inputs.minimum_wage_exempt).toBe('true');
    // Without the exemption the bands would tax 840,000 - 800,000 at 15%.
    expect(at.lines.find((l) => l.code === 'paye')!.trace.inputs.band_2_tax_exact_kobo).toBe('600000');
    expect(amount(above, 'paye')).toBe(125_000);
  });

  it('the minimum-wage measure is a pack parameter: measured on projected annual gross, a part-year earner is exempt (reference 2.3 [U])', () => {
    const annual = { ...active, parameters: { ...active.parameters, paye: { ...active.parameters.paye, minimum_wage_exemption: { threshold_monthly_gross_kobo: 7_000_000, measure: 'annual_projected_gross' as const } } } };
    const p = payee({ monthly_basic: 27_500_000, monthly_housing: 0, monthly_transport: 0, monthly_other_allowances: 0, nhf_contributing: false, months_employed: [10, 11, 12] });
    const small = { headcount: 2, turnover_50m_or_more: false };
    expect(amount(computePayslip(active, '2026-10', p, small), 'paye')).toBeGreaterThan(0);
    const c = computePayslip(annual, '2026-10', p, small);
    expect(amount(c, 'paye')).toBe(0);
    expect(c.lines.find((l) => l.code === 'paye')!.trace.inputs.minimum_wage_exempt).toBe('true');
  });

  it('pension applies from the pack headcount (3); below it neither pension line appears (PRA s.120)', () => {
    const two = computePayslip(active, '2026-01', payee(), { headcount: 2, turnover_50m_or_more: false });
    const three = computePayslip(active, '2026-01', payee(), { headcount: 3, turnover_50m_or_more: false });
    expect(amount(two, 'pension_employee')).toBeUndefined();
    expect(amount(two, 'pension_employer')).toBeUndefined();
    expect(amount(three, 'pension_employee')).toBe(2_520_000);
    expect(amount(three, 'pension_employer')).toBe(3_150_000);
  });

  it('ITF accrues from 5 staff, or below 5 with turnover of NGN 50m or more (reference 6)', () => {
    expect(amount(computePayslip(active, '2026-01', payee(), { headcount: 4, turnover_50m_or_more: false }), 'itf')).toBeUndefined();
    expect(amount(computePayslip(active, '2026-01', payee(), { headcount: 4, turnover_50m_or_more: true }), 'itf')).toBe(350_000);
    expect(amount(computePayslip(active, '2026-01', payee(), { headcount: 5, turnover_50m_or_more: false }), 'itf')).toBe(350_000);
  });

  it('NHIA for an enrolled payee: 5% employee and 10% employer of basic; the employee part reduces PAYE (NTA s.30(2)(a))', () => {
    const off = computePayslip(active, '2026-01', payee(), EMPLOYER);
    const on = computePayslip(active, '2026-01', payee({ nhia_enrolled: true }), EMPLOYER);
    expect(amount(on, 'nhia_employee')).toBe(875_000);
    expect(amount(on, 'nhia_employer')).toBe(1_750_000);
    // 875,000 kobo a month less chargeable income, taxed at 18%: 12 x 875,000 x 0.18 / 12.
    expect(amount(off, 'paye')! - amount(on, 'paye')!).toBe(157_500);
  });

  it('life-assurance premium and mortgage interest are annual reliefs through PAYE (reference 2.2)', () => {
    const base = computePayslip(active, '2026-01', payee(), EMPLOYER);
    const relieved = computePayslip(active, '2026-01', payee({ annual_life_assurance_premium: 10_000_000, annual_mortgage_interest: 20_000_000 }), EMPLOYER);
    expect(relieved.lines.find((l) => l.code === 'paye')!.trace.inputs.other_reliefs_kobo).toBe('30000000');
    expect(amount(base, 'paye')! - amount(relieved, 'paye')!).toBe(450_000);
  });

  it('a joiner in July: PAYE spread over the 6 employed months, and the months add up to the annual tax', () => {
    const months = [7, 8, 9, 10, 11, 12];
    const year = runYear(() => payee({ months_employed: months }), months);
    const first = year[0].lines.find((l) => l.code === 'paye')!;
    expect(first.trace.inputs.month_k).toBe('1');
    expect(first.trace.inputs.months_employed_n).toBe('6');
    expect(first.trace.inputs.projected_annual_gross_kobo).toBe(String(6 * 35_000_000));
    expect(year.at(-1)!.ytd_after.paye).toBe(Number(first.trace.inputs.annual_tax_kobo));
  });

  it('a pay cut late in the year makes the cumulative method refund: a negative PAYE line with a signed exact value', () => {
    const year = runYear((m) => (m < 12 ? payee({ monthly_basic: 100_000_000 }) : payee({ monthly_basic: 0, monthly_housing: 0, monthly_transport: 0, monthly_other_allowances: 8_000_000, nhf_contributing: false })), ALL_YEAR);
    const dec = year[11].lines.find((l) => l.code === 'paye')!;
    expect(dec.amount).toBeLessThan(0);
    expect(dec.trace.exact.startsWith('-')).toBe(true);
    expect(year[11].ytd_after.paye).toBe(Number(dec.trace.inputs.annual_tax_kobo));
  });

  it('every exact value is an exact decimal or reduced rational string, never a float rendering', () => {
    const year = runYear(() => payee({ monthly_basic: 12_345_701, monthly_housing: 6_172_839, annual_rent_paid: 100_000_251, nhia_enrolled: true }), ALL_YEAR);
    for (const c of year) {
      for (const l of c.lines) {
        expect(l.trace.exact).toMatch(/^-?(\d+(\.\d*[1-9])?|\d+\/\d+)$/);
        expect(l.trace.exact).not.toMatch(/e/);
      }
    }
  });
});

describe('exact arithmetic (spec 2.9: exact values, BigInt where a product passes 2^53)', () => {
  it('half up rounds ties away from zero for non-negative values, where banker\'s rounding would not', () => {
    expect(halfUp(6172850, 20)).toBe(308643); // 308642.5
    expect(halfUp(5, 2)).toBe(3);
    expect(halfUp(7, 2)).toBe(4);
    expect(halfUp(1, 3)).toBe(0);
  });

  it('formats integers, terminating decimals and reduced rationals', () => {
    expect(formatExact(1080000, 1)).toBe('1080000');
    expect(formatExact(6172850, 20)).toBe('308642.5');
    expect(formatExact(524695000, 12)).toBe('131173750/3');
    expect(formatExact(1, 16)).toBe('0.0625');
    expect(formatExact(0, 7)).toBe('0');
  });

  it('products past 2^53 are computed with BigInt and agree with a BigInt reference', () => {
    const r = parseRate('0.123457');
    const amount = 9_000_000_000_000;
    const big = BigInt(amount) * 123457n;
    expect(mulRateExact(amount, r)).toBe(`${big / 1000000n}.${String(big % 1000000n).padStart(6, '0')}`.replace(/\.?0+$/, ''));
    expect(mulRateHalfUp(amount, r)).toBe(Number((2n * big + 1000000n) / 2000000n));
    expect(formatExact(2n ** 60n + 1n, 3n)).toBe(`${2n ** 60n + 1n}/3`);
  });
});

describe('replay and simulation differences (spec 4.8 replay, simulate)', () => {
  it('replay from the recorded inputs and the pinned pack is identical', () => {
    const jan = computePayslip(active, '2026-01', payee({ annual_rent_paid: 100_000_250 }), EMPLOYER);
    const feb = computePayslip(active, '2026-02', payee({ annual_rent_paid: 100_000_250 }), EMPLOYER, jan.ytd_after);
    const again = computePayslip(resolvePack(feb.rule_pack)!, feb.period, feb.inputs.payee, feb.inputs.employer, feb.ytd_before);
    expect(diffComputations(feb, again)).toEqual([]);
    expect(again).toEqual(feb);
  });

  it('the draft pack (NHF on monthly income) differs from the active pack in NHF, PAYE and the totals', () => {
    const a = computePayslip(active, '2026-01', payee(), EMPLOYER);
    const b = computePayslip(draft, '2026-01', payee(), EMPLOYER);
    const diff = diffComputations(a, b);
    expect(diff.map((d) => d.code)).toEqual(['paye', 'nhf', 'net', 'total_deductions']);
    expect(diff.find((d) => d.code === 'nhf')).toEqual({ code: 'nhf', a: 437_500, b: 875_000 });
    expect(b.lines.find((l) => l.code === 'nhf')!.trace.rule_pack_version).toBe('2026.09.1');
  });

  it('a line present on one side only counts as 0 on the other', () => {
    const a = computePayslip(active, '2026-01', payee(), EMPLOYER);
    const b = computePayslip(active, '2026-01', payee({ nhia_enrolled: true }), EMPLOYER);
    expect(diffComputations(a, b)).toContainEqual({ code: 'nhia_employer', a: 0, b: 1_750_000 });
  });
});

describe('explanation and document (spec 4.8 explanation, document)', () => {
  const feb = (() => {
    const p = payee({ monthly_basic: 12_345_700, monthly_housing: 6_172_839, monthly_transport: 3_086_420, monthly_other_allowances: 1_234_491, annual_rent_paid: 100_000_250, state_of_residence: 'NG-KD' });
    const jan = computePayslip(active, '2026-01', p, { headcount: 30, turnover_50m_or_more: false });
    return computePayslip(active, '2026-02', p, { headcount: 30, turnover_50m_or_more: false }, jan.ytd_after);
  })();

  it('explanation is plain words built from the traces: every line, its exact value and the PAYE steps', () => {
    const text = explain(feb);
    expect(text[0]).toContain('2026.01.1');
    for (const l of feb.lines) expect(text.some((s) => s.startsWith(l.label))).toBe(true);
    expect(text.join(' ')).toContain('308642.5 kobo, rounded half up to 308643 kobo');
    expect(text.join(' ')).toContain('22444330.5 kobo for the year');
    expect(text.join(' ')).toContain('= 22444331/6 kobo');
    expect(text.at(-2)).toContain('net pay NGN 189,320.49');
  });

  it('the payslip PDF is a PDF, and the same payslip renders to the same bytes', async () => {
    const meta = { payslip_id: 'payslip_test', payee_name: 'Ada Obi', issued_at: '2026-02-27T09:00:00Z' };
    const a = await renderPayslipPdf(feb, meta);
    const b = await renderPayslipPdf(feb, meta);
    expect(Buffer.from(a.subarray(0, 5)).toString('latin1')).toBe('%PDF-');
    expect(Buffer.compare(Buffer.from(a), Buffer.from(b))).toBe(0);
    const other = await renderPayslipPdf(computePayslip(active, '2026-01', payee(), EMPLOYER), meta);
    expect(Buffer.compare(Buffer.from(a), Buffer.from(other))).not.toBe(0);
  });
});

describe('year to date', () => {
  it('a joiner whose earlier pay this year was untaxed catches up in one month; a negative net to date is still accepted next month', () => {
    const months = [6, 7, 8, 9, 10, 11, 12];
    const prior: YearToDate = { ...emptyYearToDate(2026), last_period: '2026-05', payslips: 5, gross: 500_000_000, net: 500_000_000 };
    const p = payee({ months_employed: [1, 2, 3, 4, 5, ...months] });
    const jun = computePayslip(active, '2026-06', p, EMPLOYER, prior);
    expect(jun.net).toBeLessThan(0);
    expect(jun.ytd_after.net).toBe(500_000_000 + jun.net);
    const jul = computePayslip(active, '2026-07', p, EMPLOYER, { ...jun.ytd_after, net: -1 });
    expect(jul.ytd_before.net).toBe(-1);
  });


  it('ytd_after adds this payslip to ytd_before', () => {
    const c = computePayslip(active, '2026-01', payee({ nhia_enrolled: true }), EMPLOYER);
    const e = emptyYearToDate(2026);
    expect(c.ytd_before).toEqual(e);
    expect(c.ytd_after).toEqual({
      tax_year: 2026,
      last_period: '2026-01',
      payslips: 1,
      gross: c.gross,
      pension_employee: amount(c, 'pension_employee'),
      nhf: amount(c, 'nhf'),
      nhia_employee: amount(c, 'nhia_employee'),
      paye: amount(c, 'paye'),
      net: c.net,
      taxable_regular: c.gross,
      taxable_one_off: 0,
      compensation: 0,
      paye_one_off: 0,
      regular_through: '2026-01',
    });
  });
});

describe('a run pinned to a rule pack this node lacks (spec 2.9: the pinned pack is used, never another)', () => {
  it('is refused as a retryable 503 unavailable (another node may hold the pack), not a 500', () => {
    const state = { rule_pack: { pack_id: 'ng-payroll', version: '2099.01.1', content_hash: 'sha256:' + '0'.repeat(64) } } as Parameters<typeof pinnedPack>[0];
    let err: unknown;
    try {
      pinnedPack(state);
    } catch (e) {
      err = e;
    }
    expect(err).toMatchObject({ code: 'unavailable', status: 503, retryable: true });
  });
});
